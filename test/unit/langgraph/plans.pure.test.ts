import { describe, expect, it } from "vitest";
import { planBlobs } from "../../../src/langgraph/blob-plan";
import { READ_WINDOW } from "../../../src/langgraph/channel-values";
import { CheckpointLog } from "../../../src/langgraph/checkpoint-log";
import { planPrune, planSuperseded, prunedThread } from "../../../src/langgraph/retention";
import { blobsFormat, SPLICE_FORMAT } from "../../../src/records/checkpoint";
import { appended, at, checkpointRecord, whole, writesRecord } from "./builders";

const value = (json: unknown) => ({ type: "json", json });

/** A log holding checkpoint c1 at message 1: m = ["a", "b"] (whole), n = "x". */
function logWithParent() {
  const log = new CheckpointLog();
  log.add(
    checkpointRecord({
      checkpointId: "c1",
      versions: { m: "v1", n: "n1" },
      blobs: [whole("m", "v1", ["a", "b"]), whole("n", "n1", "x")],
    }),
    at(1),
    ["1"],
  );
  return log;
}

describe("planBlobs", () => {
  it("stores the items appended to the parent's value, and other changes whole", () => {
    const log = logWithParent();
    const plan = planBlobs({
      ns: "",
      versions: { m: "v2", n: "n2" },
      changed: new Map([
        ["m", value(["a", "b", "c"])],
        ["n", value("y")],
      ]),
      parentVersions: { m: "v1", n: "n1" },
      log,
      now: at(3),
    });
    expect(plan.blobs).toEqual([appended("m", "v2", "v1", ["c"]), whole("n", "n2", "y")]);
  });

  it("stores a list whose last items changed as the items after those kept (a tool turn), and reads it back", () => {
    const log = logWithParent();
    const plan = planBlobs({
      ns: "",
      versions: { m: "v2" },
      changed: new Map([["m", value(["a", "B", "c"])]]),
      parentVersions: { m: "v1" },
      log,
      now: at(3),
    });
    expect(plan.blobs).toEqual([
      {
        channel: "m",
        version: "v2",
        base: "v1",
        keepChars: '["a"'.length,
        append: value(["B", "c"]),
      },
    ]);
    expect(blobsFormat(plan.blobs)).toBe(SPLICE_FORMAT);
    // Another process reads the record: the value is the one stored.
    log.add(
      checkpointRecord({ checkpointId: "c2", versions: { m: "v2" }, blobs: plan.blobs }),
      at(3),
      ["3"],
    );
    expect(log.resolve("", "m", "v2")?.value?.data).toBe(JSON.stringify(["a", "B", "c"]));
  });

  it("stores whole what changed otherwise, or whose appended parts outgrow the whole copy", () => {
    const log = logWithParent();
    const plan = planBlobs({
      ns: "",
      versions: { m: "v2" },
      changed: new Map([["m", value(["b"])]]),
      parentVersions: { m: "v1" },
      log,
      now: at(3),
    });
    expect(plan.blobs).toEqual([whole("m", "v2", ["b"])]);
    const longer = planBlobs({
      ns: "",
      versions: { m: "v2" },
      changed: new Map([["m", value(["a", "b", "a long item that outgrows the list"])]]),
      parentVersions: { m: "v1" },
      log,
      now: at(3),
    });
    expect(longer.blobs).toEqual([
      whole("m", "v2", ["a", "b", "a long item that outgrows the list"]),
    ]);
  });

  it("stores whole, and copies nothing, without the parent in the log (a write without a read)", () => {
    const plan = planBlobs({
      ns: "",
      versions: { m: "v2", n: "n1" },
      changed: new Map([["m", value(["a", "b", "c"])]]),
      parentVersions: undefined,
      log: undefined,
      now: undefined,
    });
    expect(plan.blobs).toEqual([whole("m", "v2", ["a", "b", "c"])]);
  });

  it("copies an unchanged value whose whole copy is beyond the read window, as it was stored", () => {
    const log = logWithParent();
    const far = at(1 + READ_WINDOW.messages);
    const plan = planBlobs({
      ns: "",
      versions: { m: "v2", n: "n1" },
      changed: new Map([["m", value(["a", "b", "c"])]]),
      parentVersions: { m: "v1", n: "n1" },
      log,
      now: far,
    });
    // m is too far back to extend, and n is copied under its unchanged version.
    expect(plan.blobs).toEqual([whole("m", "v2", ["a", "b", "c"]), whole("n", "n1", "x")]);
  });
});

