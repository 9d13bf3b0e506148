/**
 * Writes to a thread that never duplicate and are never silently lost.
 *
 * The client does not repeat a call that creates state once the request may have reached the
 * server (the repeat could create it twice). This module settles such ambiguous failures itself:
 * every message carries a client-made id (`lc_id`) and every new thread a client-made key
 * (`lc_thread_key`), so after a timeout, a reset or a 5xx it reads the thread back, and writes
 * again only what is not there. Attempts are bounded; what cannot be settled raises
 * `StudioWriteNotConfirmedError`.
 *
 * Limit: a request that is still being processed when the check runs (a slow server after a
 * client timeout) can land after the check said "absent"; `confirmDelayMs` makes that unlikely,
 * only an idempotency key on the service could make it impossible.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { CreateThreadRequest, Thread } from "../api-types";
import type { StudioClient } from "../client";
import { type EncodedMessage, threadMessageClientId } from "../converters/thread-messages";
import { StudioAPIError, StudioConnectionError, StudioTimeoutError } from "../errors";
import { StudioWriteNotConfirmedError } from "./errors";

/** Thread metadata key holding the client-made key of a thread created by the history. */
export const THREAD_KEY = "lc_thread_key";

export interface WritePolicy {
  /** Attempts per message and per thread creation, the first one included. */
  maxAttempts: number;
  /** Pause before reading the thread back after an ambiguous failure; doubles per attempt. */
  confirmDelayMs: number;
}

/** How far back a check looks when it has no earlier message of ours to stop at. */
const MAX_SCAN = 500;
const PAGE = 100;

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

function pause(policy: WritePolicy, attempt: number): Promise<void> {
  const ms = Math.min(policy.confirmDelayMs * 2 ** (attempt - 1), 10_000);
  return ms > 0 ? delay(ms) : Promise.resolve();
}

/**
 * Whether the thread holds a message written with `clientId`, looking from the newest message
 * back to `anchor` (the client id of the last message known to be stored before it, which a new
 * write can only follow).
 */
export async function threadHasMessage(
  client: StudioClient,
  threadId: string,
  clientId: string,
  anchor: string | undefined,
): Promise<boolean> {
  let scanned = 0;
  for await (const message of client.iterateMessages(threadId, { order: "desc", limit: PAGE })) {
    const id = threadMessageClientId(message);
    if (id === clientId) return true;
    if (anchor !== undefined && id === anchor) return false;
    scanned += 1;
    if (scanned >= MAX_SCAN) return false;
  }
  return false;
}

/**
 * Appends `batch[start..]` in order, each message settled before the next is sent. On the happy
 * path this is exactly one call per message and no reads.
 */
export async function appendConfirmed(
  client: StudioClient,
  policy: WritePolicy,
  threadId: string,
  batch: readonly EncodedMessage[],
  anchor: string | undefined,
  start = 0,
): Promise<void> {
  let previous = anchor;
  for (let index = start; index < batch.length; index++) {
    const message = batch[index]!;
    for (let attempt = 1; ; attempt++) {
      let failure: unknown;
      try {
        await client.createMessage(threadId, message.input);
        break;
      } catch (error) {
        if (!isAmbiguousWriteFailure(error)) throw error;
        failure = error;
      }
      const unconfirmed = (cause: unknown) =>
        new StudioWriteNotConfirmedError({
          threadId,
          storedCount: index,
          totalCount: batch.length,
          attempts: attempt,
          what: `that message ${index + 1} of ${batch.length} was stored in thread ${threadId}`,
          cause,
        });
      let stored: boolean;
      try {
        await pause(policy, attempt);
        stored = await threadHasMessage(client, threadId, message.clientId, previous);
      } catch (readError) {
        throw unconfirmed(readError);
      }
      if (stored) break;
      if (attempt >= policy.maxAttempts) throw unconfirmed(failure);
    }
    previous = message.clientId;
  }
}

async function findThreadByKey(
  client: StudioClient,
  key: string,
  datasetId: string | undefined,
): Promise<Thread | undefined> {
  let scanned = 0;
  const query = datasetId === undefined ? {} : { datasetId };
  for await (const thread of client.iterateThreads({ ...query, order: "desc", limit: PAGE })) {
    if (thread.metadata?.[THREAD_KEY] === key) return thread;
    scanned += 1;
    if (scanned >= 2 * PAGE) return undefined;
  }
  return undefined;
}

export interface CreatedThread {
  thread: Thread;
  /** True when the create call failed but the thread was found: its messages need checking. */
  foundAfterFailure: boolean;
}

/**
 * Creates a thread (with its first messages in the same call), settling an ambiguous failure by
 * looking for the thread's key among the newest threads. `body.metadata` must hold `THREAD_KEY`.
 */
export async function createThreadConfirmed(
  client: StudioClient,
  policy: WritePolicy,
  body: CreateThreadRequest & { metadata: Record<string, string> },
): Promise<CreatedThread> {
  const key = body.metadata[THREAD_KEY];
  if (key === undefined) throw new Error(`createThreadConfirmed needs metadata.${THREAD_KEY}`);
  const total = body.messages?.length ?? 0;
  for (let attempt = 1; ; attempt++) {
    let failure: unknown;
    try {
      return { thread: await client.createThread(body), foundAfterFailure: false };
    } catch (error) {
      if (!isAmbiguousWriteFailure(error)) throw error;
      failure = error;
    }
    const unconfirmed = (cause: unknown) =>
      new StudioWriteNotConfirmedError({
        threadId: undefined,
        storedCount: 0,
        totalCount: total,
        attempts: attempt,
        what: "that the thread was created",
        cause,
      });
    let found: Thread | undefined;
    try {
      await pause(policy, attempt);
      found = await findThreadByKey(client, key, body.datasetId);
    } catch (readError) {
      throw unconfirmed(readError);
    }
    if (found) return { thread: found, foundAfterFailure: true };
    if (attempt >= policy.maxAttempts) throw unconfirmed(failure);
  }
}

/**
 * After a thread was found following a failed create, makes sure the messages of that call are
 * all there: the create is atomic on well-behaved services (one read, nothing to write), and on
 * others the missing tail is appended.
 */
export async function completeBatch(
  client: StudioClient,
  policy: WritePolicy,
  threadId: string,
  batch: readonly EncodedMessage[],
): Promise<void> {
  if (batch.length === 0) return;
  const present = new Set<string>();
  let scanned = 0;
  for await (const message of client.iterateMessages(threadId, { order: "desc", limit: PAGE })) {
    const id = threadMessageClientId(message);
    if (id !== undefined) present.add(id);
    scanned += 1;
    if (scanned >= MAX_SCAN) break;
  }
  let last = -1;
  batch.forEach((message, index) => {
    if (present.has(message.clientId)) last = index;
  });
  if (last === batch.length - 1) return;
  await appendConfirmed(client, policy, threadId, batch, batch[last]?.clientId, last + 1);
}
