/**
 * The run lifecycle's rules (see the header of `src/server/run-lifecycle.ts`), driven by gates:
 * a graph whose run waits until the test opens it, a thread list whose saves can be held. No
 * timers; each test fails when the rule it names is broken.
 */
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import type { RunnableGraph } from "../../../src/server/graphs";
import { HttpProblem } from "../../../src/server/http";
import type { RunCreate } from "../../../src/server/requests";
import { RunLifecycle, type ThreadRecordStore } from "../../../src/server/run-lifecycle";
import { type RunRecord, RunRegistry } from "../../../src/server/runs";
import type { StoredThread } from "../../../src/server/thread-records";
import type { ThreadView } from "../../../src/server/thread-view";
import { guardWrites } from "../../../src/server/write-guard";
import { drain, type Gate, gate, isSettled } from "../../helpers/gate";

const THREAD = "thread-1";

/** A graph whose every run waits at its own gate (or its abort), then yields one chunk. */
function gatedGraph(options: { failState?: boolean; failStream?: boolean } = {}) {
  const started: Gate[] = [];
  const graph: RunnableGraph = {
    async stream(_input, config) {
      if (options.failStream) throw new Error("the graph failed to start");
      const signal = config?.signal as AbortSignal;
      const turn = gate();
      started.push(turn);
      return (async function* () {
        await Promise.race([
          turn.wait,
          new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true })),
        ]);
        if (signal.aborted) throw Object.assign(new Error("aborted"), { name: "AbortError" });
        yield ["values", { messages: [] }];
      })();
    },
    async getState() {
      if (options.failState) throw new Error("state read failed");
      return { values: { messages: [] }, next: [], tasks: [] };
    },
    async *getStateHistory() {},
    async updateState() {
      return {};
    },
  };
  return { graph, started };
}

/** The thread list in memory; each call yields once, so unserialized writers interleave. */
class MemoryRecords implements ThreadRecordStore {
  readonly views = new Map<string, ThreadView>();
  /** When set, each save waits here first. */
  hold: Gate | undefined;
  failSave = false;
  saves = 0;

  constructor() {
    const now = new Date(0).toISOString();
    this.views.set(THREAD, {
      thread_id: THREAD,
      created_at: now,
      updated_at: now,
      metadata: {},
      status: "idle",
      values: {},
      interrupts: {},
      title: null,
      preview: null,
    });
  }

  async get(_owner: string, threadId: string): Promise<StoredThread | undefined> {
    await Promise.resolve();
    const view = this.views.get(threadId);
    return view ? { view: structuredClone(view), snapshotIds: [] } : undefined;
  }

  async save(_stored: StoredThread, view: ThreadView): Promise<StoredThread> {
    await this.hold?.wait;
    await Promise.resolve();
    if (this.failSave) throw new Error("the service refused the save");
    this.saves++;
    this.views.set(view.thread_id, view);
    return { view, snapshotIds: [] };
  }

  async delete(threadId: string): Promise<void> {
    this.views.delete(threadId);
  }
}

function setUp(graphOptions: Parameters<typeof gatedGraph>[0] = {}) {
  const records = new MemoryRecords();
  const runs = new RunRegistry();
  const guard = guardWrites(new MemorySaver());
  const deleted: string[] = [];
  const lifecycle = new RunLifecycle({
    records,
    runs,
    guard,
    deleteCheckpoints: async (threadId) => {
      deleted.push(threadId);
    },
  });
  const { graph, started } = gatedGraph(graphOptions);
  const reported: unknown[] = [];
  const submit = (strategy?: RunCreate["multitask_strategy"]): RunRecord =>
    lifecycle.submit({
      owner: "",
      threadId: THREAD,
      graph,
      body: { assistant_id: "agent", ...(strategy ? { multitask_strategy: strategy } : {}) },
      report: (error) => reported.push(error),
    });
  return { records, runs, lifecycle, started, submit, reported, deleted };
}

function conflict(action: () => unknown): HttpProblem {
  try {
    action();
  } catch (error) {
    if (error instanceof HttpProblem) return error;
    throw error;
  }
  throw new Error("expected a 409, got none");
}

