import { describe, expect, it } from "vitest";
import { RunRecord, RunRegistry } from "../../../src/server/runs";

function run(resumable = false): RunRecord {
  return new RunRecord({
    threadId: "t",
    assistantId: "agent",
    metadata: {},
    multitaskStrategy: "reject",
    resumable,
  });
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe("RunRecord", () => {
  it("replays events after Last-Event-ID, then follows until the end", async () => {
    const record = run();
    record.push("metadata", "{}");
    record.push("values", "1");
    const following = all(record.follow("0"));
    record.push("values", "2");
    record.end("success");
    expect((await following).map((e) => [e.id, e.data])).toEqual([
      ["1", "1"],
      ["2", "2"],
    ]);
    expect((await all(record.follow())).map((e) => e.id)).toEqual(["0", "1", "2"]);
    expect((await all(record.follow("nonsense"))).length).toBe(3);
  });

  it("ignores events after the end", async () => {
    const record = run();
    record.end("error");
    record.push("values", "late");
    expect(await all(record.follow())).toEqual([]);
    expect(record.status).toBe("error");
  });
});

describe("RunRegistry", () => {
  it("holds one active run per thread and keeps a resumable run's events after it ends", async () => {
    const registry = new RunRegistry();
    const plain = run();
    registry.start(plain);
    expect(registry.isBusy("t")).toBe(true);
    plain.push("values", "1");
    const reader = plain.follow();
    plain.end("success");
    await plain.done;
    await Promise.resolve();
    expect(registry.isBusy("t")).toBe(false);
    // A reader that started before the end still gets everything; a new join gets nothing.
    expect((await all(reader)).length).toBe(1);
    expect(await all(registry.get("t", plain.run_id)!.follow())).toEqual([]);

    const kept = run(true);
    registry.start(kept);
    kept.push("values", "1");
    kept.end("success");
    await kept.done;
    await Promise.resolve();
    expect((await all(registry.get("t", kept.run_id)!.follow())).length).toBe(1);
    expect(registry.get("other", kept.run_id)).toBeUndefined();
  });

  it("lists a thread's runs newest first, by status", async () => {
    const registry = new RunRegistry();
    const first = run();
    registry.start(first);
    first.end("success");
    await first.done;
    const second = run();
    registry.start(second);
    expect(registry.list("t").map((r) => r.run_id)).toEqual([second.run_id, first.run_id]);
    expect(registry.list("t", "running")).toEqual([second]);
    expect(registry.list("t", "success")).toEqual([first]);
    expect(registry.list("other")).toEqual([]);
  });

  it("remembers the last 500 ended runs, and never forgets a run that has not ended", async () => {
    const registry = new RunRegistry();
    const long = new RunRecord({
      threadId: "busy",
      assistantId: "agent",
      metadata: {},
      multitaskStrategy: "reject",
      resumable: false,
    });
    registry.start(long);
    const quick: RunRecord[] = [];
    for (let i = 0; i < 501; i++) {
      const each = run();
      registry.start(each);
      each.end("success");
      await each.done;
      quick.push(each);
    }
    await Promise.resolve();
    expect(registry.get("busy", long.run_id)).toBe(long);
    expect(registry.activeOn("busy")).toBe(long);
    expect(registry.get("t", quick[0]!.run_id)).toBeUndefined();
    expect(registry.get("t", quick[1]!.run_id)).toBe(quick[1]);
    expect(registry.list("t").length).toBe(500);
    long.end("success");
    await long.done;
    await Promise.resolve();
    // The long run is now the newest ended run: kept, and the oldest quick one goes.
    expect(registry.get("busy", long.run_id)).toBe(long);
    expect(registry.get("t", quick[1]!.run_id)).toBeUndefined();
  });

  it("keeps finished runs' events within a byte budget, dropping the oldest runs' first", async () => {
    const registry = new RunRegistry({ finishedEventBytes: 1000 });
    const ended: RunRecord[] = [];
    for (let i = 0; i < 3; i++) {
      const each = run(true);
      registry.start(each);
      each.push("values", "x".repeat(400));
      each.end("success");
      await each.done;
      await Promise.resolve();
      ended.push(each);
    }
    // 3 x 400+ bytes is over 1000: the oldest run's events went; the run itself is still listed.
    const [oldest, middle, newest] = ended;
    expect(registry.get("t", oldest!.run_id)?.eventsDropped).toBe(true);
    expect(await all(oldest!.follow())).toEqual([]);
    expect(registry.get("t", middle!.run_id)?.eventsDropped).toBe(false);
    expect((await all(middle!.follow())).length).toBe(1);
    expect((await all(newest!.follow())).length).toBe(1);
    // A running run's events are never dropped, however large.
    const live = run(true);
    registry.start(live);
    live.push("values", "y".repeat(5000));
    expect((await all(firstOf(live.follow()))).length).toBe(1);
    expect(live.eventsDropped).toBe(false);
  });
});

async function* firstOf<T>(items: AsyncIterable<T>): AsyncGenerator<T> {
  for await (const item of items) {
    yield item;
    return;
  }
}

describe("RunRecord for joins and queues", () => {
  it("ends a pending run at once on cancel, a running one only through its signal", () => {
    const pending = new RunRecord({
      threadId: "t",
      assistantId: "agent",
      metadata: {},
      multitaskStrategy: "enqueue",
      resumable: false,
      pending: true,
    });
    pending.cancel();
    expect(pending.status).toBe("interrupted");
    expect(pending.ended).toBe(true);
    const running = run();
    running.cancel();
    expect(running.controller.signal.aborted).toBe(true);
    expect(running.ended).toBe(false);
  });

  it("resumes after a checkpoint it wrote, and knows no other", async () => {
    const record = run(true);
    record.push("metadata", "{}");
    record.markCheckpoint("c1");
    record.push("values", "1");
    record.markCheckpoint("c2");
    record.push("values", "2");
    record.end("success");
    expect((await all(record.follow(record.afterCheckpoint("c2")))).map((e) => e.data)).toEqual([
      "2",
    ]);
    expect(record.afterCheckpoint("c1")).toBe("0");
    expect(record.afterCheckpoint("other")).toBeUndefined();
  });

  it("keeps its last values and error past forget, and drops them with its events", () => {
    const record = run();
    record.push("values", '{"a":1}');
    record.push("error", '{"error":"RunError"}');
    record.end("error");
    record.forget();
    expect([record.lastValues, record.errorData]).toEqual(['{"a":1}', '{"error":"RunError"}']);
    expect(record.eventBytes).toBeGreaterThan(0);
    record.dropEvents();
    expect([record.lastValues, record.errorData, record.eventBytes]).toEqual([
      undefined,
      undefined,
      0,
    ]);
  });
});
