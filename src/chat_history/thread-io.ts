/**
 * The history's calls to the service, in one place: reading a thread (whole, or from its newest
 * end), creating the history's own thread exactly once, appending to a known thread. Everything
 * that decides what to read or write is in the planners (`window.ts`, `threads/write-batch.ts`).
 */
import type { Metadata, ThreadMessage } from "../api-types";
import type { StudioClient } from "../client";
import type { EncodedMessage } from "../converters/thread-messages";
import type { WritePolicy } from "../threads/backoff";
import { completeBatch, createThreadConfirmed, PartialWrite } from "../threads/confirmed-writes";
import { THREAD_KEY } from "../threads/metadata";
import { firstOfEachClientId, NewestMessages } from "./window";

const PAGE = 100;

/** Every message of the thread, oldest first, each client id once. */
export async function readAll(client: StudioClient, threadId: string): Promise<ThreadMessage[]> {
  const messages: ThreadMessage[] = [];
  for await (const message of client.iterateMessages(threadId, { order: "asc", limit: PAGE })) {
    messages.push(message);
  }
  return firstOfEachClientId(messages);
}

/**
 * The newest `count` messages, oldest first, read from the newest end: one call when count <= 100.
 */
export async function readNewest(
  client: StudioClient,
  threadId: string,
  count: number,
): Promise<ThreadMessage[]> {
  const newest = new NewestMessages(count);
  const query = { order: "desc" as const, limit: Math.min(count, PAGE) };
  for await (const message of client.iterateMessages(threadId, query)) {
    if (!newest.add(message)) break;
  }
  return newest.oldestFirst();
}

export interface NewThreadInit {
  title: string | undefined;
  metadata: Metadata | undefined;
  datasetId: string | undefined;
  /** The key of an earlier creation that may have happened (looked for before creating again). */
  key: string;
}

/**
 * Creates the history's thread with `batch`, exactly once: the key in its metadata finds it after
 * an ambiguous failure. Resolves to the thread's id.
 * @throws PartialWrite (`creationUnknown` says whether the key must be looked for next time).
 */
export async function createHistoryThread(
  client: StudioClient,
  policy: WritePolicy,
  batch: readonly EncodedMessage[],
  init: NewThreadInit,
): Promise<string> {
  const metadata: Record<string, string> = { ...init.metadata, [THREAD_KEY]: init.key };
  const { thread, foundAfterFailure } = await createThreadConfirmed(client, policy, {
    messages: batch.map((message) => message.input),
    metadata,
    ...(init.title === undefined ? {} : { title: init.title }),
    ...(init.datasetId === undefined ? {} : { datasetId: init.datasetId }),
  });
  // The thread is known from here on: a failure completing it names it (`PartialWrite.threadId`).
  if (foundAfterFailure) await completeBatch(client, policy, thread.id, batch);
  return thread.id;
}

/** Whether a failed creation may have created the thread: look its key up before creating again. */
export function creationUnknown(error: unknown): boolean {
  return error instanceof PartialWrite && error.threadId === undefined && error.state === "unknown";
}
