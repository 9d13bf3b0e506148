/**
 * What the saver checks of its fields and of LangGraph's configs before anything is sent, and the
 * metadata filter `list` applies.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { CheckpointMetadata, SerializerProtocol } from "@langchain/langgraph-checkpoint";
import * as z from "zod/v4/mini";
import { CLIENT_OPTION_NAMES } from "../client/options";
import type { StudioClientFields } from "../client/resolve";
import { StudioValidationError } from "../errors";
import { describeFields } from "../field-docs";
import {
  checkField,
  describeValue,
  integerAtLeast,
  type KnownKeys,
  knownKeysOnly,
  nonEmptyString,
  oneOf,
  parseFields,
  refuseUnknownKeys,
} from "../validation";
import { useEnglishMessages } from "../zod-locale";
import { DEFAULT_PART_CHARS } from "./records";

useEnglishMessages();

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
   * process; to keep a thread a whole TTL after its last read, a sweep then deletes threads idle
   * for more than 1.1 times `defaultTTL`.
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
  /**
   * Whose threads: "saver" (default) the saver's own, those of its `datasetId` (or, without one,
   * those in no dataset); "account" every checkpoint thread of the account, other apps' too.
   */
  scope?: RetentionScope | undefined;
}

/** Which checkpoint threads retention reaches (see `DeleteThreadsOptions.scope`). */
export type RetentionScope = "saver" | "account";