describe("planPrune", () => {
  /** c1 <- c2 <- c3 <- c4 on one branch, m appended at each step, writes against each. */
  function history() {
    const log = new CheckpointLog();
    const write = (checkpointId: string, channel = "m") =>
      writesRecord({
        checkpointId,
        taskId: `task-${checkpointId}`,
        writes: [{ idx: 0, channel, value: value(checkpointId) }],
      });
    log.add(
      checkpointRecord({
        checkpointId: "c1",
        versions: { m: "v1" },
        blobs: [whole("m", "v1", ["a"])],
      }),
      at(1),
      ["1"],
    );
    log.add(write("c1"), at(2), ["2"]);
    for (const [i, id] of ["c2", "c3", "c4"].entries()) {
      const version = `v${i + 2}`;
      log.add(
        checkpointRecord({
          checkpointId: id,
          parentId: `c${i + 1}`,
          versions: { m: version },
          blobs: [appended("m", version, `v${i + 1}`, [id])],
        }),
        at(3 + 2 * i),
        [`${3 + 2 * i}`],
      );
      log.add(write(id), at(4 + 2 * i), [`${4 + 2 * i}`]);
    }
    return log;
  }

  it("keeps the newest checkpoints with their writes, copies what they read from removed records", () => {
    const log = history();
    const plan = planPrune(log, "t", 2);
    // c3 extends c2's value, which goes: c3's value is copied whole; c4 then reads through it.
    expect(plan.copies).toEqual([
      {
        kind: "values",
        format: 2,
        threadId: "t",
        ns: "",
        blobs: [whole("m", "v3", ["a", "c2", "c3"])],
      },
    ]);
    expect(plan.remove.map((entry) => entry.messageIds[0])).toEqual(["4", "3", "2", "1"]);
  });

  it("keeps the writes of a checkpoint still on its way (stored before it), drops orphans older than all kept", () => {
    const log = history();
    const early = writesRecord({
      checkpointId: "c5",
      taskId: "ask",
      writes: [{ idx: -3, channel: "__interrupt__", value: value({ question: "ok?" }) }],
    });
    log.add(early, at(20), ["20"]);
    log.add(writesRecord({ checkpointId: "c0", taskId: "lost" }), at(21), ["21"]);
    const plan = planPrune(log, "t", 2);
    const removed = plan.remove.map((entry) => entry.messageIds[0]);
    expect(removed).not.toContain("20");
    expect(removed).toContain("21");
    expect(prunedThread("t", plan.remove)).toEqual({
      threadId: "t",
      checkpoints: [
        { checkpointNs: "", checkpointId: "c2" },
        { checkpointNs: "", checkpointId: "c1" },
      ],
      writes: 3,
      messages: 5,
    });
  });

  it('keep: "latest" deletes older checkpoints and their writes, never newer ids or copies above it', () => {
    const log = history();
    log.add(writesRecord({ checkpointId: "c5", taskId: "early" }), at(20), ["20"]);
    log.add({ kind: "values", format: 2, threadId: "t", ns: "", blobs: [] }, at(21), ["21"]);
    log.add(writesRecord({ ns: "child", checkpointId: "c1" }), at(22), ["22"]);
    const removed = planSuperseded(log, "", "c3", 7).map((entry) => entry.messageIds[0]);
    // c1, c2 and their writes; c3's own writes (6), c4 and c5's early writes stay.
    expect(removed).toEqual(["4", "3", "2", "1"]);
  });

  it('keep: "latest" keeps the records a write stored before its checkpoint is cut around', () => {
    const log = history();
    // c5's write (stored before c5, durability "async") is cut around m at v2: c2's value, read
    // from c2's record (3) and c1's (1).
    const early = writesRecord({
      checkpointId: "c5",
      taskId: "early",
      writes: [
        {
          idx: 0,
          channel: "__pregel_tasks",
          value: { type: "json", json: ['{"messages":', "}"] },
          cut: { channel: "m", version: "v2" },
        },
      ],
    });
    log.add(early, at(20), ["20"]);
    const removed = planSuperseded(log, "", "c5", 21).map((entry) => entry.messageIds[0]);
    expect(removed).toEqual(["8", "7", "6", "5", "4", "2"]);
  });

  it("keeps a checkpoint waiting on an interrupt, whatever its age", () => {
    const log = history();
    log.add(
      writesRecord({
        checkpointId: "c9",
        taskId: "ask",
        writes: [{ idx: -3, channel: "__interrupt__", value: value({ question: "ok?" }) }],
      }),
      at(20),
      ["20"],
    );
    log.add(
      checkpointRecord({ checkpointId: "c0", ns: "child", versions: {}, blobs: [] }),
      at(21),
      ["21"],
    );
    log.add(
      writesRecord({
        ns: "child",
        checkpointId: "c0",
        taskId: "ask",
        writes: [{ idx: -3, channel: "__interrupt__", value: value({ question: "ok?" }) }],
      }),
      at(22),
      ["22"],
    );
    log.add(checkpointRecord({ checkpointId: "c00", ns: "child", versions: {} }), at(23), ["23"]);
    const plan = planPrune(log, "t", 1);
    const removed = plan.remove.map((entry) => entry.messageIds[0]);
    // In "child", c00 is the newest; c0 waits on its interrupt (no checkpoint continues it).
    expect(removed).not.toContain("21");
    expect(removed).not.toContain("22");
    expect(removed).not.toContain("23");
    expect(removed).toContain("5");
  });
});
