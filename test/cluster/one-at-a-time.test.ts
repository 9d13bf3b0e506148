/**
 * The lock that keeps cluster files one at a time across vitest's workers (./one-at-a-time.ts):
 * a second caller gets it only once the first released it.
 */
import { expect, it } from "vitest";
import { acquireClusterLock } from "./one-at-a-time";

/** A lock of this file's own: a cluster file may hold the clusters' lock meanwhile. */
const LOCK = `lock-test-${process.pid}`;

it("hands the lock to a waiting caller only after the holder released it", async () => {
  const first = await acquireClusterLock(LOCK);
  const events: string[] = [];
  const second = acquireClusterLock(LOCK).then((lock) => {
    events.push("second acquired");
    return lock;
  });
  await first.waitedFor();
  events.push("first released");
  await first.release();
  await (await second).release();
  expect(events).toEqual(["first released", "second acquired"]);
});

it("is free again once released", async () => {
  await (await acquireClusterLock(LOCK)).release();
  await (await acquireClusterLock(LOCK)).release();
});
