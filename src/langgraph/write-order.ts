/**
 * LangGraph (durability "async", its default) calls `putWrites` for a checkpoint as soon as a task
 * ends, while the checkpoint's own `put` waits behind the puts before it: a checkpoint's writes may
 * reach the thread before the checkpoint does. A reader walking the thread newest first would stop
 * at the checkpoint and miss them. So, per checkpoint, within this process:
 *   - its `put` waits for its writes in flight, and its record names the tasks whose writes were
 *     stored before it (the reader reads down until it has them);
 *   - writes sent while its `put` is in flight wait for the `put`, so they land after it.
 * Only checkpoints this process has not stored or read are tracked (a `put` for them may follow).
 */

/** Checkpoints whose early writes are remembered at most (a `put` that never comes leaks none). */
const MAX_TRACKED = 1_000;

export class WriteOrder {
  readonly #puts = new Map<string, Promise<unknown>>();
  readonly #writes = new Map<string, Set<Promise<unknown>>>();
  /** Tasks whose writes are stored ahead of their checkpoint's record. */
  readonly #early = new Map<string, Set<string>>();

  /** Runs a checkpoint's `putWrites`: after its `put` if one is in flight. */
  async write<T>(key: string, taskId: string, known: boolean, send: () => Promise<T>): Promise<T> {
    const put = this.#puts.get(key);
    if (put) await put.catch(() => undefined);
    if (known || put) return send();
    const sending = send();
    const inFlight = this.#writes.get(key) ?? new Set<Promise<unknown>>();
    this.#writes.set(key, inFlight);
    inFlight.add(sending);
    try {
      const result = await sending;
      const early = this.#early.get(key) ?? new Set<string>();
      early.add(taskId);
      this.#early.set(key, early);
      this.#bound();
      return result;
    } finally {
      inFlight.delete(sending);
      if (inFlight.size === 0) this.#writes.delete(key);
    }
  }

  /** Runs a checkpoint's `put` once its writes in flight settle; `send` gets the early tasks. */
  async put<T>(key: string, send: (earlyTasks: string[]) => Promise<T>): Promise<T> {
    await Promise.allSettled([...(this.#writes.get(key) ?? [])]);
    const early = [...(this.#early.get(key) ?? [])].sort();
    const sending = send(early);
    this.#puts.set(key, sending);
    try {
      const result = await sending;
      this.#early.delete(key);
      return result;
    } finally {
      if (this.#puts.get(key) === sending) this.#puts.delete(key);
    }
  }

  #bound(): void {
    while (this.#early.size > MAX_TRACKED) {
      const oldest = this.#early.keys().next().value;
      if (oldest === undefined) return;
      this.#early.delete(oldest);
    }
  }
}

/** The key of one checkpoint of one LangGraph thread. */
export function checkpointKey(threadId: string, ns: string, checkpointId: string): string {
  return JSON.stringify([threadId, ns, checkpointId]);
}
