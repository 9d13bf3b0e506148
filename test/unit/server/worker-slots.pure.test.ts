import { describe, expect, it } from "vitest";
import { WorkerSlots } from "../../../src/server/redis/worker-slots";

describe("WorkerSlots: at most maxBackgroundRuns runs an instance runs at once", () => {
  it("refuses an ask once every slot is held or asked with", () => {
    const slots = new WorkerSlots(2);
    expect(slots.ask()).toBe(true);
    expect(slots.ask()).toBe(true);
    // Two asks under way (two claims sent at once): a third cannot fill a slot they may take.
    expect(slots.ask()).toBe(false);
    slots.got("run-a");
    slots.none();
    expect(slots.free).toBe(1);
    expect(slots.ask()).toBe(true);
    slots.got("run-b");
    expect(slots.ask()).toBe(false);
  });

  it("frees a slot when its run ends, once, and none for a run that held none", () => {
    const slots = new WorkerSlots(1);
    slots.ask();
    slots.got("run-a");
    expect(slots.release("run-elsewhere")).toBe(false);
    expect(slots.free).toBe(0);
    expect(slots.release("run-a")).toBe(true);
    expect(slots.release("run-a")).toBe(false);
    expect(slots.free).toBe(1);
  });

  it("with no slot at all, takes nothing (an instance that runs no background runs)", () => {
    const slots = new WorkerSlots(0);
    expect(slots.ask()).toBe(false);
    expect(slots.free).toBe(0);
  });
});
