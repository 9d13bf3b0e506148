/**
 * LangGraph (durability "async", its default) calls `putWrites` for a checkpoint as soon as a task
 * ends, while the checkpoint's own `put` waits behind the puts before it: a checkpoint's writes may
 * reach the thread before the checkpoint does. A reader walking the thread newest first would stop
 * at the checkpoint and miss them. So, per checkpoint, within this process:
 *   - its `put` waits for its writes in flight, and its record names the tasks whose writes were
 *     stored before it (the reader reads down until it has them);
 *   - writes sent while its `put` is in flight wait for the `put`, so they land after it.
 * Only checkpoints this process has not stored or read are tracked (a `put` for them may follow).
 * What is in flight is counted by the tracker shared with the server (`threads/in-flight.ts`).
 */
import { InFlight, RecentKeys } from "../threads/in-flight";

/** Checkpoints whose early writes are remembered at most (a `put` that never comes leaks none). */
const MAX_TRACKED = 1_000;

export class WriteOrder {
  readonly #puts = new InFlight();
  readonly #writes = new InFlight();
  /** Tasks whose writes are stored ahead of their checkpoint's record. */
  readonly #early = new RecentKeys<Set<string>>(MAX_TRACKED);

  /** Runs a checkpoint's `putWrites`: after its `put` if one is in flight. */
  async write<T>(key: string, taskId: string, known: boolean, send: () => Promise<T>): Promise<T> {
    const putting = this.#puts.has(key);
    if (putting) await this.#puts.settled(key);
    if (known || putting) return send();
    const result = await this.#writes.track(key, send());
    this.#early.set(key, (this.#early.get(key) ?? new Set<string>()).add(taskId));
    return result;
  }

  /** Runs a checkpoint's `put` once its writes in flight settle; `send` gets the early tasks. */
  async put<T>(key: string, send: (earlyTasks: string[]) => Promise<T>): Promise<T> {
    await this.#writes.settled(key);
    const result = await this.#puts.track(key, send(earlyTasks(this.#early.get(key))));
    this.#early.delete(key);
    return result;
  }
}

/** The early tasks as the record names them: sorted, so equal sets store equal records. */
export function earlyTasks(tasks: ReadonlySet<string> | undefined): string[] {
  return [...(tasks ?? [])].sort();
}

/** The key of one checkpoint of one LangGraph thread. */
export function checkpointKey(threadId: string, ns: string, checkpointId: string): string {
  return JSON.stringify([threadId, ns, checkpointId]);
}
