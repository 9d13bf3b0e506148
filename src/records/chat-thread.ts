/**
 * The agent server's chat threads. A chat thread is a service thread tagged `lc_kind:
 * "chat-thread"` and `lc_owner: <hash of its owner>` (kind `chat-thread`); what changes about it
 * (metadata, status, title, preview, `updated_at`) is one snapshot message in it, JSON of the
 * thread as the UI lists it, tagged `lc_kind: "chat-thread-view"` (kind `chat-thread-view`).
 * Format 1 of both carries no marker; a later one writes `lc_format`.
 */
import * as z from "zod/v4/mini";
import type { ThreadMessage } from "../api-types";
import { useEnglishMessages } from "../zod-locale";
import { CHAT_THREAD_KIND, CHAT_THREAD_VIEW_KIND, KIND_KEY, readsMarkedFormat } from "./kinds";
import { messageText, parseJson, type RecordMessage } from "./parts";

useEnglishMessages();

/** Thread metadata key holding the hash of the thread's owner. */
export const OWNER_KEY = "lc_owner";

/** Format 1 of a snapshot: the server's thread view; the reader relies on its id alone. */
const SNAPSHOT_1 = z.looseObject({ thread_id: z.string() });

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
 * The view a snapshot message holds; undefined for another message or a damaged snapshot.
 * @throws StudioStoredFormatError for a snapshot of a newer format.
 */
export function readSnapshot<T extends { thread_id: string }>(
  message: ThreadMessage,
): T | undefined {
  const metadata = message.metadata;
  if (metadata?.[KIND_KEY] !== CHAT_THREAD_VIEW_KIND.name) return undefined;
  if (!readsMarkedFormat(CHAT_THREAD_VIEW_KIND, metadata)) return undefined;
  const view = parseJson(messageText(message.content));
  return SNAPSHOT_1.safeParse(view).success ? (view as T) : undefined;
}
