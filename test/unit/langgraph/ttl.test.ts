/**
 * What the saver's TTL keeps in memory: activity times only with `ttl.refreshOnRead` (the only
 * reader of them), and only for the last tenth of the TTL, so a long-lived process writing to
 * many threads does not grow.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import type { CheckpointThreads } from "../../../src/langgraph/thread-store";
import { ThreadTtl } from "../../../src/langgraph/ttl";

const threads = {} as CheckpointThreads;
const append = async () => undefined;

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(1_000_000);
});
afterEach(() => {
  vi.useRealTimers();
});

it("keeps no activity time without a ttl, or with a ttl that reads do not refresh", () => {
  const none = new ThreadTtl(undefined, threads, append);
  const writesOnly = new ThreadTtl({ ms: 60_000, refreshOnRead: false }, threads, append);
  for (let i = 0; i < 1000; i++) {
    none.wrote(`thread-${i}`);
    writesOnly.wrote(`thread-${i}`);
  }
  expect(none.trackedThreads).toBe(0);
  expect(writesOnly.trackedThreads).toBe(0);
});

it("with refreshOnRead, drops the times older than a tenth of the TTL", () => {
  const ttl = new ThreadTtl({ ms: 60_000, refreshOnRead: true }, threads, append);
  for (let i = 0; i < 1000; i++) ttl.wrote(`old-${i}`);
  expect(ttl.trackedThreads).toBe(1000);
  vi.advanceTimersByTime(6_000);
  ttl.wrote("new");
  expect(ttl.trackedThreads).toBe(1);
});
