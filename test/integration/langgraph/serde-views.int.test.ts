/**
 * `withSerde`: a saver or store like the original (its client, dataset, `keep`) whose values go
 * through another serializer, as a chat server gives each user's runs their own keys. A saver's
 * view keeps the original's settings; a store's view shares the namespaces its origin read.
 */
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { toBase64 } from "../../../src/converters/base64";
import {
  createEncryptedSerde,
  StudioCheckpointSaver,
  StudioDecryptionError,
  StudioStore,
} from "../../../src/langgraph";
import { useSaverEmulator } from "./saver-emulator";

const { newClient } = useSaverEmulator();

const serdeOf = () =>
  createEncryptedSerde({ keys: { k1: toBase64(crypto.getRandomValues(new Uint8Array(32))) } });

async function putStep(saver: StudioCheckpointSaver, threadId: string, id: string, text: string) {
  const checkpoint = {
    ...emptyCheckpoint(),
    id,
    channel_values: { note: text },
    channel_versions: { note: `${id}.1` },
  };
  await saver.put(
    { configurable: { thread_id: threadId, checkpoint_ns: "" } },
    checkpoint,
    { source: "input", step: -1, parents: {} },
    { note: `${id}.1` },
  );
}

describe("StudioCheckpointSaver.withSerde", () => {
  it("keeps the saver's dataset and keep, and seals with the view's serializer", async () => {
    const base = new StudioCheckpointSaver({
      client: newClient(),
      datasetId: "chat-server",
      keep: "latest",
    });
    const serde = serdeOf();
    const view = base.withSerde(serde);
    expect(view).toBeInstanceOf(StudioCheckpointSaver);
    expect(view.datasetId).toBe("chat-server");

    await putStep(view, "t1", "00000000-0000-0000-0000-000000000001", "first");
    await putStep(view, "t1", "00000000-0000-0000-0000-000000000002", "second");
    const again = new StudioCheckpointSaver({ client: newClient(), datasetId: "chat-server" });
    const listed = [];
    for await (const tuple of again.withSerde(serde).list({ configurable: { thread_id: "t1" } })) {
      listed.push(tuple.checkpoint.channel_values);
    }
    // keep: "latest" came with the view: only the newest checkpoint is left.
    expect(listed).toEqual([{ note: "second" }]);
    await expect(again.getTuple({ configurable: { thread_id: "t1" } })).rejects.toThrow(/serde/);
    await expect(
      again.withSerde(serdeOf()).getTuple({ configurable: { thread_id: "t1" } }),
    ).rejects.toBeInstanceOf(StudioDecryptionError);
  });
});

describe("StudioStore.withSerde", () => {
  it("seals with the view's serializer over the origin's namespaces", async () => {
    const base = new StudioStore({ client: newClient(), datasetId: "memory" });
    const serde = serdeOf();
    await base.withSerde(serde).put(["notes", "u1"], "n1", { text: "sealed" });
    expect((await base.withSerde(serde).get(["notes", "u1"], "n1"))?.value).toEqual({
      text: "sealed",
    });
    await expect(base.get(["notes", "u1"], "n1")).rejects.toThrow(/serde/);
    await expect(base.withSerde(serdeOf()).get(["notes", "u1"], "n1")).rejects.toBeInstanceOf(
      StudioDecryptionError,
    );
  });
});
