/**
 * The agent server's chat threads. A chat thread is a service thread tagged `lc_kind:
 * "chat-thread"` and `lc_owner: <hash of its owner>` (kind `chat-thread`); what changes about it
 * (metadata, status, title, preview, `updated_at`) is one snapshot message in it, JSON of the
 * thread as the UI lists it, tagged `lc_kind: "chat-thread-view"` (kind `chat-thread-view`).
 * Format 1 of both carries no marker; a later one writes `lc_format`.
 *
 * Format 2 of a snapshot is the thread's first, written with the thread itself (the create
 * call's `messages`: one call, not two). The thread's id is the service's, unknown until that
 * call answers, so the snapshot has no `thread_id`: it is the thread the message is in. Later
 * snapshots are format 1, as before; the first stays (nobody learns its id without a read, and
 * deleting it would cost a call), and is read only while the thread has no other snapshot.
 */
import * as z from "zod/v4/mini";
import type { ThreadMessage } from "../api-types";
import { useEnglishMessages } from "../zod-locale";
import {
  CHAT_THREAD_KIND,
  CHAT_THREAD_VIEW_KIND,
  FORMAT_KEY,
  KIND_KEY,
  readsMarkedFormat,
} from "./kinds";
import { messageText, parseJson, type RecordMessage } from "./parts";

useEnglishMessages();

/** Thread metadata key holding the hash of the thread's owner. */
export const OWNER_KEY = "lc_owner";

/** Format 1 of a snapshot: the server's thread view; the reader relies on its id alone. */
const SNAPSHOT_1 = z.looseObject({ thread_id: z.string() });
/** Format 2: the first snapshot, written with its thread (the message's thread is its id). */
const SNAPSHOT_2 = z.looseObject({ thread_id: z.optional(z.never()) });

/** The metadata of a chat thread of the owner whose hash is `ownerHash`. */
export function chatThreadMetadata(ownerHash: string): Record<string, string> {
  return { [KIND_KEY]: CHAT_THREAD_KIND.name, [OWNER_KEY]: ownerHash };
}

/**
 * Whether a thread's metadata marks a chat thread of the owner whose hash is `ownerHash`.
 * @throws StudioStoredFormatError for a chat thread of a newer format.
 */
export function isChatThread(
  metadata: Readonly<Record<string, unknown>> | null | undefined,
  ownerHash: string,
): boolean {
  if (metadata?.[KIND_KEY] !== CHAT_THREAD_KIND.name || metadata[OWNER_KEY] !== ownerHash) {
    return false;
  }
  return readsMarkedFormat(CHAT_THREAD_KIND, metadata);
}

/** The message holding a snapshot of `view`. */
export function snapshotMessage(view: { thread_id: string }): RecordMessage {
  return {
    role: "assistant",
    content: JSON.stringify(view),
    metadata: { [KIND_KEY]: CHAT_THREAD_VIEW_KIND.name },
  };
}

/**
 * The message holding a thread's first snapshot, written with the thread (format 2): `view`
 * without its `thread_id`, which the service assigns in the same call.
 */
export function firstSnapshotMessage(view: object): RecordMessage {
  return {
    role: "assistant",
    content: JSON.stringify(view),
    metadata: { [KIND_KEY]: CHAT_THREAD_VIEW_KIND.name, [FORMAT_KEY]: "2" },
  };
}

/** A snapshot read back: the view, and whether it is the thread's first (format 2). */
export interface Snapshot<T> {
  view: T;
  first: boolean;
}

/**
 * The view a snapshot message of the thread `threadId` holds; undefined for another message or a
 * damaged snapshot. (The thread is passed in: a message's `threadId` is optional on the wire.)
 * @throws StudioStoredFormatError for a snapshot of a newer format.
 */
export function readSnapshot<T extends { thread_id: string }>(
  message: ThreadMessage,
  threadId: string,
): Snapshot<T> | undefined {
  const metadata = message.metadata;
  if (metadata?.[KIND_KEY] !== CHAT_THREAD_VIEW_KIND.name) return undefined;
  if (!readsMarkedFormat(CHAT_THREAD_VIEW_KIND, metadata)) return undefined;
  const view = parseJson(messageText(message.content));
  if (metadata[FORMAT_KEY] === undefined) {
    return SNAPSHOT_1.safeParse(view).success ? { view: view as T, first: false } : undefined;
  }
  if (!SNAPSHOT_2.safeParse(view).success) return undefined;
  return { view: { ...(view as object), thread_id: threadId } as T, first: true };
}
