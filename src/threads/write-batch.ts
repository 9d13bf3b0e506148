/**
 * One write of a memory room, planned before anything is sent: the caller's messages, each with
 * its client id, what is known of it and what is sent for it. A message object the room already
 * stored is not sent again; one written before with an unknown outcome keeps its client id, and the
 * thread is read first to find out whether it landed (`needsCheck`). The batch then turns the
 * write's outcome into the states the room remembers and the error the caller sees, by index in
 * the caller's messages.
 */
import type { ThreadMessageInput } from "../api-types";
import type { EncodedMessage } from "../converters/thread-messages";
import { type MessageState, notConfirmedError, type PartialWrite } from "./confirmed-writes";
import { StudioWriteNotConfirmedError } from "./errors";

/** What a room knows of a message object it was given (kept per object, updated in place). */
export interface KnownWrite {
  clientId: string;
  state: MessageState;
}

/** A message of the batch that is to be sent. */
export interface BatchEntry {
  /** Its index in the caller's messages. */
  position: number;
  /** The room's record of this message object (the same object: updates reach the room). */
  known: KnownWrite;
  /** What is sent for it. */
  message: EncodedMessage;
}

export class WriteBatch {
  /** How many messages the caller gave. */
  readonly total: number;
  /** Indexes known stored without sending them (stored before, or repeated in the call). */
  readonly stored: number[];
  /** The messages still to send, in call order. */
  entries: BatchEntry[];

  constructor(total: number, stored: number[], entries: BatchEntry[]) {
    this.total = total;
    this.stored = stored;
    this.entries = entries;
  }

  /** Whether a message was sent before without an answer: the thread is read before sending. */
  get needsCheck(): boolean {
    return this.entries.some((entry) => entry.known.state === "unknown");
  }

  /** What is sent, in order. */
  get sending(): EncodedMessage[] {
    return this.entries.map((entry) => entry.message);
  }

  /** Messages the thread holds (by client id) are stored, and no longer sent. */
  settle(present: ReadonlySet<string>): void {
    this.entries = this.entries.filter((entry) => {
      if (!present.has(entry.message.clientId)) return true;
      entry.known.state = "stored";
      this.stored.push(entry.position);
      return false;
    });
  }

  /** The error when the thread could not be read before sending: nothing was sent. */
  uncheckedError(threadId: string | undefined, cause: unknown): StudioWriteNotConfirmedError {
    const unknown = this.entries.filter((e) => e.known.state === "unknown").map((e) => e.position);
    const notStored = this.entries
      .filter((e) => e.known.state !== "unknown")
      .map((e) => e.position);
    return new StudioWriteNotConfirmedError({
      threadId,
      stored: this.stored,
      unknown,
      notStored,
      totalCount: this.total,
      attempts: 1,
      what: "check which messages the thread already holds",
      cause,
    });
  }

  /** Every message sent is stored. Resolves to the client id of the last one (the new anchor). */
  succeeded(): string | undefined {
    for (const entry of this.entries) entry.known.state = "stored";
    return this.entries.at(-1)?.message.clientId;
  }

  /** The send stopped: remembers each message's state, and builds the caller's error. */
  failed(partial: PartialWrite): StudioWriteNotConfirmedError {
    const states = partial.states(this.entries.length);
    this.entries.forEach((entry, i) => {
      entry.known.state = states[i]!;
    });
    return notConfirmedError(
      partial,
      this.entries.map((entry) => entry.position),
      this.total,
      this.stored,
    );
  }
}

/**
 * Plans the write of `messages`. `memory` holds what the room knows of each message object (and
 * learns the new ones); `clientIds[i]` is the id of `messages[i]` if it is new; `encode` builds
 * what is sent (it may throw a `StudioValidationError` naming `messages[i]`).
 */
export function planWrite<M extends object>(
  messages: readonly M[],
  memory: WeakMap<M, KnownWrite>,
  clientIds: readonly string[],
  encode: (message: M, clientId: string, index: number) => ThreadMessageInput,
): WriteBatch {
  const stored: number[] = [];
  const entries: BatchEntry[] = [];
  const inBatch = new Set<M>();
  messages.forEach((message, position) => {
    const known = memory.get(message);
    if (known?.state === "stored" || inBatch.has(message)) {
      stored.push(position);
      return;
    }
    inBatch.add(message);
    const entry = known ?? { clientId: clientIds[position]!, state: "notStored" };
    memory.set(message, entry);
    entries.push({
      position,
      known: entry,
      message: { clientId: entry.clientId, input: encode(message, entry.clientId, position) },
    });
  });
  return new WriteBatch(messages.length, stored, entries);
}
