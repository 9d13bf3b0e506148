/**
 * Runs in this process: the active run of each thread (for `multitask_strategy` and cancel), and
 * each run's events, kept while it runs so a client that reconnects (`Last-Event-ID`) or joins
 * (`GET .../runs/:run_id/stream`) gets what it missed. A finished run keeps its events only when
 * it was started with `stream_resumable`, within a byte budget shared by all finished runs; the
 * last 500 ended runs are remembered for `GET .../runs/:run_id` (a run still going is never
 * forgotten), each with its last `values` for a later join or wait, counted in the same budget.
 * When each run starts and ends is the run lifecycle's (`run-lifecycle.ts`).
 * Nothing here crosses processes: another process sees the thread's
 * status in the service, not these runs.
 */

export type RunStatus = "pending" | "running" | "success" | "error" | "interrupted";

export interface RunEvent {
  id: string;
  event: string;
  /** JSON text. */
  data: string;
}

/** Runs remembered after they end (for `GET .../runs/:run_id` and resumable joins). */
const FINISHED_RUNS_KEPT = 500;

/**
 * The most event text all finished resumable runs keep together (64 MiB). 500 runs of a few
 * large answers would otherwise hold gigabytes; past this the oldest finished runs' events go
 * first (the run is still listed, its join is a 404). A run still going keeps all its events.
 */
const FINISHED_EVENT_BYTES = 64 * 1024 * 1024;

export class RunRecord {
  readonly run_id: string;
  readonly thread_id: string;
  readonly assistant_id: string;
  readonly created_at: string;
  updated_at: string;
  status: RunStatus = "running";
  readonly metadata: Record<string, unknown>;
  readonly multitask_strategy: string;
  readonly resumable: boolean;
  readonly controller = new AbortController();
  /**
   * Aborted when the server drains: a running graph stops at its next superstep boundary (its
   * checkpoint saved) and a run not started yet stops waiting, both to go on in another instance.
   */
  readonly draining = new AbortController();
  /** True once the graph stopped for a drain (LangGraph's `GraphDrained`), not at its end. */
  drained = false;
  /**
   * Resolves when this run and every run of its thread admitted before it have ended: what the
   * next run waits for (rule 1 of `run-lifecycle.ts`). Not `done`: a pending run cancelled ends at
   * once, while the runs ahead of it may still be going.
   */
  turn: Promise<void>;
  /** What the run was asked to do, while it has not ended (a queue shows a pending run's input). */
  #kwargs: Record<string, unknown>;
  /** The data of its last root `values` event, and of its `error` event (for wait and join). */
  #lastValues: string | undefined;
  #error: string | undefined;
  /** Root checkpoints the run wrote, each with the number of events before it. */
  readonly #checkpoints = new Map<string, number>();
  #events: RunEvent[] = [];
  #bytes = 0;
  #dropped = false;
  #ended = false;
  #handedOff = false;
  /** The number of the first event kept here (a run taken over goes on numbering). */
  readonly #firstSeq: number;
  /** Told of each event and root checkpoint (a coordination backend shares them). */
  onEvent: ((event: RunEvent) => void) | undefined;
  onCheckpoint: ((checkpointId: string) => void) | undefined;
  #wake: (() => void)[] = [];
  readonly #done: Promise<void>;
  #resolveDone!: () => void;

  constructor(init: {
    threadId: string;
    assistantId: string;
    metadata: Record<string, unknown>;
    multitaskStrategy: string;
    resumable: boolean;
    /** Waits for the thread's earlier runs before it starts (`begin`). */
    pending?: boolean;
    /** The request's `input` and `command`, listed while the run has not ended. */
    kwargs?: Record<string, unknown>;
    /** A run taken over from another instance: its id, creation time and next event number. */
    runId?: string;
    createdAt?: string;
    firstSeq?: number;
  }) {
    this.run_id = init.runId ?? crypto.randomUUID();
    this.thread_id = init.threadId;
    this.assistant_id = init.assistantId;
    this.created_at = init.createdAt ?? new Date().toISOString();
    this.#firstSeq = init.firstSeq ?? 0;
    this.updated_at = this.created_at;
    this.metadata = init.metadata;
    this.multitask_strategy = init.multitaskStrategy;
    this.resumable = init.resumable;
    if (init.pending) this.status = "pending";
    this.#kwargs = init.kwargs ?? {};
    this.#done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
    this.turn = this.#done;
  }

  /** The data of the run's last root `values` event, if it sent one. */
  get lastValues(): string | undefined {
    return this.#lastValues;
  }

