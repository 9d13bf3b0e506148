/**
 * Background writes with a cap: a recorder must never hold an unbounded backlog (a slow or dead
 * service would otherwise grow memory with every model call), so a write that finds the cap
 * reached is refused and its caller reports it.
 */
export class PendingWrites {
  readonly #running = new Set<Promise<void>>();

  constructor(readonly limit: number) {}

  get size(): number {
    return this.#running.size;
  }

  /**
   * Starts `write` in the background unless `limit` writes are pending; false when refused.
   * `write` must settle its own errors (it is never awaited by the code that started it).
   */
  start(write: () => Promise<void>): boolean {
    if (this.#running.size >= this.limit) return false;
    // Called from a microtask, so even a synchronous throw in `write` stays out of the caller.
    const running: Promise<void> = Promise.resolve()
      .then(write)
      .finally(() => this.#running.delete(running));
    this.#running.add(running);
    return true;
  }

  /** Resolves once every write started before or during the wait has settled. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}
