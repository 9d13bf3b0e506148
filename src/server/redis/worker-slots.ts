/**
 * An instance's worker slots (`maxBackgroundRuns`): how many runs with no client stream here it
 * runs at once (its own background runs, and every run it claims from the ready queue or takes
 * over). A slot is taken before Redis is asked for a run, so two asks at once cannot both fill
 * the last one; it is then held by the run Redis gave until that run ends here.
 */
export class WorkerSlots {
  readonly #max: number;
  readonly #held = new Set<string>();
  #asking = 0;

  constructor(max: number) {
    this.#max = max;
  }

  /** Slots neither held nor asked with. */
  get free(): number {
    return this.#max - this.#held.size - this.#asking;
  }

  /** Takes a slot for one ask; false (nothing taken) when none is free. */
  ask(): boolean {
    if (this.free <= 0) return false;
    this.#asking++;
    return true;
  }

  /** The ask got run `runId`: its slot is held until `release(runId)`. */
  got(runId: string): void {
    this.#asking = Math.max(0, this.#asking - 1);
    this.#held.add(runId);
  }

  /** The ask got nothing: its slot is free again. */
  none(): void {
    this.#asking = Math.max(0, this.#asking - 1);
  }

  /** The run ended here or went elsewhere; true when it held a slot (now free). */
  release(runId: string): boolean {
    return this.#held.delete(runId);
  }
}
