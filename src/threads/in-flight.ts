/**
 * What is in flight per key, within this process: the one tracker both writers use (the
 * checkpointer's write order, `langgraph/write-order.ts`, and the server's guard on a deleted
 * thread's late writes, `server/write-guard.ts`).
 *
 * `InFlight` holds a promise only until it settles, so it is bounded by what is really under way.
 * What a writer remembers after its writes settle (tasks stored early, deleted threads) is a
 * `RecentKeys`, which forgets its oldest key past its bound: a key that is never closed (a `put`
 * that never comes, a thread deleted long ago) cannot make the process grow.
 */

/** Promises in flight per key; a key is dropped as soon as its last promise settles. */
export class InFlight {
  readonly #byKey = new Map<string, Set<Promise<unknown>>>();

  /** Counts `promise` under `key` until it settles (however it ends); returns it unchanged. */
  track<T>(key: string, promise: Promise<T>): Promise<T> {
    let set = this.#byKey.get(key);
    if (!set) {
      set = new Set();
      this.#byKey.set(key, set);
    }
    const held = set;
    held.add(promise);
    const release = () => {
      held.delete(promise);
      if (held.size === 0 && this.#byKey.get(key) === held) this.#byKey.delete(key);
    };
    promise.then(release, release);
    return promise;
  }

  /** True while some promise under `key` has not settled. */
  has(key: string): boolean {
    return this.#byKey.has(key);
  }

  /**
   * Resolves once nothing is in flight under `key`, including promises tracked while it waits
   * (a late write queued behind an earlier one). Never rejects.
   */
  async settled(key: string): Promise<void> {
    for (let set = this.#byKey.get(key); set; set = this.#byKey.get(key)) {
      await Promise.allSettled([...set]);
    }
  }
}

/** A map that keeps at most `limit` keys, forgetting the one set longest ago first. */
export class RecentKeys<V> {
  readonly #limit: number;
  readonly #entries = new Map<string, V>();

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`RecentKeys: limit must be a positive integer, got ${limit}`);
    }
    this.#limit = limit;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** Sets `key` as the newest, then forgets the oldest keys beyond the limit. */
  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#limit) break;
      this.#entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
