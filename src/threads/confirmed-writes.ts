/**
 * Writes to a thread that never duplicate and are never silently lost.
 *
 * The client does not repeat a call that creates state once the request may have reached the
 * server (the repeat could create it twice). This module settles such ambiguous failures itself:
 * every message carries a client-made id (`lc_id`) and every new thread a client-made key
 * (`lc_thread_key`), so after a timeout, a reset or a 5xx it reads the thread back, and writes
 * again only what is not there. Attempts are bounded; what cannot be settled is reported by a
 * `PartialWrite` saying where the write stopped and whether that message is stored, not stored or
 * unknown (the history turns it into `StudioWriteNotConfirmedError`).
 *
 * After a timeout the request may still be running on the server, so read-backs then get four
 * times the timed-out call's time, and an "absent" answer is checked once more when that long has
 * passed since the failure, before anything is sent again. A message still absent after the last
 * attempt is reported as unknown, not as not stored. Only an idempotency key on the service could
 * close the window entirely; `getMessages()` hides a duplicate that lands that late (it never
 * returns a client id twice).
 */
import type { CreateThreadRequest, Thread } from "../api-types";
import type { StudioClient } from "../client";
import type { RequestOptions } from "../client/options";
import { sleep } from "../client/retry";
import { type EncodedMessage, threadMessageClientId } from "../converters/thread-messages";
import {
  StudioAPIError,
  StudioConnectionError,
  StudioNotFoundError,
  StudioTimeoutError,
} from "../errors";
import { pauseBeforeRetry, type WritePolicy } from "./backoff";
import { StudioWriteNotConfirmedError, type WriteOutcome } from "./errors";
import { THREAD_KEY } from "./metadata";

/** How far back a check looks when it has no earlier message of ours to stop at. */
const MAX_SCAN = 500;
const PAGE = 100;
/**
 * After a timeout, how long (in multiples of the timed-out call's time) a write may still land:
 * read-backs get that long, and nothing is sent again before it has passed.
 */
const SETTLE_FACTOR = 4;

/** What a message of a failed write is known to be. */
export type MessageState = "stored" | "notStored" | "unknown";

/**
 * A write that stopped at `items[at]`: the items before it are stored, that one is `state`, and
 * the ones after it are `later` (not sent, unless the failed call carried them all, as a thread
 * creation does). `threadId` is set once the thread is known.
 */
export class PartialWrite extends Error {
  readonly at: number;
  readonly state: "notStored" | "unknown";
  readonly later: "notStored" | "unknown";
  readonly attempts: number;
  /** What could not be done, e.g. "store message 3 of 5 in thread T". */
  readonly what: string;
  readonly threadId: string | undefined;
  /** A sentence for the caller, e.g. naming a duplicate thread left behind. */
  readonly note: string | undefined;

  constructor(init: {
    at: number;
    state: "notStored" | "unknown";
    later?: "notStored" | "unknown";
    attempts: number;
    what: string;
    cause: unknown;
    threadId: string | undefined;
    note?: string | undefined;
  }) {
    const reason = init.cause instanceof Error ? init.cause.message : String(init.cause);
    super(`Could not ${init.what}: ${reason}`, { cause: init.cause });
    this.name = "PartialWrite";
    this.at = init.at;
    this.state = init.state;
    this.later = init.later ?? "notStored";
    this.attempts = init.attempts;
    this.what = init.what;
    this.threadId = init.threadId;
    this.note = init.note;
  }

  /** The same stop seen from a batch in which these items start at `offset`. */
  shifted(offset: number, threadId: string | undefined, note?: string): PartialWrite {
    return new PartialWrite({
      ...this,
      at: this.at + offset,
      cause: this.cause,
      threadId,
      note: note ?? this.note,
    });
  }

  /** State of each of `count` items of the stopped batch. */
  states(count: number): MessageState[] {
    return Array.from({ length: count }, (_, i) =>
      i < this.at ? "stored" : i === this.at ? this.state : this.later,
    );
  }
}

/** A write that stopped because its thread no longer exists (deleted, perhaps elsewhere). */
export function isThreadGone(error: unknown): error is PartialWrite & { threadId: string } {
  return (
    error instanceof PartialWrite &&
    error.threadId !== undefined &&
    error.cause instanceof StudioNotFoundError
  );
}

/**
 * Whether a failed write may nevertheless have been applied, or failed transiently (5xx, 408,
 * 409), so that reading back and writing again is the way forward. A connection refused before
 * anything was sent was already retried by the client, and 4xx answers are final: those are
 * raised as they are.
 */
export function isAmbiguousWriteFailure(error: unknown): boolean {
  if (error instanceof StudioConnectionError) return error.mayHaveReachedServer;
  if (error instanceof StudioTimeoutError) return true;
  if (error instanceof StudioAPIError) {
    return error.status >= 500 || error.status === 408 || error.status === 409;
  }
  return false;
}

