/**
 * What the saver checks of its fields and of LangGraph's configs before anything is sent, and the
 * metadata filter `list` applies.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { CheckpointMetadata, SerializerProtocol } from "@langchain/langgraph-checkpoint";
import type { StudioClientFields } from "../client/resolve";
import { StudioValidationError } from "../errors";
import { DEFAULT_PART_CHARS } from "./records";

export type StudioCheckpointSaverFields = StudioClientFields & {
  /** Keep the checkpoint threads among this dataset's threads (and look them up there only). */
  datasetId?: string | undefined;
  /** Serializer for checkpoints and writes (LangGraph's JSON serializer by default). */
  serde?: SerializerProtocol | undefined;
  /**
   * A record longer than this many characters is split over several messages (default 100,000).
   * The service's message size limit is not published; lower this if it refuses large messages.
   */
  maxMessageChars?: number | undefined;
  /**
   * How many LangGraph threads a saver keeps in memory (default 100), so a read costs one call;
   * a thread beyond them, least recently used first, is read again from its newest messages.
   */
  maxCachedThreads?: number | undefined;
  /**
   * "all" (default) keeps every checkpoint (history, replay, forks). "latest" keeps only the
   * newest checkpoint of each namespace, as LangGraph's shallow savers do: each `put` stores every
   * value whole and deletes the checkpoints and writes it supersedes.
   */
  keep?: "all" | "latest" | undefined;
  /**
   * A time to live for LangGraph threads, in the style of LangGraph's Redis saver: a thread not
   * written (or, with `refreshOnRead`, read) for `defaultTTL` minutes is deleted by the next
   * `sweep()` (or `deleteThreads()` without options). The service has no expiry of its own, so
   * nothing is deleted until a sweep runs; an expired thread reads as before until then.
   */
  ttl?: CheckpointTTL | undefined;
};

export interface CheckpointTTL {
  /** Minutes since a thread's last write (or read, with `refreshOnRead`) before it expires. */
  defaultTTL: number;
  /**
   * Whether a read (`getTuple`, `list` of one thread) counts as activity (default false). A read
   * refreshes by storing one small message, at most once per tenth of the TTL per thread and
   * process, so a thread may expire up to a tenth of its TTL after its last read.
   */
  refreshOnRead?: boolean | undefined;
}

/** Which threads `deleteThreads` deletes: by a date, or by an age. Exactly one of the two. */
export interface DeleteThreadsOptions {
  /** Threads whose newest message is older than this date. A number is refused: pass a Date. */
  olderThan?: Date | undefined;
  /** Threads whose newest message is older than this many milliseconds. */
  maxAgeMs?: number | undefined;
  /** Only list the threads that would be deleted: nothing is deleted. */
  dryRun?: boolean | undefined;
}

export interface PruneOptions {
  /** Checkpoints to keep per namespace, newest first (at least 1). */
  keepLast: number;
  /** Only report what would be deleted: nothing is written or deleted. */
  dryRun?: boolean | undefined;
}

/** One thread's part of a prune: the checkpoints it deleted (or would delete). */
export interface PrunedThread {
  threadId: string;
  /** The deleted checkpoints, newest first. */
  checkpoints: { checkpointNs: string; checkpointId: string }[];
  /** Records of task writes deleted. */
  writes: number;
  /** Service messages deleted (a long record is split over several). */
  messages: number;
}

/** What `prune` deleted (or, with `dryRun`, would delete), summed over the threads. */
export interface PruneReport {
  dryRun: boolean;
  checkpoints: number;
  writes: number;
  messages: number;
  threads: PrunedThread[];
}

const DEFAULT_CACHED_THREADS = 100;

/** The saver's fields checked (naming the field at fault) and defaulted. */
export function saverSettings(fields: StudioCheckpointSaverFields) {
  const {
    datasetId,
    serde: _serde,
    maxMessageChars,
    maxCachedThreads,
    keep,
    ttl,
    ...clientFields
  } = fields;
  if (datasetId !== undefined && (typeof datasetId !== "string" || datasetId === "")) {
    throw new StudioValidationError("datasetId", "must be a non-empty string");
  }
  checkInteger("maxMessageChars", maxMessageChars, 1_000);
  checkInteger("maxCachedThreads", maxCachedThreads, 1);
  if (keep !== undefined && keep !== "all" && keep !== "latest") {
    throw new StudioValidationError("keep", `must be "all" or "latest" (got ${String(keep)})`);
  }
  return {
    clientFields,
    datasetId,
    ttl: ttlSettings(ttl),
    partChars: maxMessageChars ?? DEFAULT_PART_CHARS,
    maxCachedThreads: maxCachedThreads ?? DEFAULT_CACHED_THREADS,
    keep: keep ?? "all",
  };
}

