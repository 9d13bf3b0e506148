import { describe, expect, it } from "vitest";
import { CheckpointLog } from "../../../src/langgraph/checkpoint-log";
import { appended, at, checkpointRecord, whole, writesRecord } from "./builders";

const json = (data: unknown) => ({ type: "json", data: JSON.stringify(data) });

describe("CheckpointLog", () => {
  it("finds a checkpoint by id or the latest of a namespace (greatest id), whatever the read order", () => {
    const log = new CheckpointLog();
    for (const [i, id] of ["c2", "c1", "c3"].entries()) {
      log.add(checkpointRecord({ checkpointId: id }), at(-i), [`m${i}`]);
    }
    log.add(checkpointRecord({ checkpointId: "c9", ns: "child" }), at(-5), ["m5"]);
    expect(log.checkpoint("")?.record.checkpointId).toBe("c3");
    expect(log.checkpoint("", "c1")?.record.checkpointId).toBe("c1");
    expect(log.checkpoint("child")?.record.checkpointId).toBe("c9");
    expect(log.checkpoint("other")).toBeUndefined();
    expect(log.checkpoints("").map((r) => r.record.checkpointId)).toEqual(["c3", "c2", "c1"]);
    expect(log.checkpoints().map((r) => r.record.checkpointId)).toEqual(["c3", "c2", "c1", "c9"]);
  });

  it("applies the Postgres saver's conflict rules by place in the thread, not by read order", () => {
    const log = new CheckpointLog();
    // Read newest first: the later put of c1 arrives first.
    log.add(checkpointRecord({ metadata: { type: "json", json: { step: 2 } } }), at(9), ["m9"]);
    log.add(checkpointRecord({ metadata: { type: "json", json: { step: 1 } } }), at(1), ["m1"]);
    expect(log.checkpoint("", "c1")?.record.metadata).toEqual({ type: "json", json: { step: 2 } });

    const write = (idx: number, text: string) => ({
      idx,
      channel: "ch",
      value: { type: "json", json: text },
    });
    log.add(writesRecord({ writes: [write(0, "ignored"), write(-1, "error 2")] }), at(8), ["w8"]);
    log.add(writesRecord({ writes: [write(0, "kept"), write(-1, "error 1")] }), at(3), ["w3"]);
    expect(log.pendingWrites("", "c1").map((w) => [w.idx, w.value])).toEqual([
      [-1, json("error 2")],
      [0, json("kept")],
    ]);
  });

  it("orders pending writes by task path, task id, then index", () => {
    const log = new CheckpointLog();
    const w = (idx: number) => ({ idx, channel: "c", value: { type: "json", json: idx } });
    log.add(writesRecord({ taskId: "b", taskPath: "~1", writes: [w(1), w(0)] }), at(1), ["a"]);
    log.add(writesRecord({ taskId: "z", taskPath: "", writes: [w(0)] }), at(2), ["b"]);
    log.add(writesRecord({ taskId: "a", taskPath: "~1", writes: [w(0)] }), at(3), ["c"]);
    expect(log.pendingWrites("", "c1").map((x) => `${x.taskId}${x.idx}`)).toEqual([
      "z0",
      "a0",
      "b0",
      "b1",
    ]);
  });

  it("rebuilds a list from its whole copy and the items appended since, with what it cost", () => {
    const log = new CheckpointLog();
    log.add(
      checkpointRecord({ checkpointId: "c1", blobs: [whole("m", "v1", ["a", "b"])] }),
      at(1),
      ["1"],
    );
    log.add(
      checkpointRecord({ checkpointId: "c2", blobs: [appended("m", "v2", "v1", ["c"])] }),
      at(2),
      ["2"],
    );
    log.add(
      checkpointRecord({ checkpointId: "c3", blobs: [appended("m", "v3", "v2", ["d", "e"])] }),
      at(3),
      ["3"],
    );
    expect(log.resolve("", "m", "v3")).toEqual({
      version: "v3",
      value: json(["a", "b", "c", "d", "e"]),
      root: at(1),
      rootChars: JSON.stringify(["a", "b"]).length,
      sinceRootChars: JSON.stringify(["c"]).length + JSON.stringify(["d", "e"]).length,
    });
    expect(log.resolve("", "m", "v2")?.value).toEqual(json(["a", "b", "c"]));
    expect(log.resolve("", "m", "v9")).toBeUndefined();
    expect(log.resolve("other", "m", "v3")).toBeUndefined();
  });

  it("reads a version from its newest whole copy, so a copy made far up ends the chain there", () => {
    const log = new CheckpointLog();
    log.add(checkpointRecord({ checkpointId: "c1", blobs: [whole("m", "v1", ["a"])] }), at(1), [
      "1",
    ]);
    log.add(
      checkpointRecord({ checkpointId: "c2", blobs: [appended("m", "v2", "v1", ["b"])] }),
      at(2),
      ["2"],
    );
    expect(log.resolve("", "m", "v2")?.root).toEqual(at(1));
    log.add(
      checkpointRecord({ checkpointId: "c9", blobs: [whole("m", "v2", ["a", "b"])] }),
      at(9),
      ["9"],
    );
    expect(log.resolve("", "m", "v2")).toMatchObject({ root: at(9), sinceRootChars: 0 });
    expect(log.chain("", "m", "v2")?.map((link) => link.owner.messageIds)).toEqual([["9"]]);
  });

  it("says a checkpoint is readable once its values and the writes stored before it are read", () => {
    const log = new CheckpointLog();
    const head = checkpointRecord({
      checkpointId: "c2",
      versions: { m: "v2" },
      blobs: [appended("m", "v2", "v1", ["b"])],
      earlyWrites: ["task-a"],
    });
    log.add(head, at(10), ["10"]);
    const found = () => log.checkpoint("", "c2")!;
    expect(log.isReadable(found())).toBe(false);
    const write = { idx: 0, channel: "m", value: { type: "json", json: ["b"] } };
    log.add(writesRecord({ checkpointId: "c2", taskId: "task-a", writes: [write] }), at(9), ["9"]);
    expect(log.isReadable(found())).toBe(false);
    log.add(checkpointRecord({ checkpointId: "c1", blobs: [whole("m", "v1", ["a"])] }), at(3), [
      "3",
    ]);
    expect(log.isReadable(found())).toBe(true);
  });

  it("keeps what the newest checkpoints need when it forgets older records", () => {
    const log = new CheckpointLog();
    log.add(checkpointRecord({ checkpointId: "c0", blobs: [whole("m", "v0", ["z"])] }), at(1), [
      "1",
    ]);
    log.add(checkpointRecord({ checkpointId: "c1", blobs: [whole("m", "v1", ["a"])] }), at(5), [
      "5",
    ]);
    log.add(
      checkpointRecord({
        checkpointId: "c2",
        versions: { m: "v2" },
        blobs: [appended("m", "v2", "v1", ["b"])],
      }),
      at(8),
      ["8"],
    );
    log.add(writesRecord({ checkpointId: "c2", taskId: "t" }), at(7), ["7"]);
    expect(log.neededFrom(0)).toBe(5);
    log.removeBelow(5);
    expect(log.checkpoint("", "c0")).toBeUndefined();
    expect(log.resolve("", "m", "v2")?.value).toEqual(json(["a", "b"]));
    // A head that cannot be read yet needs everything.
    log.add(checkpointRecord({ checkpointId: "c3", versions: { m: "v7" } }), at(9), ["9"]);
    expect(log.neededFrom(0)).toBeUndefined();
  });
});
