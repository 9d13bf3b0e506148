/**
 * The thread metadata this library writes for itself, and the one check of a caller's metadata
 * against it: valid metadata, none of the reserved keys, and room left for them.
 */
import type { Metadata } from "../api-types";
import { METADATA_LIMITS } from "../api-types";
import { StudioValidationError } from "../errors";
import { KIND_KEY } from "../records/kinds";
import { validateMetadata } from "../validation";

/** Client-made key of a thread being created: finds it when the answer to its create is lost. */
export const THREAD_KEY = "lc_thread_key";
/** The caller's own id for the thread (a history's `sessionId`, a LangGraph `thread_id`). */
export const SESSION_KEY = "lc_session";
/** What a session's thread holds: "history", "checkpoint" or "store" (`KIND_KEY`). */
export { KIND_KEY };
/** Metadata keys a session's thread reserves. */
export const SESSION_RESERVED_KEYS = [SESSION_KEY, KIND_KEY, THREAD_KEY] as const;

/**
 * Checks a caller's `metadata` for a thread created by `owner` ("the history", "the session"),
 * which adds its own `reserved` keys.
 */
export function checkThreadMetadata(
  metadata: Metadata | undefined,
  reserved: readonly string[],
  owner: string,
): void {
  if (metadata === undefined) return;
  validateMetadata("metadata", metadata);
  for (const key of reserved) {
    if (Object.hasOwn(metadata, key)) {
      throw new StudioValidationError(`metadata.${key}`, `is reserved for ${owner}`);
    }
  }
  const room = METADATA_LIMITS.maxKeys - reserved.length;
  const count = Object.keys(metadata).length;
  if (count > room) {
    throw new StudioValidationError(
      "metadata",
      `has ${count} keys; ${owner}'s thread takes at most ${room} besides its own ` +
        `${reserved.map((key) => `"${key}"`).join(", ")}`,
    );
  }
}
