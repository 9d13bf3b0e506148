import { StudioError } from "../errors";

/**
 * A write to a thread failed in a way that leaves its outcome unknown (timeout, reset, 5xx after
 * the request may have reached the server), and the history could not settle it within its
 * attempts. The messages before `storedCount` are stored; the one at `storedCount` may or may not
 * be; later ones were not written. `getMessages()` shows exactly what the thread holds.
 */
export class StudioWriteNotConfirmedError extends StudioError {
  /** The thread written to; undefined when even its creation could not be confirmed. */
  readonly threadId: string | undefined;
  /** How many messages of the call are known to be stored. */
  readonly storedCount: number;
  /** How many messages the call wanted to store. */
  readonly totalCount: number;
  /** Attempts made for the message (or thread) that could not be confirmed. */
  readonly attempts: number;

  constructor(init: {
    threadId: string | undefined;
    storedCount: number;
    totalCount: number;
    attempts: number;
    what: string;
    cause: unknown;
  }) {
    const reason = init.cause instanceof Error ? init.cause.message : String(init.cause);
    const stored =
      init.storedCount === 0
        ? "None of its messages is known to be stored"
        : `Its first ${init.storedCount} message(s) are stored`;
    super(
      `Could not confirm ${init.what} after ${init.attempts} attempt(s) (last error: ${reason}). ${stored}; message ${init.storedCount + 1} of ${init.totalCount} may or may not be, later ones were not written. Call getMessages() to see what the thread holds before writing again.`,
      { cause: init.cause },
    );
    this.threadId = init.threadId;
    this.storedCount = init.storedCount;
    this.totalCount = init.totalCount;
    this.attempts = init.attempts;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      threadId: this.threadId,
      storedCount: this.storedCount,
      totalCount: this.totalCount,
      attempts: this.attempts,
    };
  }
}