  /** The data of the run's `error` event, if it failed. */
  get errorData(): string | undefined {
    return this.#error;
  }

  /** The run wrote this root checkpoint now: a join from it replays what comes after. */
  markCheckpoint(id: string): void {
    if (this.#ended) return;
    this.#checkpoints.set(id, this.#firstSeq + this.#events.length);
    this.onCheckpoint?.(id);
  }

  /**
   * The event id to resume after for a reader that already shows `checkpointId`: the events
   * from the checkpoint's write on (the `values` of that state may come again; none is
   * skipped). Undefined when the checkpoint is not one this run wrote: then the whole run.
   */
  afterCheckpoint(checkpointId: string): string | undefined {
    const at = this.#checkpoints.get(checkpointId);
    return at === undefined ? undefined : String(at - 1);
  }

  /**
   * Cancels the run. One still pending ends at once ("interrupted"), so a queue no longer lists
   * it; the runs behind it still wait for those ahead of it (`turn`).
   */
  cancel(): void {
    this.controller.abort();
    if (this.status === "pending") this.end("interrupted");
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** True when the run stopped here to go on in another instance (drain): not its end. */
  get handedOff(): boolean {
    return this.#handedOff;
  }

  /** The number of this run's first event kept here (0 but for a run taken over). */
  get firstSeq(): number {
    return this.#firstSeq;
  }

  /** The number the next event gets. */
  get nextSeq(): number {
    return this.#firstSeq + this.#events.length;
  }

  /** Ends the run here without ending it: another instance goes on with it. */
  handOff(): void {
    if (this.#ended) return;
    this.#handedOff = true;
    this.end(this.status);
  }

  /** Resolves when the run has ended (whatever its status). */
  get done(): Promise<void> {
    return this.#done;
  }

  /** Size of the buffered events (their text's length: a byte a character for ASCII JSON). */
  get eventBytes(): number {
    return this.#bytes;
  }

  /** True once the registry dropped this finished run's events to stay within its budget. */
  get eventsDropped(): boolean {
    return this.#dropped;
  }

  /** A pending run's turn came: it runs now. */
  begin(): void {
    if (this.#ended) return;
    this.status = "running";
    this.updated_at = new Date().toISOString();
  }

  push(event: string, data: string): void {
    if (this.#ended) return;
    if (event === "values") this.#lastValues = data;
    else if (event === "error") this.#error = data;
    const pushed = { id: String(this.#firstSeq + this.#events.length), event, data };
    this.#events.push(pushed);
    this.#bytes += event.length + data.length;
    this.onEvent?.(pushed);
    this.#notify();
  }

  end(status: RunStatus): void {
    if (this.#ended) return;
    this.status = status;
    this.updated_at = new Date().toISOString();
    this.#ended = true;
    this.#kwargs = {};
    this.#notify();
    this.#resolveDone();
  }

  /** Drops the buffered events but the last values (a finished run that is not resumable). */
  forget(): void {
    this.#events = [];
    // The last values stay for a join or wait that comes later, counted in the budget.
    this.#bytes = (this.#lastValues?.length ?? 0) + (this.#error?.length ?? 0);
    this.#checkpoints.clear();
  }

  /** Drops a finished run's events and values for the budget: a join is then a 404. */
  dropEvents(): void {
    this.forget();
    this.#lastValues = undefined;
    this.#error = undefined;
    this.#bytes = 0;
    this.#dropped = true;
  }

  /**
   * The run's events after `lastEventId` (all of them without one), then those to come. The list
   * is taken now, not on the first read, so `forget` never cuts short a reader already attached.
   */
  follow(lastEventId?: string): AsyncGenerator<RunEvent> {
    let next = lastEventId === undefined ? 0 : Number.parseInt(lastEventId, 10) + 1;
    if (!Number.isFinite(next) || next < 0) next = 0;
    return this.#read(this.#events, Math.max(0, next - this.#firstSeq));
  }

  async *#read(events: RunEvent[], from: number): AsyncGenerator<RunEvent> {
    let next = from;
    while (true) {
      while (next < events.length) {
        const event = events[next];
        next++;
        if (event) yield event;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => this.#wake.push(resolve));
    }
  }

  toJSON(): Record<string, unknown> {
    return {
      run_id: this.run_id,
      thread_id: this.thread_id,
      assistant_id: this.assistant_id,
      created_at: this.created_at,
      updated_at: this.updated_at,
      status: this.status,
      metadata: this.metadata,
      multitask_strategy: this.multitask_strategy,
      kwargs: this.#kwargs,
    };
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = [];
    for (const resolve of wake) resolve();
  }
}

export class RunRegistry {
  readonly #eventBudget: number;
  /** Each thread's runs that have not ended, in the order they were admitted. */
  readonly #live = new Map<string, Set<RunRecord>>();
  readonly #runs = new Map<string, RunRecord>();
  /** Ended runs, oldest end first: only these are forgotten beyond the cap. */
  readonly #finished = new Set<RunRecord>();
  /** Finished runs still holding events, oldest end first, and their total size. */
  readonly #holding = new Set<RunRecord>();
  #heldBytes = 0;

  constructor(options: { finishedEventBytes?: number } = {}) {
    this.#eventBudget = options.finishedEventBytes ?? FINISHED_EVENT_BYTES;
  }

  /** The thread's newest run that has not ended (running, or pending behind the others). */
  activeOn(threadId: string): RunRecord | undefined {
    let last: RunRecord | undefined;
    for (const run of this.#live.get(threadId) ?? []) last = run;
    return last;
  }

  get(threadId: string, runId: string): RunRecord | undefined {
    const run = this.#runs.get(runId);
    return run?.thread_id === threadId ? run : undefined;
  }

  /** Any run by its id alone (a stateless run's join names no thread). */
  byId(runId: string): RunRecord | undefined {
    return this.#runs.get(runId);
  }

  /**
   * The thread's runs this process remembers, newest first. A page that reloads before the run
   * id reached it (the POST's response still on its way) finds the run here and joins it.
   */
  list(threadId: string, status?: string): RunRecord[] {
    const found: RunRecord[] = [];
    for (const run of this.#runs.values()) {
      if (run.thread_id === threadId && (status === undefined || run.status === status))
        found.push(run);
    }
    return found.reverse();
  }

  /** The thread's runs that have not ended, oldest first. */
  live(threadId: string): RunRecord[] {
    return [...(this.#live.get(threadId) ?? [])];
  }

  /** Every run of this process that has not ended. */
  allLive(): RunRecord[] {
    return [...this.#live.values()].flatMap((runs) => [...runs]);
  }

  /** Threads with a run in this process (their status is "busy"). */
  isBusy(threadId: string): boolean {
    return this.#live.has(threadId);
  }

  /** Registers the thread's newest run (running, or pending behind the thread's live runs). */
  start(run: RunRecord): void {
    let live = this.#live.get(run.thread_id);
    if (!live) {
      live = new Set();
      this.#live.set(run.thread_id, live);
    }
    live.add(run);
    this.#runs.set(run.run_id, run);
    void run.done.then(() => {
      const still = this.#live.get(run.thread_id);
      still?.delete(run);
      if (still?.size === 0) this.#live.delete(run.thread_id);
      if (!run.resumable) run.forget();
      // A dropped thread's run is already forgotten; it must not come back here.
      if (this.#runs.get(run.run_id) !== run) return;
      this.#finished.add(run);
      // Only ended runs are forgotten: a run still going stays reachable (get, join, cancel)
      // however many other runs end meanwhile.
      for (const oldest of this.#finished) {
        if (this.#finished.size <= FINISHED_RUNS_KEPT) break;
        this.#remove(oldest);
      }
      if (run.eventBytes > 0) {
        this.#holding.add(run);
        this.#heldBytes += run.eventBytes;
      }
      for (const oldest of this.#holding) {
        if (this.#heldBytes <= this.#eventBudget) break;
        this.#release(oldest);
        oldest.dropEvents();
      }
    });
  }

  /** Forgets an ended run (`DELETE .../runs/:run_id`); false for one still going. */
  delete(run: RunRecord): boolean {
    if (!run.ended) return false;
    this.#remove(run);
    return true;
  }

  #remove(run: RunRecord): void {
    this.#finished.delete(run);
    this.#runs.delete(run.run_id);
    this.#release(run);
  }

  /** Stops counting a finished run's events (forgotten, or about to be dropped). */
  #release(run: RunRecord): void {
    if (this.#holding.delete(run)) this.#heldBytes -= run.eventBytes;
  }

  /** Forgets a deleted thread's runs, cancelling the live ones. */
  dropThread(threadId: string): void {
    for (const run of this.#live.get(threadId) ?? []) run.controller.abort();
    for (const [id, run] of this.#runs) {
      if (run.thread_id !== threadId) continue;
      this.#runs.delete(id);
      this.#finished.delete(run);
      this.#release(run);
    }
  }
}