/**
 * Waits, then asks `check` whether the failed write is there. After a timeout the write may still
 * be in flight: the reads get a longer time limit, and an "absent" is checked once more when the
 * settle window (SETTLE_FACTOR times the timed-out call's time, from the failure) has passed.
 * Read failures propagate (the caller reports the message as unknown).
 */
async function settle(
  policy: WritePolicy,
  attempt: number,
  failure: unknown,
  check: (options: RequestOptions | undefined) => Promise<boolean>,
): Promise<boolean> {
  const failedAt = Date.now();
  await pauseBeforeRetry(policy, attempt);
  if (!(failure instanceof StudioTimeoutError)) return check(undefined);
  const window = failure.timeoutMs * SETTLE_FACTOR;
  const options = { timeout: window };
  if (await check(options)) return true;
  await sleep(window - (Date.now() - failedAt), undefined);
  return check(options);
}

/**
 * Client ids of the newest messages of a thread, from the newest back to `anchor` (the client id
 * of the last message known to be stored before the ones looked for, which they can only follow),
 * or at most MAX_SCAN messages when there is no anchor.
 */
export async function recentClientIds(
  client: StudioClient,
  threadId: string,
  anchor: string | undefined,
  options?: RequestOptions,
): Promise<Set<string>> {
  const found = new Set<string>();
  let scanned = 0;
  const query = { order: "desc", limit: PAGE } as const;
  for await (const message of client.iterateMessages(threadId, query, options)) {
    const id = threadMessageClientId(message);
    if (anchor !== undefined && id === anchor) break;
    if (id !== undefined) found.add(id);
    scanned += 1;
    if (scanned >= MAX_SCAN) break;
  }
  return found;
}

/** Whether the thread holds a message written with `clientId` (newest back to `anchor`). */
export async function threadHasMessage(
  client: StudioClient,
  threadId: string,
  clientId: string,
  anchor: string | undefined,
  options?: RequestOptions,
): Promise<boolean> {
  let scanned = 0;
  const query = { order: "desc", limit: PAGE } as const;
  for await (const message of client.iterateMessages(threadId, query, options)) {
    const id = threadMessageClientId(message);
    if (id === clientId) return true;
    if (anchor !== undefined && id === anchor) return false;
    scanned += 1;
    if (scanned >= MAX_SCAN) return false;
  }
  return false;
}

/**
 * Writes once, and after an ambiguous failure settles it: waits, asks `landed` whether the write
 * is there, and writes again only when it is not, up to `policy.maxAttempts` writes. Resolves to
 * true when the write was found after a failure. `stop` builds the error for a write that cannot
 * go on: "notStored" when it is known absent, "unknown" when it may be there.
 */
async function writeSettled(
  policy: WritePolicy,
  write: () => Promise<void>,
  landed: (options: RequestOptions | undefined) => Promise<boolean>,
  stop: (state: "notStored" | "unknown", attempts: number, cause: unknown) => PartialWrite,
): Promise<boolean> {
  // A write that timed out may still land after any later check: from then on, "absent" can
  // only mean unknown, whatever the later attempts' failures were.
  let timedOut = false;
  for (let attempt = 1; ; attempt++) {
    let failure: unknown;
    try {
      await write();
      return false;
    } catch (error) {
      if (!isAmbiguousWriteFailure(error)) {
        throw stop(timedOut ? "unknown" : "notStored", attempt, error);
      }
      failure = error;
      timedOut ||= error instanceof StudioTimeoutError;
    }
    let found: boolean;
    try {
      found = await settle(policy, attempt, failure, landed);
    } catch (readError) {
      throw stop("unknown", attempt, readError);
    }
    if (found) return true;
    if (attempt >= policy.maxAttempts) {
      // Absent after a timeout may still land: only other failures are known to have failed.
      throw stop(timedOut ? "unknown" : "notStored", attempt, failure);
    }
  }
}

/**
 * Appends `batch` in order, each message settled before the next is sent. On the happy path this
 * is exactly one call per message and no reads.
 * @throws PartialWrite (positions in `batch`) when a message fails or cannot be settled.
 */
export async function appendConfirmed(
  client: StudioClient,
  policy: WritePolicy,
  threadId: string,
  batch: readonly EncodedMessage[],
  anchor: string | undefined,
): Promise<void> {
  let previous = anchor;
  for (const [index, message] of batch.entries()) {
    const what = `store message ${index + 1} of ${batch.length} in thread ${threadId}`;
    await writeSettled(
      policy,
      async () => {
        await client.createMessage(threadId, message.input);
      },
      (options) => threadHasMessage(client, threadId, message.clientId, previous, options),
      (state, attempts, cause) =>
        new PartialWrite({ at: index, state, attempts, what, cause, threadId }),
    );
    previous = message.clientId;
  }
}

