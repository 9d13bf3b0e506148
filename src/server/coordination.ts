/**
 * What the run lifecycle asks of a coordination backend when several instances serve the same
 * threads (`coordination` option; `langchain-studio/server/redis` builds one on Redis). Without
 * one, runs are coordinated in this process alone (`run-lifecycle.ts` rules 1-9).
 *
 * With one, the backend holds, for every instance: each thread's live runs in admission order
 * (the head runs, under a lease with a heartbeat and a fencing token), each run's status and its
 * events (so any instance answers a get, a list, a join, a cancel), and the hand-off of a run
 * whose instance died or drained. The instance that admits a run executes it when its turn
 * comes; another instance takes it over only when that one is gone. A background run (no client
 * stream on its admitting instance) may be started at its turn by any instance with a free
 * worker slot (the Redis backend's ready queue, `redis/ready-queue.ts`).
 */
import type { RunCreate } from "./requests";
import type { RunEvent, RunRecord, RunStatus } from "./runs";
import type { SharedProtocolLogs } from "./v2/protocol-log";

/** What any instance needs to show a run, and to take it over: stored with the run. */
export interface SharedRun {
  run: Record<string, unknown>;
  owner: string;
  userId?: string | undefined;
  body: RunCreate;
  /** No client streams it from its admitting instance: any instance may start it at its turn. */
  background?: boolean | undefined;
  /** A stateless run's own thread: deleted when the run ends, wherever it ends. */
  temporary?: boolean | undefined;
  /**
   * The root checkpoints the run wrote, as its instance heard of them: a takeover resumes from
   * the thread's latest checkpoint (input `null`) only when it is one of these (a checkpoint
   * heard of may not have been stored yet, under LangGraph's default async durability).
   */
  checkpoints: string[];
  /**
   * When the run first started (took its thread's lease), by its instance's clock: a checkpoint
   * of the thread written since is the run's own (no other run writes while it holds the lease).
   */
  startedAt?: string | undefined;
  /** The next event's number (a takeover goes on numbering from there). */
  nextSeq: number;
  /** "v2" for a protocol v2 run (a takeover streams it into the thread's v2 events). */
  protocol?: "v2" | undefined;
}

/** A run as the routes read it, whichever instance runs it. */
export interface RunHandle {
  readonly run_id: string;
  readonly thread_id: string;
  readonly assistant_id: string;
  readonly status: RunStatus;
  readonly resumable: boolean;
  readonly ended: boolean;
  readonly eventsDropped: boolean;
  readonly lastValues: string | undefined;
  readonly errorData: string | undefined;
  readonly done: Promise<void>;
  cancel(): void;
  follow(lastEventId?: string): AsyncGenerator<RunEvent>;
  afterCheckpoint(checkpointId: string): string | undefined;
  toJSON(): Record<string, unknown>;
}

export type Turn = { fence: number } | { cancelled: true } | { elsewhere: true };

/** What the lifecycle lets the backend do in this instance. */
export interface CoordinationHooks {
  /** Cancels a run of this instance (a cancel or an interrupt sent to another instance). */
  cancelLocal(runId: string): void;
  /**
   * Runs `shared` here, its lease already held: a run whose instance died or drained. Undefined
   * when this instance cannot (draining, or the run's graph is unknown here).
   */
  takeOver(shared: SharedRun, fence: number): Promise<RunRecord | undefined>;
  /** Told of a backend failure nobody else sees (a heartbeat or an event that was not stored). */
  report(error: unknown): void;
}

export interface RunCoordination {
  /** Called once by `createAgentServer`. */
  attach(hooks: CoordinationHooks): void;
  /**
   * Admits `run` on its thread, atomically across instances: for "reject" a 409 when the thread
   * has a live run; for "interrupt"/"rollback" the live runs are cancelled wherever they run;
   * "enqueue" waits in line. A 503 when the backend cannot be reached. Resolves with whether
   * runs are ahead of this one.
   */
  admit(run: RunRecord, shared: SharedRun): Promise<{ ahead: boolean }>;
  /**
   * Resolves once the run is the head of its thread and holds the lease (renewed until `end`),
   * with its fencing token; or when it was cancelled first; or when another instance took it
   * over (this one was too slow to start it: it goes on there).
   */
  turn(run: RunRecord): Promise<Turn>;
  /** True once the run's lease was lost to another instance: it goes on there. */
  lost(runId: string): boolean;
  /** A run of this instance sent `event`; `checkpoint` names a root checkpoint it wrote. */
  event(run: RunRecord, event: RunEvent): void;
  checkpoint(run: RunRecord, checkpointId: string): void;
  /**
   * The run ended here with `status` (or was handed off, `handedOff`): its lease released, its
   * record and final values stored, the next run of the thread woken.
   */
  end(run: RunRecord, options: { handedOff?: boolean }): Promise<void>;
  /** A run of any instance, by id; undefined when no instance knows it. */
  find(threadId: string, runId: string): Promise<RunHandle | undefined>;
  /**
   * The thread's runs, newest first (the last ones kept); the newest `most` of them when no
   * `status` is asked for (a page of the list reads no more records than it shows).
   */
  list(threadId: string, status?: string, most?: number): Promise<RunHandle[]>;
  /** Forgets an ended run; false when it is still live. */
  forget(threadId: string, runId: string): Promise<boolean>;
  /** Cancels every live run of the thread, wherever it runs (a DELETE). */
  cancelThread(threadId: string): Promise<void>;
  /** Which of these threads have a live run on some instance. */
  busy(threadIds: readonly string[]): Promise<Set<string>>;
  /** The run's events after `lastEventId`, then those to come, from any instance. */
  follow(runId: string, lastEventId?: string): AsyncGenerator<RunEvent>;
  /**
   * The threads' protocol v2 events, kept where every instance reads them; without it a
   * thread's v2 events stay in the process that ran it.
   */
  protocolLogs?(): SharedProtocolLogs;
  /**
   * Stops taking runs over from other instances and claiming background runs (this one is
   * draining).
   */
  stopTakingOver(): void;
  /** Disconnects. */
  close(): Promise<void>;
}

export function isRunCoordination(value: unknown): value is RunCoordination {
  if (typeof value !== "object" || value === null) return false;
  const methods = ["attach", "admit", "turn", "event", "end", "find", "list", "follow", "close"];
  return methods.every((name) => typeof (value as Record<string, unknown>)[name] === "function");
}
