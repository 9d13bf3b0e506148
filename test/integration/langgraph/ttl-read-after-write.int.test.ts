/**
 * `ttl.refreshOnRead`: a read counts as activity for a whole TTL, even a read so soon after this
 * process's own write that it stores no refresh record (at most one per tenth of the TTL).
 */
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { afterEach, expect, it, vi } from "vitest";
import { useSaverEmulator } from "./saver-emulator";

const { saver } = useSaverEmulator();

afterEach(() => {
  vi.useRealTimers();
});

it("a thread read right after this process wrote it is kept a whole TTL after the read", async () => {
  // The test's clock is the emulator's too (same process): only `Date` is faked, so timers and
  // sockets run as usual and the ages below are exact whatever the machine's load.
  const t0 = Date.UTC(2026, 0, 1);
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(t0);
  // 0.05 minutes = 3 s; a read within 0.3 s of the process's own write stores no record.
  const s = saver({ ttl: { defaultTTL: 0.05, refreshOnRead: true } });
  const c = { ...emptyCheckpoint(), id: uuid6(-1) };
  c.channel_values = { x: "hello" };
  c.channel_versions = { x: s.getNextVersion(undefined) };
  const metadata = { source: "loop", step: 0, parents: {} } as never;
  const config = { configurable: { thread_id: "read", checkpoint_ns: "" } };
  await s.put(config, c, metadata, c.channel_versions);
  vi.setSystemTime(t0 + 200);
  expect((await s.getTuple(config))?.checkpoint.id).toBe(c.id);
  // 2.9 s after the read, 3.1 s after the write: kept.
  vi.setSystemTime(t0 + 3100);
  expect(await s.sweep()).toEqual([]);
  // More than 1.1 TTL after the write, and a TTL after the read: expired.
  vi.setSystemTime(t0 + 3450);
  expect(await s.sweep()).toEqual(["read"]);
});
