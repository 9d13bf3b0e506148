/**
 * The server's guard on a deleted thread's checkpoint writes, driven by gates: `settled` waits
 * for the writes under way, and a forbidden thread's later writes are never stored.
 */
import { emptyCheckpoint, MemorySaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { guardWrites } from "../../../src/server/write-guard";
import { type Gate, gate, isSettled } from "../../helpers/gate";

/** A saver whose puts wait at a gate the test opens. */
class HeldSaver extends MemorySaver {
  hold: Gate | undefined;
  override async put(...args: Parameters<MemorySaver["put"]>) {
    await this.hold?.wait;
    return super.put(...args);
  }
}

const config = (threadId: string) => ({ configurable: { thread_id: threadId, checkpoint_ns: "" } });

async function stored(saver: MemorySaver, threadId: string): Promise<number> {
  let count = 0;
  for await (const _ of saver.list({ configurable: { thread_id: threadId } })) count++;
  return count;
}

describe("guardWrites", () => {
  it("settled waits for the thread's writes under way, not another thread's", async () => {
    const saver = new HeldSaver();
    const guard = guardWrites(saver);
    saver.hold = gate();
    const writing = guard.saver.put(config("t1"), emptyCheckpoint(), {} as never, {});
    const settled = guard.settled("t1");
    expect(await isSettled(guard.settled("t2"))).toBe(true);
    expect(await isSettled(settled)).toBe(false);
    saver.hold.open();
    await writing;
    expect(await isSettled(settled)).toBe(true);
    expect(await stored(saver, "t1")).toBe(1);
  });

  it("drops a forbidden thread's writes, and stores them again once allowed", async () => {
    const saver = new MemorySaver();
    const guard = guardWrites(saver);
    guard.forbid("t1");
    expect(guard.forbidden("t1")).toBe(true);
    const checkpoint = emptyCheckpoint();
    const answer = await guard.saver.put(config("t1"), checkpoint, {} as never, {});
    expect(answer.configurable?.checkpoint_id).toBe(checkpoint.id);
    await guard.saver.putWrites(
      { configurable: { ...config("t1").configurable, checkpoint_id: checkpoint.id } },
      [["messages", "hi"]],
      "task",
    );
    expect(await stored(saver, "t1")).toBe(0);
    expect(JSON.stringify(saver.writes)).not.toContain("t1");
    guard.allow("t1");
    await guard.saver.put(config("t1"), emptyCheckpoint(), {} as never, {});
    expect(await stored(saver, "t1")).toBe(1);
  });

  it("is still the saver the graphs expect", () => {
    const guard = guardWrites(new MemorySaver());
    expect(guard.saver).toBeInstanceOf(MemorySaver);
  });

  it("hands out one stand-in per method, and a new one when the saver's method is replaced", async () => {
    const saver = new MemorySaver();
    const guard = guardWrites(saver);
    expect(guard.saver.getTuple).toBe(guard.saver.getTuple);
    expect(guard.saver.put).toBe(guard.saver.put);
    const calls: string[] = [];
    const original = saver.getTuple.bind(saver);
    saver.getTuple = async (...args) => {
      calls.push("replaced");
      return original(...args);
    };
    await guard.saver.getTuple(config("t1"));
    expect(calls).toEqual(["replaced"]);
    guard.forbid("t1");
    await guard.saver.put(config("t1"), emptyCheckpoint(), {} as never, {});
    expect(await stored(saver, "t1")).toBe(0);
  });
});
