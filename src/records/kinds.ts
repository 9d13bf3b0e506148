/**
 * Every kind of record the package writes into a user's account, with the formats this version
 * reads. docs/storage.md is the register of their fields; a test finds each name there.
 *
 * The compatibility rule: every format ever written stays readable for ever. A record of a known
 * kind in a format newer than this version reads raises `StudioStoredFormatError` (the data was
 * written by a newer release); it is never skipped, which would silently continue from older
 * state. A kind this version does not know at all is not this version's to read, and is left alone.
 */
import { StudioStoredFormatError } from "../errors/stored-format";

export interface RecordKind {
  /** The kind's name as stored (its marker's value) and as docs/storage.md lists it. */
  name: string;
  /** Every format this version reads, oldest first; the last is the one it writes. */
  formats: readonly number[];
}

/** Checkpoint records: a checkpoint with the values its step changed (`lc_checkpoint_record`). */
export const CHECKPOINT_KIND = { name: "checkpoint", formats: [2, 3] } as const;
/** Checkpoint records: one task's pending writes against a checkpoint. */
export const WRITES_KIND = { name: "writes", formats: [2, 3] } as const;
/** Checkpoint records: whole copies of channel values (prune), or a read time (TTL). */
export const VALUES_KIND = { name: "values", formats: [2, 3] } as const;
/** StudioStore: a namespace's entries (`lc_store_record: "<format>"`). */
export const STORE_KIND = { name: "store-record", formats: [1] } as const;
/**
 * The agent server: a chat thread's state for the thread list (`lc_kind`). Both formats are
 * written: 2 is a thread's first snapshot, written with the thread (no `thread_id` yet), 1 every
 * later one (`records/chat-thread.ts`).
 */
export const CHAT_THREAD_VIEW_KIND = { name: "chat-thread-view", formats: [1, 2] } as const;
/** The agent server: a chat thread itself (thread metadata `lc_kind`). */
export const CHAT_THREAD_KIND = { name: "chat-thread", formats: [1] } as const;
/** The agent server: a client-chosen id of a chat thread (thread metadata `lc_kind`). */
export const CHAT_THREAD_ID_KIND = { name: "chat-thread-id", formats: [1] } as const;
/** The account's record that sessions are filed by dataset (thread metadata `lc_kind`). */
export const SESSION_LAYOUT_KIND = { name: "session-layout", formats: [1] } as const;
/** A session's thread (history, checkpoint or store; thread metadata `lc_kind`, `lc_session`). */
export const SESSION_THREAD_KIND = { name: "session-thread", formats: [1] } as const;
/** StudioChatMessageHistory: one LangChain message (`lc_type`, `lc_id`, `lc_data_<n>`). */
export const HISTORY_MESSAGE_KIND = { name: "history-message", formats: [1] } as const;

export const RECORD_KINDS: readonly RecordKind[] = [
  CHECKPOINT_KIND,
  WRITES_KIND,
  VALUES_KIND,
  STORE_KIND,
  CHAT_THREAD_VIEW_KIND,
  CHAT_THREAD_KIND,
  CHAT_THREAD_ID_KIND,
  SESSION_LAYOUT_KIND,
  SESSION_THREAD_KIND,
  HISTORY_MESSAGE_KIND,
];

/** Thread or message metadata key naming what the package keeps there (several kinds). */
export const KIND_KEY = "lc_kind";

/**
 * Metadata key of the format of kinds written before they had one (snapshots, history messages,
 * the layout record): absent is format 1, which is what every version so far wrote.
 */
export const FORMAT_KEY = "lc_format";

/** The format of a record of `kind` this version writes. */
export function currentFormat(kind: RecordKind): number {
  return kind.formats[kind.formats.length - 1]!;
}

/**
 * Whether this version reads `format` of `kind`: true for a known format, false for one it
 * cannot take for a format (not a positive integer) or older than any it knows.
 * @throws StudioStoredFormatError for a newer format.
 */
export function readsFormat(kind: RecordKind, format: unknown): format is number {
  const number = typeof format === "string" && /^\d+$/.test(format) ? Number(format) : format;
  if (typeof number !== "number" || !Number.isInteger(number) || number < 1) return false;
  const newest = currentFormat(kind);
  if (number > newest) throw new StudioStoredFormatError(kind.name, number, newest);
  return kind.formats.includes(number);
}

/**
 * The format of a record marked with `FORMAT_KEY` in `metadata` (absent: 1), if this version
 * reads it. @throws StudioStoredFormatError for a newer format.
 */
export function readsMarkedFormat(
  kind: RecordKind,
  metadata: Readonly<Record<string, unknown>> | null | undefined,
): boolean {
  const format = metadata?.[FORMAT_KEY];
  return readsFormat(kind, format === undefined ? 1 : format);
}
