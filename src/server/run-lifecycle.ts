/**
 * The life of a thread's runs and of its record in this process: admit, wait for the runs ahead,
 * execute, save the thread record, end; and deleting a thread. The rules below hold because of how
 * this module is built, not because of the order of some statements:
 *
 * 1. One run at a time per thread. A run is admitted synchronously (`submit` has no await) and
 *    waits for the `turn` of the live run admitted before it (that run's end, after the `turn` of
 *    the one before it), so the thread's runs form one chain even when a pending run in the
 *    middle is cancelled and ends at once. `multitask_strategy` "reject" refuses a run while any
 *    run of the thread is live; "interrupt" and "rollback" cancel every live run ahead of it;
 *    "enqueue" waits in line. A run with `after_seconds` starts no earlier than that after its
 *    admission, and the runs behind it wait for it.
 * 2. A thread being deleted refuses new runs with 409 (a thread already gone is a 404 from the
 *    route's lookup; one deleted after the route read it is a 409 too, remembered by the write
 *    guard). Its runs are cancelled: a run still waiting never calls the graph and ends
 *    "interrupted" at once.
 * 3. A thread record's read-modify-write (a PATCH, a run's final save, the delete) runs after the
 *    previous one on the same thread has finished, so every acknowledged PATCH is kept and a run's
 *    `graph_id` survives a PATCH racing its end. This holds in this process only. Across processes
 *    each save writes a whole record and the newest `updated_at` wins on read: two processes
 *    patching one thread at once keep one of the two patches. A delete in one process does not
 *    cancel another process's run, but that run cannot bring the thread back: its checkpointer
 *    refuses to recreate a deleted conversation (`StudioThreadDeletedError`), its record is not
 *    saved, and it ends in an error event with the code `thread_deleted`.
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
 * 8. A run's owner check costs no call for a thread this process knows (its owner never
 *    changes), so a thread another process deleted may still run here; its record is then gone
 *    when the run saves, and the checkpoints the run wrote are deleted with it.
 * 10. With a coordination backend (`coordination.ts`), rules 1 and 2 hold across instances: a
 *    run is admitted by the backend (atomically, in its order), waits until it is its thread's
 *    head and holds the thread's lease, and ends by releasing it; a cancel, an interrupt and a
 *    DELETE reach the thread's runs wherever they run. A run whose instance dies is taken over by
 *    another (`takeOver`) from its last checkpoint, or from its input when it stored none. A
 *    background run (`background`) may be started at its turn by any instance with a free worker
 *    slot, through the same `takeOver`; a run streamed to its client starts where it was admitted.
 * 11. `drain()` refuses new runs (503), stops the running graphs at their next superstep
 *    boundary with their checkpoint saved, and hands them (and the runs waiting here) to another
 *    instance; a reader of one of them here goes on reading it from the backend. Without a
 *    backend there is no other instance: `drain()` waits for the runs to end.
 * 9. A stateless run (`POST /runs/...`) runs on a thread of its own that, unless it asked
 *    `on_completion: "keep"`, is deleted when the run ends and before its `done`: a `wait` that
 *    answers finds the thread gone, never half deleted (one cancelled while it waits ends at once,
 *    and its thread goes right after). Nothing else knows the thread, so no other run waits on
 *    it.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { KeyedSerialQueue } from "../threads/serial-queue";
import type { RunCoordination, SharedRun } from "./coordination";
import { executeRun } from "./execute";
import type { RunnableGraph, StateSnapshotLike } from "./graphs";
import { HttpProblem } from "./http";
import type { RunCreate } from "./requests";
import { requireStartCheckpoint } from "./run-admission";
import { THREAD_DELETED } from "./run-errors";
import { RunRecord, type RunRegistry, type RunStatus } from "./runs";
import type { StoredThread } from "./thread-records";
import { afterRun, type ThreadView, withoutConversationText } from "./thread-view";
import { withinTime } from "./timers";
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
  /** Told of a failure no request sees (the coordination backend's). */
  report?: ((error: unknown) => void) | undefined;
  /** Runs shared with other instances (rule 10); none: runs are this process's alone. */
  coordination?: RunCoordination | undefined;
  /**
   * The run request of a run taken over from another instance (its graph as its owner runs it);
   * undefined when this server has no such graph.
   */
  requestFor?: ((shared: SharedRun) => Promise<RunRequest | undefined>) | undefined;
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
  /** A stateless run's thread: deleted when the run ends, before its `done` (rule 8). */
  temporary?: boolean | undefined;
  /**
   * No client streams the run from here (a background run, a `wait`): with a backend, any
   * instance with a free worker slot may start it at its turn (rule 10).
   */
  background?: boolean | undefined;
  /**
   * Streams the run in place of the v1 stream (protocol v2, `v2/run-stream.ts`), with the body
   * it runs (a run taken over goes on from its checkpoint: input `null`).
   */
  execute?: ((run: RunRecord, body: RunCreate) => Promise<RunStatus>) | undefined;
  /**
   * Told how the run ended, once its thread record is saved and before its end is shared (a v2
   * run's last event; its thread's next run, on any instance, numbers after it). Not told for
   * a run handed to another instance.
   */
  ending?: ((run: RunRecord, status: RunStatus) => Promise<void>) | undefined;
  /** "v2" for a protocol v2 run: what an instance taking it over needs to stream it. */
  protocol?: "v2" | undefined;
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
  #draining = false;

  constructor(parts: LifecycleParts) {
    this.#parts = parts;
    parts.coordination?.attach({
      cancelLocal: (runId) => parts.runs.byId(runId)?.cancel(),
      takeOver: (shared) => this.#takeOver(shared),
      report: (error) => parts.report?.(error),
    });
  }

  /**
   * Admits a run (`submit`), across instances when the server has a coordination backend (rule
   * 10): then a 409 under "reject" comes from whichever instance runs the thread, and a 503 when
   * the backend cannot be reached or this instance drains.
   */
  async admit(request: RunRequest): Promise<RunRecord> {
    const shared = this.#parts.coordination;
    if (this.#draining) throw drainingProblem();
    if (!shared) return this.submit(request);
    const { runs, guard } = this.#parts;
    const { threadId, body } = request;
    refuseIfDeleting(guard, threadId);
    const delayMs = (body.after_seconds ?? 0) * 1000;
    const run = newRun(request, body.multitask_strategy ?? "reject", true);
    const { ahead } = await shared.admit(run, sharedRun(request));
    // A background run may wait for a free worker slot on some instance: pending until it starts.
    if (!ahead && delayMs === 0 && !request.background) run.begin();
    this.#share(run);
    runs.start(run);
    void this.#driveShared(run, request, delayMs);
    return run;
  }

  /**
   * Rule 11: stops taking runs and hands this instance's runs to another (with a backend), or
   * waits for them to end (without one). Resolves once none is left here.
   */
  async drain(): Promise<void> {
    this.#draining = true;
    const shared = this.#parts.coordination;
    if (!shared) {
      await Promise.all(this.#parts.runs.allLive().map((run) => run.done));
      return;
    }
    shared.stopTakingOver();
    const live = this.#parts.runs.allLive();
    for (const run of live) run.draining.abort();
    await Promise.all(live.map((run) => run.done));
  }

  /** Stops the backend (after `drain`). */
  async close(): Promise<void> {
    await this.#parts.coordination?.close();
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
    refuseIfDeleting(guard, threadId);
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
      for (const run of ahead) run.cancel();
    }
    const delayMs = (body.after_seconds ?? 0) * 1000;
    const run = newRun(request, strategy, last !== undefined || delayMs > 0);
    const aheadTurn = last?.turn;
    run.turn = Promise.all([aheadTurn, run.done]).then(() => {});
    runs.start(run);
    void this.#drive(run, aheadTurn, request, delayMs);
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

  /** The thread record after its state was written outside a run (`POST /threads/:id/state`). */
  recordState(owner: string, threadId: string, state: StateSnapshotLike): Promise<StoredThread> {
    const kept = this.#parts.sealed ? withoutConversationText : (view: ThreadView) => view;
    return this.update(owner, threadId, (latest) =>
      kept(afterRun(latest, state, "success", new Date())),
    );
  }

  /**
   * Deletes the thread: refuses its new runs, cancels its live ones, waits for them and for its
   * checkpoint writes under way, then deletes its checkpoints and its record. On failure the
   * thread takes runs again.
   */
  async delete(threadId: string, owner = ""): Promise<void> {
    const { runs, guard, records, deleteCheckpoints, coordination } = this.#parts;
    guard.forbid(threadId);
    const live = runs.live(threadId);
    for (const run of live) run.cancel();
    runs.dropThread(threadId);
    try {
      // Runs of the thread on other instances: cancelled there (rule 10); their checkpointer
      // refuses to recreate the thread after this delete (rule 3).
      await coordination?.cancelThread(threadId);
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
  async #drive(
    run: RunRecord,
    ahead: Promise<void> | undefined,
    request: RunRequest,
    delayMs: number,
  ) {
    let status: RunStatus = "interrupted";
    const admitted = Date.now();
    try {
      // `turn` never rejects, so the chain cannot break.
      await ahead;
      await untilOrAborted(admitted + delayMs - Date.now(), run.controller.signal);
      status = (await this.#runAndSave(run, request)) ?? status;
    } catch (error) {
      request.report(error);
      status = "error";
    } finally {
      // On every path, a run cancelled before it started too: the thread was made for it.
      if (request.temporary) await this.#discard(run, request);
      await ended(request, run, status);
      run.end(status);
    }
  }

  /**
   * Runs the graph, then saves the thread record (rules 2, 5 to 7): how the run ended
   * ("interrupted" when it was cancelled, or its thread is being deleted, before it started), or
   * undefined when it goes on in another instance (`elsewhere`, rule 11).
   */
  async #runAndSave(
    run: RunRecord,
    request: RunRequest,
    elsewhere = () => false,
  ): Promise<RunStatus | undefined> {
    const { guard } = this.#parts;
    if (run.controller.signal.aborted || guard.forbidden(run.thread_id)) return "interrupted";
    const ran = await this.#start(run, request);
    if (ran === undefined) return "error";
    if (elsewhere()) return undefined;
    if (guard.forbidden(run.thread_id) || request.temporary) return ran;
    return this.#save(run, ran, request);
  }

  /**
   * Runs the graph (rule 7 first): how it ended, or undefined when it did not start because the
   * checkpoint it names is gone (an `error` event says so).
   */
  async #start(run: RunRecord, request: RunRequest): Promise<RunStatus | undefined> {
    run.begin();
    // A run cancelled ahead of this one ended before LangGraph's checkpoint write under way
    // landed: read the thread after it, or this run starts from the checkpoint before it.
    await this.#parts.guard.settled(run.thread_id);
    if (!(await this.#startsFromReadable(run, request))) return undefined;
    return (
      request.execute?.(run, request.body) ??
      executeRun(request.graph, run, request.body, request.userId, request.report)
    ).catch((error: unknown) => {
      request.report(error);
      return "error" as const;
    });
  }

  /** Shares the run's events and checkpoints through the backend (rule 10). */
  #share(run: RunRecord): void {
    const shared = this.#parts.coordination;
    if (!shared) return;
    run.onEvent = (event) => shared.event(run, event);
    run.onCheckpoint = (id) => shared.checkpoint(run, id);
  }

  /**
   * The task that drives a run shared with other instances (rule 10): as `#drive`, but its turn
   * comes from the backend, and a run drained (rule 11), lost to another instance or taken by
   * one before it started is handed off rather than ended.
   */
  async #driveShared(run: RunRecord, request: RunRequest, delayMs: number, leased = false) {
    const shared = this.#parts.coordination!;
    let status: RunStatus = "interrupted";
    let handedOff = false;
    try {
      await untilOrAborted(delayMs, run.controller.signal);
      if (!leased) {
        const turn = await shared.turn(run);
        if ("elsewhere" in turn) {
          handedOff = true;
          return;
        }
        if ("cancelled" in turn) return;
      }
      const ran = await this.#runAndSave(
        run,
        request,
        () => run.drained || shared.lost(run.run_id),
      );
      if (ran === undefined) handedOff = true;
      else status = ran;
    } catch (error) {
      request.report(error);
      status = "error";
    } finally {
      if (request.temporary && !handedOff) await this.#discard(run, request);
      // The backend hears of the end before the run's readers do: a client that sends its next
      // message as soon as the stream ends, to any instance, finds the thread free. A backend
      // that does not answer in time (Redis down) does not hold the end back.
      if (!handedOff) {
        run.status = status;
        run.updated_at = new Date().toISOString();
        await ended(request, run, status);
      }
      await withinTime(
        shared.end(run, { handedOff }),
        SHARED_END_WAIT_MS,
        "the coordination backend storing the run's end",
      ).catch(request.report);
      if (handedOff) run.handOff();
      else run.end(status);
    }
  }

  /** Runs here a run whose instance died or drained (rule 10), its lease already taken. */
  async #takeOver(shared: SharedRun): Promise<RunRecord | undefined> {
    if (this.#draining) return undefined;
    const request = await this.#parts.requestFor?.(shared);
    if (!request) return undefined;
    const stored = shared.run;
    const run = new RunRecord({
      threadId: request.threadId,
      assistantId: request.body.assistant_id,
      metadata: request.body.metadata ?? {},
      multitaskStrategy: String(stored.multitask_strategy ?? "enqueue"),
      resumable: request.body.stream_resumable === true,
      kwargs: { input: request.body.input ?? null, command: request.body.command ?? null },
      runId: String(stored.run_id),
      createdAt: typeof stored.created_at === "string" ? stored.created_at : undefined,
      firstSeq: shared.nextSeq,
    });
    // Past its first stored checkpoint the run goes on from the last one (LangGraph resumes a
    // thread given no input); before it, nothing of it was stored, so it starts from its input.
    const body = (await resumesFromOwnCheckpoint(request, shared))
      ? { ...request.body, input: null, command: undefined, checkpoint_id: undefined }
      : request.body;
    this.#share(run);
    this.#parts.runs.start(run);
    void this.#driveShared(run, { ...request, body }, 0, true);
    return run;
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

  /**
   * Rule 8: a stateless run's thread goes with it: its later writes are dropped, those under way
   * awaited, then its checkpoints and record deleted. Never throws: a failure leaves the thread
   * behind and is reported; the run's own status stands (its answer was given).
   */
  async #discard(run: RunRecord, request: RunRequest): Promise<void> {
    const { guard, records, deleteCheckpoints } = this.#parts;
    const threadId = run.thread_id;
    guard.forbid(threadId);
    try {
      await guard.settled(threadId);
      await deleteCheckpoints(threadId, request.owner);
      await this.#records.run(threadId, () => records.delete(threadId));
    } catch (error) {
      guard.allow(threadId);
      request.report(error);
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
      // Deleted by another process during the run: nothing to save, and no failure to report.
      // The checkpoints the run wrote (a run that started here after the delete, rule 8) would
      // outlive the thread, so they go too.
      const deleted = error instanceof HttpProblem && error.status === 404;
      if (deleted) {
        await this.#parts.deleteCheckpoints(run.thread_id, owner).catch(request.report);
      } else {
        request.report(error);
      }
      if (status !== "success") return status;
      run.push("error", deleted ? JSON.stringify(THREAD_DELETED) : SAVE_FAILED);
      return "error";
    }
    if (status !== "success" || state !== undefined) return status;
    run.push("error", SAVE_FAILED);
    return "error";
  }
}

