/**
 * Where the routes find runs: this process's (`runs.ts`) or, with a coordination backend, any
 * instance's (`coordination.ts`), as `RunHandle`s. A run that stopped here to go on in another
 * instance (a drain, a lost lease) is read on from the backend by whoever follows it here.
 */
import type { RunCoordination, RunHandle } from "./coordination";
import type { RunEvent, RunRecord, RunRegistry } from "./runs";

export class RunDirectory {
  readonly #runs: RunRegistry;
  readonly #shared: RunCoordination | undefined;

  constructor(runs: RunRegistry, shared?: RunCoordination) {
    this.#runs = runs;
    this.#shared = shared;
  }

  /** The thread's run `runId`, wherever it runs; undefined when no instance knows it. */
  async get(threadId: string, runId: string): Promise<RunHandle | undefined> {
    if (!this.#shared) return this.#runs.get(threadId, runId);
    return (await this.#shared.find(threadId, runId)) ?? this.#runs.get(threadId, runId);
  }

  /** The thread's runs, newest first (at least the newest `most`, when given). */
  async list(threadId: string, status?: string, most?: number): Promise<RunHandle[]> {
    if (!this.#shared) return this.#runs.list(threadId, status);
    return this.#shared.list(threadId, status, most);
  }

  /**
   * The run once it has ended, wherever it ended: one handed off from here (drained, or started
   * by another instance from the ready queue) is awaited through the backend.
   */
  async settled(run: RunHandle): Promise<RunHandle> {
    await run.done;
    if (!this.#shared || !(run as Partial<RunRecord>).handedOff) return run;
    const there = await this.#shared.find(run.thread_id, run.run_id);
    if (!there) return run;
    await there.done;
    return there;
  }

  /** Cancels the run wherever it runs now (one handed off from here, through the backend). */
  cancel(run: RunHandle): void {
    run.cancel();
    if (!this.#shared || !(run as Partial<RunRecord>).handedOff) return;
    void this.#shared
      .find(run.thread_id, run.run_id)
      .then((there) => there?.cancel())
      .catch(() => {});
  }

  /** Forgets an ended run; false for one still going. */
  async delete(run: RunHandle): Promise<boolean> {
    const local = this.#runs.get(run.thread_id, run.run_id);
    if (local && !this.#runs.delete(local)) return false;
    return this.#shared ? this.#shared.forget(run.thread_id, run.run_id) : true;
  }

  /** Which of the threads have a live run (on some instance, with a backend). */
  async busy(threadIds: readonly string[]): Promise<Set<string>> {
    const here = threadIds.filter((id) => this.#runs.isBusy(id));
    if (!this.#shared || threadIds.length === 0) return new Set(here);
    // The backend unreachable: the thread list still answers, "busy" as this process knows it.
    const there = await this.#shared.busy(threadIds).catch(() => new Set<string>());
    for (const id of here) there.add(id);
    return there;
  }

  /**
   * The run's events after `lastEventId`, then those to come; a run handed off from here
   * (`RunRecord#handOff`) is read on from the backend after its last event here.
   */
  async *follow(run: RunHandle, lastEventId?: string): AsyncGenerator<RunEvent> {
    let last = lastEventId;
    const events = run.follow(lastEventId);
    try {
      for await (const event of events) {
        last = event.id;
        yield event;
      }
    } finally {
      await events.return(undefined);
    }
    if (this.#shared && (run as Partial<RunRecord>).handedOff) {
      yield* this.#shared.follow(run.run_id, last);
    }
  }
}
