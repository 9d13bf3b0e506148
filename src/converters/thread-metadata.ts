/**
 * The metadata keys the codec writes on a thread message, and the splitting of a long JSON text
 * across several of them (metadata values are limited to 512 characters, 16 keys per message).
 */
import type { Metadata } from "../api-types";
import { METADATA_LIMITS } from "../api-types";

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

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Splits `text` into pieces of at most `size` UTF-16 units, never between the two halves of a
 * surrogate pair: a lone surrogate is not valid Unicode, and a service that re-encodes strings
 * (to UTF-8 in a database, say) would replace it and corrupt the record.
 */
export function splitText(text: string, size: number = METADATA_LIMITS.maxValueLength): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/** Writes `text` as `lc_data_0..n` entries (none for an empty text). */
export function dataEntries(text: string): Metadata {
  const entries: Metadata = {};
  splitText(text).forEach((piece, index) => {
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