/** A new run record for `request` (pending: it waits for runs ahead, or for its delay). */
function newRun(request: RunRequest, strategy: string, pending: boolean): RunRecord {
  const { body } = request;
  return new RunRecord({
    threadId: request.threadId,
    assistantId: body.assistant_id,
    metadata: body.metadata ?? {},
    multitaskStrategy: strategy,
    resumable: body.stream_resumable === true,
    pending,
    kwargs: { input: body.input ?? null, command: body.command ?? null },
  });
}

/** What the backend keeps of a run so that another instance can show it and take it over. */
function sharedRun(request: RunRequest): SharedRun {
  return {
    run: {},
    owner: request.owner,
    userId: request.userId,
    body: request.body,
    background: request.background,
    temporary: request.temporary,
    checkpoints: [],
    nextSeq: 0,
    ...(request.protocol ? { protocol: request.protocol } : {}),
  };
}

/** Tells the request how its run ended (`RunRequest#ending`); a failure there is reported. */
async function ended(request: RunRequest, run: RunRecord, status: RunStatus): Promise<void> {
  if (!request.ending) return;
  await withinTime(request.ending(run, status), SHARED_END_WAIT_MS, "the run's last event").catch(
    request.report,
  );
}

/**
 * True when the thread's latest stored checkpoint is one the run wrote: one its instance told the
 * backend of, or one written since the run started (its instance may have died before telling).
 */
