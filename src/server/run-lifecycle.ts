/**
 * The life of a thread's runs and of its record in this process: admit, wait for the runs ahead,
 * execute, save the thread record, end; and deleting a thread. The rules below hold because of how
 * this module is built, not because of the order of some statements:
 *
 * 1. One run at a time per thread. A run is admitted synchronously (`submit` has no await) and
 *    waits for the `done` of the run admitted before it, so the thread's runs form one chain.
 *    `multitask_strategy` "reject" refuses a run while any run of the thread is live; "interrupt"
 *    and "rollback" cancel every live run ahead of it; "enqueue" waits in line.
 * 2. A thread being deleted refuses new runs with 409 (a thread already gone is a 404 from the
 *    route's lookup; one deleted after the route read it is a 409 too, remembered by the write
 *    guard). Its runs are cancelled: a run still waiting never calls the graph and ends
 *    "interrupted" when the run ahead of it ends.
 * 3. A thread record's read-modify-write (a PATCH, a run's final save, the delete) runs after the
 *    previous one on the same thread has finished, so every acknowledged PATCH is kept and a run's
 *    `graph_id` survives a PATCH racing its end. This holds in this process only. Across processes
 *    each save writes a whole record and the newest `updated_at` wins on read: two processes
 *    patching one thread at once keep one of the two patches, and a delete in one process does not
 *    stop another process's runs.
 * 4. `run.done` resolves on every path: it is the `finally` of the one task that drives a run,
 *    around the wait, the graph and the save, whatever throws.
 * 5. `run.done` means the graph ended and the thread record was saved (or its save failed and was
 *    reported). A run cancelled for a delete skips the save: the record is about to go.
 * 6. A failed run leaves its thread listed `error`, whatever else failed with it: the graph's
 *    state is read for the title and preview, and a state that cannot be read (a checkpointer
 *    that failed the run fails there too) still gets the record its `error` status.
 * 7. A run that names a checkpoint to start from checks it again once the runs ahead of it have
 *    ended (one of them may have deleted it under `keep: "latest"`): missing, the run ends in an
 *    `error` event naming it, before the graph is called and with the thread unchanged.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { KeyedSerialQueue } from "../threads/serial-queue";
import { executeRun } from "./execute";
import type { RunnableGraph, StateSnapshotLike } from "./graphs";
import { HttpProblem } from "./http";
import type { RunCreate } from "./requests";
import { requireStartCheckpoint } from "./run-admission";
import { RunRecord, type RunRegistry, type RunStatus } from "./runs";
import type { StoredThread } from "./thread-records";
import { afterRun, type ThreadView, withoutConversationText } from "./thread-view";
import type { WriteGuard } from "./write-guard";

/** The thread list calls the lifecycle makes (`ThreadRecords`, or a fake in tests). */
export interface ThreadRecordStore {
  get(owner: string, threadId: string): Promise<StoredThread | undefined>;
  save(stored: StoredThread, view: ThreadView): Promise<StoredThread>;
  delete(threadId: string): Promise<void>;
}

export interface LifecycleParts {
  records: ThreadRecordStore;
  runs: RunRegistry;
  guard: Pick<WriteGuard, "forbid" | "allow" | "forbidden" | "settled">;
  /**
   * True when the users' data is encrypted (`keyRing`): the thread record, kept in plaintext,
   * then holds no words of the conversation (no title from it, no preview).
   */
  sealed?: boolean | undefined;
  /** Deletes the thread's checkpoints (the owner's checkpointer). */
  deleteCheckpoints(threadId: string, owner: string): Promise<void>;
}

export interface RunRequest {
  owner: string;
  threadId: string;
  graph: RunnableGraph;
  body: RunCreate;
  /** The caller's user id for the graph's config, when the server has `auth`. */
  userId?: string | undefined;
  /** The graph's checkpointer: a run naming a checkpoint checks it is still there (rule 7). */
  checkpointer?: BaseCheckpointSaver | undefined;
  /** Told of an error the caller cannot see (the final save failing). */
  report(error: unknown): void;
  /** Streams the run in place of the v1 stream (protocol v2, `v2/run-stream.ts`). */
  execute?: ((run: RunRecord) => Promise<RunStatus>) | undefined;
}

/** What a run names when its thread record could not be updated or its state read back. */
const SAVE_FAILED = JSON.stringify({
  error: "ThreadSaveError",
  message:
    "The run ended but the thread was not saved. Try again; if it keeps failing, contact " +
    "the site's owner.",
  code: "thread_save_failed",
});

export class RunLifecycle {
  readonly #parts: LifecycleParts;
  readonly #records = new KeyedSerialQueue();

  constructor(parts: LifecycleParts) {
    this.#parts = parts;
  }

  /** True while a run of the thread is live in this process. */
  isBusy(threadId: string): boolean {
    return this.#parts.runs.isBusy(threadId);
  }

