/**
 * A client-chosen id of an agent server chat thread (`POST /threads` with `thread_id`, protocol
 * v2's `run.start` on a new id): a service thread of its own, tagged `lc_kind:
 * "chat-thread-id"`, `lc_owner: <owner hash>` and `lc_target: <the chat thread's id>`, filed
 * under a dataset named after the owner and the id, so that one listing finds it. It has no
 * messages. Format 1 carries no marker; a later one writes `lc_format`.
 */
import { CHAT_THREAD_ID_KIND, KIND_KEY, readsMarkedFormat } from "./kinds";

/** Thread metadata key naming the chat thread a client id stands for. */
export const TARGET_KEY = "lc_target";
const OWNER_KEY = "lc_owner";

/** The metadata of the id thread of `ownerHash`'s chat thread `target`. */
export function chatThreadIdMetadata(ownerHash: string, target: string): Record<string, string> {
  return { [KIND_KEY]: CHAT_THREAD_ID_KIND.name, [OWNER_KEY]: ownerHash, [TARGET_KEY]: target };
}

/**
 * The chat thread id an id thread of `ownerHash` names, or undefined for another thread.
 * @throws StudioStoredFormatError for an id thread of a newer format.
 */
export function chatThreadTarget(
  metadata: Readonly<Record<string, unknown>> | null | undefined,
  ownerHash: string,
): string | undefined {
  if (metadata?.[KIND_KEY] !== CHAT_THREAD_ID_KIND.name || metadata[OWNER_KEY] !== ownerHash) {
    return undefined;
  }
  if (!readsMarkedFormat(CHAT_THREAD_ID_KIND, metadata)) return undefined;
  const target = metadata[TARGET_KEY];
  return typeof target === "string" && target !== "" ? target : undefined;
}