/** `sweep`'s options. */
export interface SweepOptions {
  /** Only list the threads that would be deleted: nothing is deleted. */
  dryRun?: boolean | undefined;
  /** As `deleteThreads`' `scope` (default "saver"). */
  scope?: RetentionScope | undefined;
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

/** `message (got <value as written>)`, the wording the saver's checks have always had. */
const got = (message: string) => (issue: { input?: unknown }) =>
  `${message} (got ${String(issue.input)})`;

const defaultTTLError = got("must be a positive number of minutes, as in LangGraph's Redis saver");

/**
 * `ttl`, read as `ttl?.defaultTTL` always was (a `ttl` of null or of another type names
 * `ttl.defaultTTL`), checked, and turned into what the saver runs with.
 */
const ttlSchema = z.pipe(
  z.pipe(
    z.transform((ttl: unknown): CheckpointTTL => {
      const given = ttl as Partial<CheckpointTTL> | null;
      return {
        defaultTTL: given?.defaultTTL as number,
        refreshOnRead: given?.refreshOnRead,
      };
    }),
    z.object({
      defaultTTL: z.custom<number>(
        (minutes) => typeof minutes === "number" && Number.isFinite(minutes) && minutes > 0,
        { error: defaultTTLError },
      ),
      refreshOnRead: z.optional(z.boolean({ error: "must be true or false" })),
    }),
  ),
  z.transform((ttl) => ({
    ms: ttl.defaultTTL * 60_000,
    refreshOnRead: ttl.refreshOnRead === true,
  })),
);

/** `ttl`'s names as LangGraph's Redis saver spells them; the store's spelling is refused. */
const TTL_KEYS: KnownKeys = {
  owner: "StudioCheckpointSaver ttl",
  known: ["defaultTTL", "refreshOnRead"],
  hints: {
    defaultTtl: "the checkpointer spells it defaultTTL, as LangGraph's Redis saver does",
    sweepIntervalMinutes:
      "the checkpointer sweeps when sweep() or deleteThreads() is called: call it on a schedule",
  },
};

/** The saver's own fields, in the order they are checked (the first bad one is named). */
const saverFieldsSchema = z.object({
  datasetId: z.optional(nonEmptyString()),
  maxMessageChars: z._default(
    integerAtLeast(1_000, "must be an integer of at least 1000"),
    DEFAULT_PART_CHARS,
  ),
  maxCachedThreads: z._default(
    integerAtLeast(1, "must be an integer of at least 1"),
    DEFAULT_CACHED_THREADS,
  ),
  keep: z._default(z.enum(["all", "latest"], { error: got('must be "all" or "latest"') }), "all"),
  ttl: z.optional(knownKeysOnly(ttlSchema, TTL_KEYS)),
  /** Handed to LangGraph's base class as it is. */
  serde: z.optional(z.custom<SerializerProtocol>()),
});

describeFields("checkpointer", saverFieldsSchema, {
  datasetId: "Keep the checkpoint threads among this dataset's threads (and look them up there)",
  maxMessageChars:
    "A record longer than this many characters is split over several messages; lower it if " +
    "the service refuses large messages",
  maxCachedThreads:
    "LangGraph threads a saver keeps in memory, so a read costs one call; the least recently " +
    "used beyond them are read again",
  keep:
    '`"all"` keeps every checkpoint (history, replay, forks); `"latest"` only the newest of ' +
    "each namespace, as LangGraph's shallow savers",
  ttl: "A time to live for LangGraph threads, as in LangGraph's Redis saver (minutes)",
  "ttl.defaultTTL":
    "Minutes since a thread's last write (or read, with `refreshOnRead`) before it expires",
  "ttl.refreshOnRead": "Whether a read (`getTuple`, `list` of one thread) counts as activity",
  serde: "Serializer for checkpoints and writes, e.g. `createEncryptedSerde(...)`",
});

/**
 * The saver's own field names, read from the schema: a field added there is checked and kept out
 * of the client's options without a second list to forget.
 */
const SAVER_KEYS: ReadonlySet<string> = new Set(Object.keys(saverFieldsSchema.shape));

/** Every field the saver takes: its own and the client's. */
const SAVER_FIELD_KEYS: KnownKeys = {
  owner: "StudioCheckpointSaver",
  known: [...SAVER_KEYS, ...CLIENT_OPTION_NAMES, "client"],
  listed: [...SAVER_KEYS, "and the client options"],
};

/** What the saver runs with: its fields checked and defaulted, and the client's options. */
export type SaverSettings = z.output<typeof saverFieldsSchema> & {
  clientFields: StudioClientFields;
};

/**
 * The saver's fields checked (naming the field at fault) and defaulted.
 * @throws StudioValidationError naming the field (e.g. "ttl.defaultTTL") and what it must be.
 */
export function saverSettings(fields: StudioCheckpointSaverFields): SaverSettings {
  refuseUnknownKeys(fields, SAVER_FIELD_KEYS);
  const own: Record<string, unknown> = {};
  const clientFields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    (SAVER_KEYS.has(key) ? own : clientFields)[key] = value;
  }
  return {
    ...parseFields(saverFieldsSchema, own),
    clientFields: clientFields as StudioClientFields,
  };
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
  refuseUnknownKeys(options, DELETE_THREADS_KEYS);
  const { olderThan, maxAgeMs } = options ?? {};
  if (olderThan !== undefined && maxAgeMs !== undefined) {
    throw new StudioValidationError("olderThan", "and maxAgeMs cannot both be given: pass one");
  }
  if (olderThan !== undefined) {
    if (typeof olderThan === "number") {
      throw new StudioValidationError(
        "olderThan",
        `must be a Date; a number is ambiguous (an age, or a time since 1970?): pass maxAgeMs: ` +
          `${String(olderThan)} for an age in milliseconds, or new Date(${String(olderThan)}) ` +
          `for a date (got ${String(olderThan)})`,
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
    return now - checkField("maxAgeMs", maxAgeSchema, maxAgeMs, { showValue: false });
  }
  if (ttlMs !== undefined) return now - ttlMs;
  throw new StudioValidationError(
    "olderThan",
    "or maxAgeMs is required (or construct the saver with ttl: { defaultTTL } to sweep by it)",
  );
}

const DELETE_THREADS_KEYS: KnownKeys = {
  owner: "deleteThreads",
  known: ["olderThan", "maxAgeMs", "dryRun", "scope"],
};

const SWEEP_KEYS: KnownKeys = { owner: "sweep", known: ["dryRun", "scope"] };

const PRUNE_KEYS: KnownKeys = { owner: "prune", known: ["keepLast", "dryRun"] };

const scopeSchema = z.optional(oneOf(["saver", "account"]));

/** The retention scope of `deleteThreads` or `sweep` options, checked (default "saver"). */
export function retentionScope(options: DeleteThreadsOptions | SweepOptions | undefined) {
  return checkField("scope", scopeSchema, options?.scope) ?? "saver";
}

/** `sweep`'s options checked. */
export function checkSweepOptions(options: SweepOptions | undefined): void {
  refuseUnknownKeys(options, SWEEP_KEYS);
  retentionScope(options);
}

const THREAD_IDS = 'must be an array of thread ids, e.g. prune(["t1"], { keepLast: 1 })';

const threadIdsSchema = z.array(z.unknown(), {
  error: (issue) => `${THREAD_IDS} (got ${describeValue(issue.input)})`,
});

/** `prune`'s thread ids: an array (a single id as a string would prune nothing). */
export function checkedThreadIds(threadIds: unknown): readonly unknown[] {
  return checkField("threadIds", threadIdsSchema, threadIds);
}

/** `deleteThreads`' `maxAgeMs`. */
const maxAgeSchema = z.custom<number>(
  (age) => typeof age === "number" && Number.isFinite(age) && age >= 0,
  { error: got("must be an age in milliseconds, 0 or more") },
);

/** `prune`'s `keepLast`. */
const keepLastSchema = integerAtLeast(1, "must be an integer of at least 1");

/** `prune`'s `keepLast`, checked. */
export function checkedKeepLast(options: PruneOptions | undefined): number {
  refuseUnknownKeys(options, PRUNE_KEYS);
  return checkField("keepLast", keepLastSchema, options?.keepLast, { showValue: false });
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
      `is required to ${action}: pass { configurable: { thread_id: "<your conversation id>" } ` +
        `} when you invoke the graph`,
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
