/**
 * StudioChatMessageHistory's messages (kind `history-message`): one LangChain message per thread
 * message. The readable content is in the content items; the rest is a JSON record split over
 * metadata values (512 characters each, 16 keys a message):
 *   `lc_type`     the LangChain message type: human, ai, system, tool, function, generic
 *   `lc_id`       the client-made id of the write (a uuid), which confirms an ambiguous write
 *   `lc_data_<n>` JSON `{ data?, refs?, esc? }` in pieces: core's `StoredMessage.data` without
 *                 what the content items hold, which content values the items fill back in, and
 *                 which text items are written escaped (they held lone surrogates)
 * Format 1 is the only one so far and carries no marker; a later one writes `lc_format`.
 */
import * as z from "zod/v4/mini";
import { METADATA_LIMITS } from "../api-types";
import { useEnglishMessages } from "../zod-locale";
import { HISTORY_MESSAGE_KIND, readsMarkedFormat } from "./kinds";
import { splitText } from "./parts";

useEnglishMessages();

/** Every key the codec writes starts with this, so foreign metadata is never mistaken for ours. */
export const CODEC_PREFIX = "lc_";

export const CODEC_KEYS = {
  /** LangChain message type: human, ai, system, tool, function, generic. */
  type: "lc_type",
  /** Client-made id of the write (a uuid), used to confirm a write after an ambiguous failure. */
  clientId: "lc_id",
  /** `lc_data_0`, `lc_data_1`...: the JSON record, split into values of at most 512 chars. */
  dataPrefix: "lc_data_",
} as const;

/** Keys left for the JSON record once `lc_type` and `lc_id` are written. */
export const MAX_DATA_KEYS = METADATA_LIMITS.maxKeys - 2;

/** Largest JSON record a message can carry. */
export const MAX_DATA_CHARS = MAX_DATA_KEYS * METADATA_LIMITS.maxValueLength;

/** `[blockIndex, path]`: the n-th content item fills `content[blockIndex]` at `path`. */
const contentRef = z.tuple([z.number(), z.enum(["text", "image_url", "image_url.url", "url"])]);

/** Format 1's record. */
export const HISTORY_RECORD_1 = z.object({
  data: z.optional(z.record(z.string(), z.unknown())),
  refs: z.optional(z.array(contentRef)),
  esc: z.optional(z.array(z.number().check(z.int()))),
});

export type HistoryRecord = z.infer<typeof HISTORY_RECORD_1>;

/** Writes `text` as `lc_data_0..n` entries (none for an empty text). */
export function dataEntries(text: string): Record<string, string> {
  const entries: Record<string, string> = {};
  splitText(text, METADATA_LIMITS.maxValueLength).forEach((piece, index) => {
    entries[`${CODEC_KEYS.dataPrefix}${index}`] = piece;
  });
  return entries;
}

/**
 * Reads back the text written by `dataEntries`, or `undefined` when there is none. Throws when a
 * piece below the highest one is missing (a lost last piece shows up as JSON that does not parse).
 */
export function readDataEntries(metadata: Record<string, unknown>): string | undefined {
  let highest = -1;
  for (const key of Object.keys(metadata)) {
    if (!key.startsWith(CODEC_KEYS.dataPrefix)) continue;
    const index = Number(key.slice(CODEC_KEYS.dataPrefix.length));
    if (Number.isInteger(index) && index >= 0 && index < 64) highest = Math.max(highest, index);
  }
  if (highest < 0) return undefined;
  const pieces: string[] = [];
  for (let index = 0; index <= highest; index++) {
    const piece = metadata[`${CODEC_KEYS.dataPrefix}${index}`];
    if (typeof piece !== "string") {
      throw new Error(`metadata piece ${CODEC_KEYS.dataPrefix}${index} is missing`);
    }
    pieces.push(piece);
  }
  return pieces.join("");
}

/**
 * Whether a thread message's metadata is a history message this version reads (it carries
 * `lc_type`). @throws StudioStoredFormatError for a message of a newer format.
 */
export function isHistoryMessage(
  metadata: Readonly<Record<string, unknown>> | null | undefined,
): boolean {
  if (typeof metadata?.[CODEC_KEYS.type] !== "string") return false;
  return readsMarkedFormat(HISTORY_MESSAGE_KIND, metadata);
}

/**
 * The record a message's metadata holds (`{}` when none).
 * @throws Error naming what is wrong, when the pieces or the JSON are damaged.
 */
export function readHistoryRecord(metadata: Record<string, unknown>): HistoryRecord {
  const json = readDataEntries(metadata);
  if (json === undefined) return {};
  const parsed = HISTORY_RECORD_1.safeParse(JSON.parse(json));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `'s ${issue.path.join(".")}` : "";
    throw new Error(`the metadata record${where} is not as written: ${issue?.message ?? ""}`);
  }
  return parsed.data;
}