  /**
   * Admits a run and starts driving it; returns its record at once (pending while it waits).
   * Throws a 409 `HttpProblem` for a thread being deleted, or busy under "reject".
   */
  submit(request: RunRequest): RunRecord {
    const { runs, guard } = this.#parts;
    const { threadId, body } = request;
    if (guard.forbidden(threadId)) {
      throw new HttpProblem(
        409,
        "Conflict",
        `Thread ${threadId} is being deleted; start a new one`,
      );
    }
    const strategy = body.multitask_strategy ?? "reject";
    const ahead = runs.live(threadId);
    const last = ahead.at(-1);
    if (last && strategy === "reject") {
      throw new HttpProblem(
        409,
        "Conflict",
        `Thread ${threadId} is busy with run ${last.run_id}; wait, cancel it, or send ` +
          `multitask_strategy "interrupt" or "enqueue"`,
      );
    }
    if (strategy === "interrupt" || strategy === "rollback") {
      for (const run of ahead) run.controller.abort();
    }
    const run = new RunRecord({
      threadId,
      assistantId: body.assistant_id,
      metadata: body.metadata ?? {},
      multitaskStrategy: strategy,
      resumable: body.stream_resumable === true,
      pending: last !== undefined,
    });
    runs.start(run);
    void this.#drive(run, last?.done, request);
    return run;
  }

  /**
   * Reads the owner's thread record, changes it and saves it, after every earlier change of the
   * same thread in this process. A thread that is gone is a 404.
   */
  update(
    owner: string,
    threadId: string,
    change: (view: ThreadView) => ThreadView,
  ): Promise<StoredThread> {
    const { records } = this.#parts;
    return this.#records.run(threadId, async () => {
      const stored = await records.get(owner, threadId);
      if (!stored) throw new HttpProblem(404, "Not Found", `Thread ${threadId} not found`);
      return records.save(stored, change(stored.view));
    });
  }

  /**
   * Deletes the thread: refuses its new runs, cancels its live ones, waits for them and for its
   * checkpoint writes under way, then deletes its checkpoints and its record. On failure the
   * thread takes runs again.
   */
  async delete(threadId: string, owner = ""): Promise<void> {
    const { runs, guard, records, deleteCheckpoints } = this.#parts;
    guard.forbid(threadId);
    const live = runs.live(threadId);
    for (const run of live) run.controller.abort();
    runs.dropThread(threadId);
    try {
      await Promise.all(live.map((run) => run.done));
      await guard.settled(threadId);
      await deleteCheckpoints(threadId, owner);
      await this.#records.run(threadId, () => records.delete(threadId));
    } catch (error) {
      guard.allow(threadId);
      throw error;
    }
  }

  /** The one task that drives a run from admission to its end (rules 1, 4 and 5). */
  async #drive(run: RunRecord, ahead: Promise<void> | undefined, request: RunRequest) {
    let status: RunStatus = "interrupted";
    try {
      // `done` never rejects, so the chain cannot break.
      await ahead;
      if (run.controller.signal.aborted || this.#parts.guard.forbidden(run.thread_id)) return;
      run.begin();
      if (!(await this.#startsFromReadable(run, request))) {
        status = "error";
        return;
      }
      status = await (
        request.execute?.(run) ??
        executeRun(request.graph, run, request.body, request.userId, request.report)
      ).catch((error: unknown) => {
        request.report(error);
        return "error" as const;
      });
      if (this.#parts.guard.forbidden(run.thread_id)) return;
      status = await this.#save(run, status, request);
    } catch (error) {
      request.report(error);
      status = "error";
    } finally {
      run.end(status);
    }
  }

  /** Rule 7: false (after an `error` event naming it) when the named checkpoint is gone. */
  async #startsFromReadable(run: RunRecord, request: RunRequest): Promise<boolean> {
    if (!request.checkpointer) return true;
    try {
      await requireStartCheckpoint(request.checkpointer, run.thread_id, request.body);
      return true;
    } catch (error) {
      if (!(error instanceof HttpProblem)) throw error;
      run.push(
        "error",
        JSON.stringify({ error: "RunError", message: error.message, code: "checkpoint_not_found" }),
      );
      return false;
    }
  }

  /** The thread record after the run: its final state, its graph, its status (rules 5, 6). */
  async #save(run: RunRecord, status: RunStatus, request: RunRequest): Promise<RunStatus> {
    const { graph, body, owner } = request;
    // The state is read before the record is queued for its change, so a PATCH is not held
    // back by the graph's read.
    let state: StateSnapshotLike | undefined;
    try {
      state = await graph.getState({ configurable: { thread_id: run.thread_id } });
    } catch (error) {
      request.report(error);
    }
    const failed = status === "error" || state === undefined;
    try {
      const kept = this.#parts.sealed ? withoutConversationText : (view: ThreadView) => view;
      await this.update(owner, run.thread_id, (latest) =>
        kept(
          afterRun(
            {
              ...latest,
              metadata: {
                ...latest.metadata,
                graph_id: body.assistant_id,
                assistant_id: body.assistant_id,
              },
            },
            // Unread, the state adds nothing: the title and preview stay as they were.
            state ?? { values: undefined, tasks: [] },
            failed ? "error" : "success",
            new Date(),
          ),
        ),
      );
    } catch (error) {
      request.report(error);
      if (status !== "success") return status;
      run.push("error", SAVE_FAILED);
      return "error";
    }
    if (status !== "success" || state !== undefined) return status;
    run.push("error", SAVE_FAILED);
    return "error";
  }
}
