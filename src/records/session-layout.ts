/**
 * The account's record that sessions are filed by dataset (kind `session-layout`): a thread in
 * the dataset "lc-sessions" tagged `lc_kind: "session-layout"`, created before the first session
 * thread (why: `threads/session-datasets.ts`). It has no messages. Format 1 carries no marker; a
 * later one writes `lc_format` in its metadata.
 */
import { KIND_KEY, readsMarkedFormat, SESSION_LAYOUT_KIND } from "./kinds";

/** Dataset of the record saying that this account's sessions are filed by dataset. */
export const LAYOUT_DATASET = "lc-sessions";

/** The thread to create as the record. */
export function layoutThread(): {
  title: string;
  metadata: Record<string, string>;
  datasetId: string;
} {
  return {
    title: "langchain-studio: sessions are filed by dataset (keep this thread)",
    metadata: { [KIND_KEY]: SESSION_LAYOUT_KIND.name },
    datasetId: LAYOUT_DATASET,
  };
}

/**
 * Whether a thread's metadata marks the record.
 * @throws StudioStoredFormatError for a record of a newer format.
 */
export function isLayoutRecord(
  metadata: Readonly<Record<string, unknown>> | null | undefined,
): boolean {
  if (metadata?.[KIND_KEY] !== SESSION_LAYOUT_KIND.name) return false;
  return readsMarkedFormat(SESSION_LAYOUT_KIND, metadata);
}