describe("RunLifecycle: one run at a time per thread", () => {
  it("starts a queued run only after the run ahead of it has ended and saved", async () => {
    const { submit, started, records } = setUp();
    const first = submit();
    const second = submit("enqueue");
    await drain();
    expect(started.length).toBe(1);
    expect([first.status, second.status]).toEqual(["running", "pending"]);
    records.hold = gate();
    started[0]?.open();
    await drain();
    // The first run's graph ended; its save is held: the second still waits.
    expect(started.length).toBe(1);
    records.hold.open();
    await first.done;
    await drain();
    expect(started.length).toBe(2);
    expect(second.status).toBe("running");
    started[1]?.open();
    await second.done;
    expect([first.status, second.status]).toEqual(["success", "success"]);
  });

  it("answers 409 under reject while any run of the thread is live", async () => {
    const { submit, started } = setUp();
    const first = submit();
    expect(conflict(() => submit()).status).toBe(409);
    expect(conflict(() => submit("reject")).message).toContain(first.run_id);
    await drain();
    started[0]?.open();
    await first.done;
    const next = submit();
    await drain();
    started[1]?.open();
    await next.done;
    expect(next.status).toBe("success");
  });

  it("interrupt cancels the running run and the queued ones; those never call the graph", async () => {
    const { submit, started } = setUp();
    const first = submit();
    await drain();
    const queued = submit("enqueue");
    const last = submit("interrupt");
    await first.done;
    await queued.done;
    await drain();
    expect([first.status, queued.status]).toEqual(["interrupted", "interrupted"]);
    expect(started.length).toBe(2);
    started[1]?.open();
    await last.done;
    expect(last.status).toBe("success");
  });
});

describe("RunLifecycle: deleting a thread", () => {
  it("refuses new runs, drops the queued ones without calling the graph, then deletes", async () => {
    const { submit, started, lifecycle, records, deleted } = setUp();
    const running = submit();
    const queued = [submit("enqueue"), submit("enqueue")];
    await drain();
    const deleting = lifecycle.delete(THREAD);
    expect(conflict(() => submit("enqueue")).message).toMatch(/being deleted/);
    await deleting;
    await Promise.all(queued.map((run) => run.done));
    expect(started.length).toBe(1);
    expect([running, ...queued].map((run) => run.status)).toEqual([
      "interrupted",
      "interrupted",
      "interrupted",
    ]);
    expect(deleted).toEqual([THREAD]);
    expect(records.views.has(THREAD)).toBe(false);
    // Deleted for good: a request that read the thread before still cannot start a run.
    expect(conflict(() => submit()).status).toBe(409);
  });

  it("deletes only once the running run has ended", async () => {
    const { submit, lifecycle, deleted } = setUp();
    const running = submit();
    await drain();
    let endedFirst = false;
    void running.done.then(() => {
      endedFirst = deleted.length === 0;
    });
    await lifecycle.delete(THREAD);
    expect(endedFirst).toBe(true);
  });
});

describe("RunLifecycle: a thread record's read-modify-write", () => {
  it("keeps every one of ten concurrent changes of distinct keys", async () => {
    const { lifecycle, records } = setUp();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        lifecycle.update("", THREAD, (view) => ({
          ...view,
          metadata: { ...view.metadata, [`key${i}`]: i },
        })),
      ),
    );
    const metadata = records.views.get(THREAD)?.metadata ?? {};
    expect(Object.keys(metadata).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `key${i}`).sort(),
    );
  });

  it("keeps graph_id when a change races the run's final save", async () => {
    const { lifecycle, records, submit, started } = setUp();
    const run = submit();
    await drain();
    records.hold = gate();
    started[0]?.open();
    await drain();
    // The run's save is under way (held); a PATCH comes now.
    const patched = lifecycle.update("", THREAD, (view) => ({
      ...view,
      metadata: { ...view.metadata, pinned: true },
    }));
    records.hold.open();
    await Promise.all([run.done, patched]);
    expect(records.views.get(THREAD)?.metadata).toMatchObject({ pinned: true, graph_id: "agent" });
  });

  it("answers 404 for a thread that is gone", async () => {
    const { lifecycle } = setUp();
    await expect(lifecycle.update("", "nope", (view) => view)).rejects.toMatchObject({
      status: 404,
    });
  });
});

describe("RunLifecycle: done", () => {
  it("is pending until the thread record is saved, then the run ends", async () => {
    const { submit, started, records } = setUp();
    records.hold = gate();
    const run = submit();
    await drain();
    started[0]?.open();
    expect(await isSettled(run.done)).toBe(false);
    expect(run.status).toBe("running");
    records.hold.open();
    await run.done;
    expect(records.saves).toBe(1);
    expect(records.views.get(THREAD)?.metadata.graph_id).toBe("agent");
  });

  it("resolves with an error status when the save throws, and reports it", async () => {
    const { submit, started, records, reported } = setUp();
    records.failSave = true;
    const run = submit();
    await drain();
    started[0]?.open();
    await run.done;
    expect(run.status).toBe("error");
    expect(reported).toHaveLength(1);
  });

  it("resolves when the graph's state read throws", async () => {
    const { submit, started, reported } = setUp({ failState: true });
    const run = submit();
    await drain();
    started[0]?.open();
    await run.done;
    expect(run.status).toBe("error");
    expect(String(reported[0])).toContain("state read failed");
  });

  it("resolves when the graph throws, and the queued run still gets its turn", async () => {
    const { submit, records } = setUp({ failStream: true });
    const first = submit();
    const second = submit("enqueue");
    await Promise.all([first.done, second.done]);
    expect([first.status, second.status]).toEqual(["error", "error"]);
    expect(records.saves).toBe(2);
  });
});