/**
 * Threads carrying `key` in THREAD_KEY, oldest first, among the newest 200 threads (of the
 * dataset when one is given): a thread just created is among the newest.
 */
export async function findThreadsByKey(
  client: StudioClient,
  key: string,
  datasetId: string | undefined,
  options?: RequestOptions,
): Promise<Thread[]> {
  const found: Thread[] = [];
  let scanned = 0;
  const query = { ...(datasetId === undefined ? {} : { datasetId }), order: "desc" as const };
  for await (const thread of client.iterateThreads({ ...query, limit: PAGE }, options)) {
    if (thread.metadata?.[THREAD_KEY] === key) found.unshift(thread);
    scanned += 1;
    if (scanned >= 2 * PAGE) break;
  }
  return found;
}

export interface CreatedThread {
  thread: Thread;
  /** True when the create call failed but the thread was found: its messages need checking. */
  foundAfterFailure: boolean;
}

/**
 * Creates a thread (with its first messages in the same call), settling an ambiguous failure by
 * looking for the thread's key among the newest threads. `body.metadata` must hold `THREAD_KEY`.
 * @throws PartialWrite (at 0, threadId undefined) when the thread was not created or its
 * creation could not be settled ("unknown": look it up by key before creating another).
 */
export async function createThreadConfirmed(
  client: StudioClient,
  policy: WritePolicy,
  body: CreateThreadRequest & { metadata: Record<string, string> },
): Promise<CreatedThread> {
  const key = body.metadata[THREAD_KEY];
  if (key === undefined) throw new Error(`createThreadConfirmed needs metadata.${THREAD_KEY}`);
  let thread: Thread | undefined;
  const foundAfterFailure = await writeSettled(
    policy,
    async () => {
      thread = await client.createThread(body);
    },
    async (options) => {
      thread = (await findThreadsByKey(client, key, body.datasetId, options))[0];
      return thread !== undefined;
    },
    // The create carries all the messages: they share the thread's fate.
    (state, attempts, cause) =>
      new PartialWrite({
        at: 0,
        state,
        later: state,
        attempts,
        what: "create the thread",
        cause,
        threadId: undefined,
      }),
  );
  return { thread: thread!, foundAfterFailure };
}

/**
 * After a thread was found following a failed create, makes sure the messages of that call are
 * all there: the create is atomic on well-behaved services (one read, nothing to write), and on
 * others the missing tail is appended.
 * @throws PartialWrite (positions in `batch`, threadId set) when the check or the tail fails.
 */
export async function completeBatch(
  client: StudioClient,
  policy: WritePolicy,
  threadId: string,
  batch: readonly EncodedMessage[],
): Promise<void> {
  if (batch.length === 0) return;
  let present: Set<string>;
  try {
    present = await recentClientIds(client, threadId, undefined);
  } catch (error) {
    const what = `confirm the messages of new thread ${threadId}`;
    throw new PartialWrite({
      at: 0,
      state: "unknown",
      later: "unknown",
      attempts: 1,
      what,
      cause: error,
      threadId,
    });
  }
  let last = -1;
  batch.forEach((message, index) => {
    if (present.has(message.clientId)) last = index;
  });
  if (last === batch.length - 1) return;
  try {
    await appendConfirmed(client, policy, threadId, batch.slice(last + 1), batch[last]?.clientId);
  } catch (error) {
    if (!(error instanceof PartialWrite)) throw error;
    throw error.shifted(last + 1, threadId);
  }
}

/**
 * The error a caller sees for a stopped write. `positions[i]` is the index, in the caller's
 * messages, of the i-th item of the stopped batch; `alreadyStored` are indexes stored before it.
 */
export function notConfirmedError(
  partial: PartialWrite,
  positions: readonly number[],
  total: number,
  alreadyStored: readonly number[] = [],
): StudioWriteNotConfirmedError {
  const outcome: WriteOutcome = { stored: [...alreadyStored], notStored: [], unknown: [] };
  if (isThreadGone(partial)) {
    // Whatever the thread held, of this call or of earlier ones, went with it.
    outcome.stored = [];
    outcome.notStored = Array.from({ length: total }, (_, i) => i);
  } else {
    partial.states(positions.length).forEach((state, i) => {
      outcome[state].push(positions[i]!);
    });
  }
  return new StudioWriteNotConfirmedError({
    ...outcome,
    threadId: partial.threadId,
    totalCount: total,
    attempts: partial.attempts,
    what: partial.what,
    cause: partial.cause,
    ...(partial.note === undefined ? {} : { note: partial.note }),
  });
}
