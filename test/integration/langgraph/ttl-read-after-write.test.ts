/**
 * `ttl.refreshOnRead`: a read counts as activity for a whole TTL, even a read so soon after this
 * process's own write that it stores no refresh record (at most one per tenth of the TTL).
 */
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { beforeEach, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver, type StudioCheckpointSaverFields } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function saver(fields: StudioCheckpointSaverFields = {}) {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  return new StudioCheckpointSaver({
    client: new StudioClient({ baseUrl, proxyUrl, apiKey }),
    ...fields,
  });
}

const sleepUntil = (time: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, time - Date.now())));

it("a thread read right after this process wrote it is kept a whole TTL after the read", async () => {
  // 0.05 minutes = 3 s; a read within 0.3 s of the process's own write stores no record.
  const s = saver({ ttl: { defaultTTL: 0.05, refreshOnRead: true } });
  const c = { ...emptyCheckpoint(), id: uuid6(-1) };
  c.channel_values = { x: "hello" };
  c.channel_versions = { x: s.getNextVersion(undefined) };
  const metadata = { source: "loop", step: 0, parents: {} } as never;
  const config = { configurable: { thread_id: "read", checkpoint_ns: "" } };
  const before = Date.now();
  await s.put(config, c, metadata, c.channel_versions);
  const after = Date.now();
  await sleepUntil(before + 200);
  expect((await s.getTuple(config))?.checkpoint.id).toBe(c.id);
  // 2.9 s after the read (and over 3 s after the write, were the put quick): kept.
  await sleepUntil(before + 3100);
  expect(await s.sweep()).toEqual([]);
  // More than 1.1 TTL after the write, and a TTL after the read: expired.
  await sleepUntil(after + 3450);
  expect(await s.sweep()).toEqual(["read"]);
});