async function resumesFromOwnCheckpoint(request: RunRequest, shared: SharedRun): Promise<boolean> {
  if (!request.checkpointer) return false;
  const latest = await request.checkpointer.getTuple({
    configurable: { thread_id: request.threadId, checkpoint_ns: "" },
  });
  if (!latest) return false;
  const id = latest.config.configurable?.checkpoint_id;
  if (typeof id === "string" && shared.checkpoints.includes(id)) return true;
  const started = shared.startedAt === undefined ? Number.NaN : Date.parse(shared.startedAt);
  return Date.parse(latest.checkpoint.ts) >= started;
}

/** Rule 2: a thread being deleted takes no new run. */
function refuseIfDeleting(guard: LifecycleParts["guard"], threadId: string): void {
  if (!guard.forbidden(threadId)) return;
  throw new HttpProblem(409, "Conflict", `Thread ${threadId} is being deleted; start a new one`);
}

function drainingProblem(): HttpProblem {
  return new HttpProblem(
    503,
    "Service Unavailable",
    "This server is shutting down and takes no new runs; send the run again (another instance " +
      "takes it)",
  );
}

/** How long a run's end waits for the backend to store it before the run ends here anyway. */
const SHARED_END_WAIT_MS = 3_000;

/** Resolves after `ms` (at once for none), or as soon as `signal` aborts. */
function untilOrAborted(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
