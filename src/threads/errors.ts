import { named, StudioError, StudioNotFoundError } from "../errors";
import { redactText } from "../errors/redact";

/** Where each message of a write call stands, by its index in the call's `messages`. */
export interface WriteOutcome {
  /** Indexes of the messages known to be stored (exactly once). */
  stored: number[];
  /** Indexes of the messages known not to be stored. */
  notStored: number[];
  /** Indexes of the messages that may or may not be stored. */
  unknown: number[];
}

/** "messages 1-3", "message 4", "messages 1, 3": indexes shown 1-based, as people count. */
function describeIndexes(indexes: readonly number[]): string {
  const sorted = [...indexes].sort((a, b) => a - b).map((i) => i + 1);
  const contiguous = sorted.every((n, i) => i === 0 || n === sorted[i - 1]! + 1);
  if (sorted.length === 1) return `message ${sorted[0]}`;
  if (contiguous) return `messages ${sorted[0]}-${sorted.at(-1)}`;
  return `messages ${sorted.join(", ")}`;
}

function describeOutcome(outcome: WriteOutcome, total: number): string {
  if (total === 0) return "The call wrote no message";
  const parts: string[] = [];
  if (outcome.stored.length > 0) parts.push(`${describeIndexes(outcome.stored)} stored`);
  if (outcome.unknown.length > 0) {
    parts.push(`${describeIndexes(outcome.unknown)} unknown (may or may not be stored)`);
  }
  if (outcome.notStored.length > 0) parts.push(`${describeIndexes(outcome.notStored)} not stored`);
  return `Of ${total} message(s): ${parts.join("; ") || "none"}`;
}

/**
 * A write of the history did not complete: some of its messages may be stored and some not. The
 * error says exactly which (`stored`, `notStored`, `unknown`, by index in the call's messages) and
 * in which thread. The cause is the failure itself (a timeout, a 429 after retries, a 5xx...).
 *
 * Calling `addMessages` again on the same history with the same message objects stores only what
 * is missing, so a retry never duplicates.
 */
export class StudioWriteNotConfirmedError extends StudioError {
  static {
    named(StudioWriteNotConfirmedError, "StudioWriteNotConfirmedError");
  }

  /** The thread written to; undefined when even its creation could not be confirmed. */
  readonly threadId: string | undefined;
  /** Indexes (in the call's messages) of the messages known to be stored. */
  readonly stored: number[];
  /** Indexes of the messages known not to be stored. */
  readonly notStored: number[];
  /** Indexes of the messages that may or may not be stored. */
  readonly unknown: number[];
  /** How many messages of the call are known to be stored (`stored.length`). */
  readonly storedCount: number;
  /** How many messages the call wanted to store. */
  readonly totalCount: number;
  /** Attempts made for the message (or thread) that could not be confirmed. */
  readonly attempts: number;

  constructor(
    init: WriteOutcome & {
      threadId: string | undefined;
      totalCount: number;
      attempts: number;
      /** What failed, e.g. "to store message 3 of 5 in thread T". */
      what: string;
      cause: unknown;
      /** Extra sentence, e.g. about a duplicate thread left behind. */
      note?: string;
    },
  ) {
    const reason = init.cause instanceof Error ? init.cause.message : String(init.cause);
    const where =
      init.threadId === undefined
        ? "The thread's creation could not be confirmed, so its id is unknown."
        : `Thread ${init.threadId}.`;
    const gone = init.threadId !== undefined && init.cause instanceof StudioNotFoundError;
    const retry = gone
      ? ` Thread ${init.threadId} no longer exists (it was deleted, perhaps by another ` +
        "process): what it held went with it, and writing to it again cannot succeed. Write to " +
        "another thread (a new history, or one with a sessionId, which looks its session up " +
        "again)."
      : init.unknown.length + init.notStored.length > 0
        ? " Call addMessages again on this history with the same message objects to store only " +
          "what is missing, or getMessages() to see what the thread holds."
        : "";
    super(
      `Could not ${init.what} after ${init.attempts} attempt(s) (last error: ${reason}). ` +
        `${where} ${describeOutcome(init, init.totalCount)}.` +
        (init.note ? ` ${init.note}` : "") +
        retry,
      { cause: init.cause },
    );
    // A server's id, shown apart from the message: one that echoes the key must not carry it out.
    this.threadId = init.threadId === undefined ? undefined : redactText(init.threadId);
    this.stored = [...init.stored];
    this.notStored = [...init.notStored];
    this.unknown = [...init.unknown];
    this.storedCount = init.stored.length;
    this.totalCount = init.totalCount;
    this.attempts = init.attempts;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      threadId: this.threadId,
      stored: this.stored,
      notStored: this.notStored,
      unknown: this.unknown,
      storedCount: this.storedCount,
      totalCount: this.totalCount,
      attempts: this.attempts,
    };
  }
}
