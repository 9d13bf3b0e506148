/**
 * The checkpointer's write order, driven by gates: a checkpoint's `put` waits for its writes in
 * flight and names them; a write sent while the `put` is in flight lands after it.
 */
import { describe, expect, it } from "vitest";
import { checkpointKey, WriteOrder } from "../../../src/langgraph/write-order";
import { deferred, isSettled } from "../../helpers/gate";

const KEY = checkpointKey("thread", "", "cp-1");

describe("WriteOrder", () => {
  it("sends a checkpoint's put only after its writes in flight, naming their tasks", async () => {
    const order = new WriteOrder();
    const write = deferred();
    const sent: string[] = [];
    const writing = order.write(KEY, "task-b", false, async () => {
      sent.push("write");
      await write.promise;
    });
    const putting = order.put(KEY, async (early) => {
      sent.push(`put ${early.join(",")}`);
    });
    expect(await isSettled(putting)).toBe(false);
    expect(sent).toEqual(["write"]);
    write.resolve();
    await Promise.all([writing, putting]);
    expect(sent).toEqual(["write", "put task-b"]);
  });

  it("holds a write sent while its checkpoint's put is in flight until the put is done", async () => {
    const order = new WriteOrder();
    const put = deferred();
    const sent: string[] = [];
    const putting = order.put(KEY, async (early) => {
      sent.push(`put ${early.join(",")}`);
      await put.promise;
    });
    // The put is on its way (sent) before the write comes.
    expect(await isSettled(putting)).toBe(false);
    expect(sent).toEqual(["put "]);
    const writing = order.write(KEY, "task-a", false, async () => {
      sent.push("write");
    });
    expect(await isSettled(writing)).toBe(false);
    expect(sent).toEqual(["put "]);
    put.resolve();
    await Promise.all([putting, writing]);
    expect(sent).toEqual(["put ", "write"]);
    // A write that landed after its checkpoint is not early: the next put names none.
    await order.put(KEY, async (early) => {
      expect(early).toEqual([]);
    });
  });

  it("does not hold a known checkpoint's writes nor count them as early", async () => {
    const order = new WriteOrder();
    await order.write(KEY, "task-a", true, async () => undefined);
    await order.put(KEY, async (early) => {
      expect(early).toEqual([]);
    });
  });

  it("forgets a failed write: its task is not named by the put", async () => {
    const order = new WriteOrder();
    await expect(
      order.write(KEY, "task-a", false, async () => {
        throw new Error("write failed");
      }),
    ).rejects.toThrow("write failed");
    await order.put(KEY, async (early) => {
      expect(early).toEqual([]);
    });
  });
});
