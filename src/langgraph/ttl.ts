/**
 * The saver's time to live, which the service does not have: deleting the threads not written
 * (or, with `ttl.refreshOnRead`, read) for an age, and the small records a read stores so that
 * it counts as activity. The saver hands its appends here; this module keeps what this process
 * knows of each thread's activity.
 */
import { StudioValidationError } from "../errors";
import { valuesRecord } from "../records/checkpoint";
import type { RecordEntry } from "./checkpoint-log";
import type { StoredRecord } from "./records";
import type { RetentionScope, SaverSettings } from "./saver-config";
import type { CheckpointThreadInfo, CheckpointThreads } from "./thread-store";

/** The saver's `ttl`, checked: its age in ms and whether reads refresh it. */
export type TtlSettings = NonNullable<SaverSettings["ttl"]>;

/** How the saver stores a record (sealed and split as every record is). */
export type AppendRecord = (
  threadId: string,
  record: StoredRecord,
  what: string,
) => Promise<RecordEntry | undefined>;

export class ThreadTtl {
  readonly #settings: TtlSettings | undefined;
  readonly #threads: CheckpointThreads;
  readonly #append: AppendRecord;
  /**
   * When this process last wrote to (or refreshed) each thread, for `ttl.refreshOnRead`: only the
   * last tenth of the TTL matters, so older times are dropped (the map stays as small as the
   * threads touched in that tenth).
   */
  readonly #activity = new Map<string, number>();
  /**
   * The refresh record this process stored last per thread (deleted with the next one), and when;
   * dropped after a TTL (a refresh left behind then is deleted by prune or `keep: "latest"`).
   */
  readonly #touches = new Map<string, { entry: RecordEntry; at: number }>();
  /** When the maps were last cleared of times that no longer matter. */
  #clearedAt = 0;

  constructor(settings: TtlSettings | undefined, threads: CheckpointThreads, append: AppendRecord) {
    this.#settings = settings;
    this.#threads = threads;
    this.#append = append;
  }

  /**
   * The age in ms above which a thread has expired (undefined without `ttl`): the TTL, and with
   * `refreshOnRead` a tenth more. A read within a tenth of the TTL of this process's last write
   * or refresh stores no record, so the thread's newest record may be that much older than the
   * read; the tenth added keeps it a whole TTL after its last read.
   */
  get ms(): number | undefined {
    const ttl = this.#settings;
    if (!ttl) return undefined;
    return ttl.refreshOnRead ? ttl.ms * 1.1 : ttl.ms;
  }

  /** This process is about to write to the thread: that write is its newest activity. */
  wrote(threadId: string): void {
    const ttl = this.#settings;
    // Only `refreshOnRead` reads these times.
    if (!ttl?.refreshOnRead) return;
    const now = Date.now();
    this.#activity.set(threadId, now);
    if (now - this.#clearedAt < ttl.ms / 10) return;
    this.#clearedAt = now;
    for (const [id, at] of this.#activity) {
      if (now - at >= ttl.ms / 10) this.#activity.delete(id);
    }
    for (const [id, touch] of this.#touches) {
      if (now - touch.at >= ttl.ms) this.#touches.delete(id);
    }
  }

  /** How many threads this process keeps a time or a refresh record for (for tests). */
  get trackedThreads(): number {
    return new Set([...this.#activity.keys(), ...this.#touches.keys()]).size;
  }

  /** The thread is deleted: nothing of it is kept. */
  forget(threadId: string): void {
    this.#activity.delete(threadId);
    this.#touches.delete(threadId);
  }

  /** The age `sweep()` deletes above, or the error saying the saver has no `ttl`. */
  sweepAge(): number {
    if (!this.#settings) {
      throw new StudioValidationError(
        "ttl",
        "is required to sweep: construct the saver with ttl: { defaultTTL: <minutes> }, or call " +
          "deleteThreads({ maxAgeMs })",
      );
    }
    return this.ms!;
  }

  /**
   * `ttl.refreshOnRead`: a read counts as activity. The service keeps no read times, so a small
   * record is stored (at most once per tenth of the TTL per thread and process) and this process's
   * previous one deleted; prune and `keep: "latest"` delete stale ones like any "values" record.
   */
  async refreshOnRead(threadId: string): Promise<void> {
    const ttl = this.#settings;
    if (!ttl?.refreshOnRead) return;
    const last = this.#activity.get(threadId);
    if (last !== undefined && Date.now() - last < ttl.ms / 10) return;
    const touch = valuesRecord({ threadId, ns: "", blobs: [] });
    const entry = await this.#append(threadId, touch, "a read time (ttl.refreshOnRead)");
    const previous = this.#touches.get(threadId)?.entry;
    if (entry) this.#touches.set(threadId, { entry, at: Date.now() });
    const window = this.#threads.cached(threadId);
    if (previous && window) {
      await this.#threads.deleteRecords(threadId, window.serviceThreadId, [previous]);
    }
  }

  /**
   * Deletes every checkpoint thread whose newest message is older than `cutoff` (ms); with
   * `dryRun`, only lists them. Returns their `thread_id`s.
   */
  async deleteOlderThan(
    cutoff: number,
    dryRun: boolean,
    scope: RetentionScope = "saver",
  ): Promise<string[]> {
    const expired: CheckpointThreadInfo[] = [];
    for await (const info of this.#threads.checkpointThreads(true, scope)) {
      if (info.lastActivity !== undefined && info.lastActivity < cutoff) expired.push(info);
    }
    if (dryRun) return [...new Set(expired.map((info) => info.threadId))];
    const deleted: string[] = [];
    // Listed first, deleted after: a listing's cursor must not be a thread deleted meanwhile.
    // Another process may write a thread after it was measured: its newest message is read again
    // just before the delete (one call per expired thread; one round trip of gap stays).
    for (const info of expired) {
      const newest = await this.#threads.newestMessageTime(info.serviceThreadId);
      if (newest !== undefined && newest >= cutoff) continue;
      await this.#threads.deleteServiceThread(info.threadId, info.serviceThreadId);
      this.forget(info.threadId);
      deleted.push(info.threadId);
    }
    return [...new Set(deleted)];
  }
}
