/**
 * Encryption as the service sees it: with `createEncryptedSerde`, neither StudioStore values nor
 * checkpoints leave anything readable in what the emulator stores (its data file is scanned for
 * the plaintext; the same scan finds it when encryption is off). And a StudioStore value that is
 * tampered with, copied to another key, or stored in plaintext is refused with a clear error.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { createAgent } from "langchain";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { toBase64 } from "../../../src/converters/base64";
import {
  createEncryptedSerde,
  StudioCheckpointSaver,
  StudioDecryptionError,
  StudioStore,
} from "../../../src/langgraph";
import { readRecord, STORE_RECORD_KEY } from "../../../src/store/records";
import { useInProcessEmulator } from "../../helpers/emulator";

const dir = mkdtempSync(join(tmpdir(), "studio-encrypted-"));
const dataFile = join(dir, "emulator.jsonl");
const emulator = useInProcessEmulator({ dataFile });

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await emulator.handle.reset();
});

const keys = { k1: toBase64(crypto.getRandomValues(new Uint8Array(32))) };
const SECRET = "the vault code is 0451-7789";

function client(): StudioClient {
  const { baseUrl, proxyUrl, apiKey, fetch } = emulator.handle;
  return new StudioClient({ baseUrl, proxyUrl, apiKey, fetch });
}

function store(serde?: SerializerProtocol): StudioStore {
  return new StudioStore({ client: client(), serde });
}

async function stored(): Promise<string> {
  return readFile(dataFile, "utf8");
}

/** The first store record message of the thread titled `title`. */
async function recordIn(title: string) {
  const c = client();
  for await (const thread of c.iterateThreads({ order: "asc" })) {
    if (thread.title !== title) continue;
    for await (const message of c.iterateMessages(thread.id, { order: "asc" })) {
      const entries = readRecord(message);
      if (entries?.some((entry) => entry.op === "put")) return { threadId: thread.id, entries };
    }
  }
  throw new Error(`no record in ${title}`);
}

describe("nothing readable is stored", () => {
  it("in StudioStore values, which another store with the keys reads back", async () => {
    const serde = createEncryptedSerde({ keys });
    await store(serde).put(["users", "ada"], "vault", { text: SECRET });
    expect(await stored()).not.toContain("0451-7789");
    expect(
      (await store(createEncryptedSerde({ keys })).get(["users", "ada"], "vault"))?.value,
    ).toEqual({
      text: SECRET,
    });

    // The scan finds the plaintext when encryption is off: the check above can fail.
    await store().put(["users", "bob"], "vault", { text: SECRET });
    expect(await stored()).toContain("0451-7789");
  });

  it("in checkpoints of an agent's conversation", async () => {
    const run = async (serde?: SerializerProtocol) => {
      const c = client();
      const agent = createAgent({
        model: new ChatStudio({ model: "studio/echo-small", client: c }),
        tools: [],
        checkpointer: new StudioCheckpointSaver({ client: c, serde }),
      });
      const config = { configurable: { thread_id: "private" } };
      const result = await agent.invoke({ messages: [{ role: "user", content: SECRET }] }, config);
      return result.messages.map((message) => message.text);
    };
    expect(await run(createEncryptedSerde({ keys }))).toEqual([SECRET, `You said: ${SECRET}`]);
    expect(await stored()).not.toContain("0451-7789");

    await emulator.handle.reset();
    await run();
    expect(await stored()).toContain("0451-7789");
  });
});

describe("StudioStore refuses", () => {
  it("a value copied to another key (replayed), saying it was written for another place", async () => {
    const serde = createEncryptedSerde({ keys });
    const writer = store(serde);
    await writer.put(["users", "ada"], "vault", { text: SECRET });
    const { threadId, entries } = await recordIn("LangGraph store: users/ada");
    const put = entries.find((entry) => entry.op === "put")!;
    // The same ciphertext under another key, newer than anything written.
    const replayed = { ...put, key: "open", s: put.s + 1_000_000 };
    await client().createMessage(threadId, {
      role: "assistant",
      content: JSON.stringify({ entries: [replayed] }),
      metadata: { [STORE_RECORD_KEY]: "1" },
    });
    const error = await store(serde)
      .get(["users", "ada"], "open")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioDecryptionError);
    expect(error).toMatchObject({ reason: "wrongContext" });
    expect((error as Error).message).toContain('["store",["users","ada"],"open"]');
  });

  it("a value changed in the service, saying it was tampered with", async () => {
    const serde = createEncryptedSerde({ keys });
    await store(serde).put(["users", "ada"], "vault", { text: SECRET });
    const { threadId, entries } = await recordIn("LangGraph store: users/ada");
    const put = entries.find((entry) => entry.op === "put")!;
    if (!("x" in put)) throw new Error("the value was not stored through the serde");
    const bytes = Uint8Array.from(atob(put.x.data), (c) => c.charCodeAt(0));
    bytes[bytes.length - 1]! ^= 1;
    const tampered = { ...put, s: put.s + 1_000_000, x: { ...put.x, data: toBase64(bytes) } };
    await client().createMessage(threadId, {
      role: "assistant",
      content: JSON.stringify({ entries: [tampered] }),
      metadata: { [STORE_RECORD_KEY]: "1" },
    });
    const error = await store(serde)
      .search(["users"])
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "StudioDecryptionError", reason: "tampered" });
  });

  it("plaintext once encryption is on, unless allowPlaintext says the data is being migrated", async () => {
    await store().put(["users", "ada"], "vault", { text: SECRET });
    const error = await store(createEncryptedSerde({ keys }))
      .get(["users", "ada"], "vault")
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "StudioDecryptionError", reason: "plaintext" });

    const migrating = store(createEncryptedSerde({ keys, allowPlaintext: true }));
    expect((await migrating.get(["users", "ada"], "vault"))?.value).toEqual({ text: SECRET });
    // Rewriting it encrypts it: the strict store reads it now.
    await migrating.put(["users", "ada"], "vault", { text: SECRET });
    const strict = store(createEncryptedSerde({ keys }));
    expect((await strict.get(["users", "ada"], "vault"))?.value).toEqual({ text: SECRET });
  });

  it("an encrypted value to a store without the serializer, saying which to pass", async () => {
    await store(createEncryptedSerde({ keys })).put(["users", "ada"], "vault", { text: SECRET });
    await expect(store().get(["users", "ada"], "vault")).rejects.toThrow(
      /stored through a serializer \(type "lc_aes_gcm"\): pass the same `serde`/,
    );
  });
});
