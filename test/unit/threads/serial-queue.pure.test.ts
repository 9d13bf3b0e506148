import { describe, expect, it } from "vitest";
import { KeyedSerialQueue, SerialQueue } from "../../../src/threads/serial-queue";

/** A task that logs its start and end, finishing after `ms`, failing when `fail` is set. */
function task(log: string[], name: string, ms: number, fail = false) {
  return async () => {
    log.push(`start ${name}`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    log.push(`end ${name}`);
    if (fail) throw new Error(name);
    return name;
  };
}

describe("SerialQueue", () => {
  it("runs tasks one at a time in call order, and a failure does not stop the next", async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const results = await Promise.allSettled([
      queue.run(task(log, "a", 20)),
      queue.run(task(log, "b", 0, true)),
      queue.run(task(log, "c", 0)),
    ]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(results[2]).toEqual({ status: "fulfilled", value: "c" });
  });
});

describe("KeyedSerialQueue", () => {
  it("serialises tasks of one key and lets other keys run meanwhile", async () => {
    const queue = new KeyedSerialQueue();
    const log: string[] = [];
    await Promise.allSettled([
      queue.run("k1", task(log, "k1-a", 20, true)),
      queue.run("k2", task(log, "k2-a", 0)),
      queue.run("k1", task(log, "k1-b", 0)),
    ]);
    expect(log.indexOf("end k2-a")).toBeLessThan(log.indexOf("end k1-a"));
    expect(log.indexOf("end k1-a")).toBeLessThan(log.indexOf("start k1-b"));
    // A key whose queue ran empty starts afresh.
    await expect(queue.run("k1", task(log, "k1-c", 0))).resolves.toBe("k1-c");
  });
});