function ttlSettings(ttl: CheckpointTTL | undefined) {
  if (ttl === undefined) return undefined;
  const minutes = ttl?.defaultTTL;
  if (typeof minutes !== "number" || !Number.isFinite(minutes) || minutes <= 0) {
    throw new StudioValidationError(
      "ttl.defaultTTL",
      `must be a positive number of minutes, as in LangGraph's Redis saver (got ${String(minutes)})`,
    );
  }
  if (ttl.refreshOnRead !== undefined && typeof ttl.refreshOnRead !== "boolean") {
    throw new StudioValidationError("ttl.refreshOnRead", "must be true or false");
  }
  return { ms: minutes * 60_000, refreshOnRead: ttl.refreshOnRead === true };
}

/**
 * The cut-off time (ms) `deleteThreads` deletes below. An age is `maxAgeMs`; a date is a Date.
 * A number as `olderThan` is refused: `30 * 86400_000` reads as a date in 1970 (nothing would be
 * deleted, silently), while `Date.now() - age` reads as an age of 56 years.
 */
export function retentionCutoff(
  options: DeleteThreadsOptions | undefined,
  ttlMs: number | undefined,
  now: number,
): number {
  const { olderThan, maxAgeMs } = options ?? {};
  if (olderThan !== undefined && maxAgeMs !== undefined) {
    throw new StudioValidationError("olderThan", "and maxAgeMs cannot both be given: pass one");
  }
  if (olderThan !== undefined) {
    if (typeof olderThan === "number") {
      throw new StudioValidationError(
        "olderThan",
        `must be a Date; a number is ambiguous (an age, or a time since 1970?): pass maxAgeMs: ${String(olderThan)} for an age in milliseconds, or new Date(${String(olderThan)}) for a date (got ${String(olderThan)})`,
      );
    }
    const time = olderThan instanceof Date ? olderThan.getTime() : Number.NaN;
    if (!Number.isFinite(time)) {
      throw new StudioValidationError(
        "olderThan",
        `must be a valid Date (got ${String(olderThan)})`,
      );
    }
    return time;
  }
  if (maxAgeMs !== undefined) {
    if (typeof maxAgeMs !== "number" || !Number.isFinite(maxAgeMs) || maxAgeMs < 0) {
      throw new StudioValidationError(
        "maxAgeMs",
        `must be an age in milliseconds, 0 or more (got ${String(maxAgeMs)})`,
      );
    }
    return now - maxAgeMs;
  }
  if (ttlMs !== undefined) return now - ttlMs;
  throw new StudioValidationError(
    "olderThan",
    "or maxAgeMs is required (or construct the saver with ttl: { defaultTTL } to sweep by it)",
  );
}

function checkInteger(field: string, value: unknown, min: number): void {
  if (value !== undefined && (!Number.isInteger(value) || (value as number) < min)) {
    throw new StudioValidationError(
      field,
      `must be an integer of at least ${min} (got ${String(value)})`,
    );
  }
}

export function namespaceOf(config: RunnableConfig): string {
  return config.configurable?.checkpoint_ns ?? "";
}

/** The thread id as stored (a number is taken as its decimal text, as other savers do). */
export function threadIdOf(threadId: unknown): string {
  if (typeof threadId === "number" && Number.isFinite(threadId)) return String(threadId);
  if (typeof threadId !== "string" || threadId === "") {
    throw new StudioValidationError(
      "config.configurable.thread_id",
      `must be a non-empty string (got ${JSON.stringify(threadId) ?? String(threadId)})`,
    );
  }
  return threadId;
}

export function requireThreadId(config: RunnableConfig, action: string): string {
  const threadId = config.configurable?.thread_id;
  if (threadId === undefined || threadId === null) {
    throw new StudioValidationError(
      "config.configurable.thread_id",
      `is required to ${action}: pass { configurable: { thread_id: "<your conversation id>" } } when you invoke the graph`,
    );
  }
  return threadIdOf(threadId);
}

/** Metadata filter as the Postgres saver applies it (`metadata @> filter`), key by key. */
export function matches(
  metadata: CheckpointMetadata | undefined,
  filter: Record<string, unknown>,
): boolean {
  const values = (metadata ?? {}) as Record<string, unknown>;
  return Object.entries(filter).every(([key, value]) => sameJson(values[key], value));
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

export async function* one<T>(value: T): AsyncGenerator<T> {
  yield value;
}
