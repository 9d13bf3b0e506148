/**
 * The part splitter and the part reader every stored kind shares. A record is JSON text; when it
 * is longer than one message (or one metadata value) holds, it is cut into parts, and the parts
 * of a message record carry `record` (an id) and `part` ("2/11", 1-based) in metadata. A record
 * missing a part is not read, so a write cut short never surfaces as damaged data.
 */
import type { ContentItem, ThreadMessage } from "../api-types";
import { contentItemText, METADATA_LIMITS } from "../api-types";

/** Message metadata naming the record a part belongs to, and which part it is ("2/11"). */
export const PART_RECORD_KEY = "record";
export const PART_KEY = "part";

/**
 * Cuts `text` into pieces of at most `size` UTF-16 units (default: a metadata value's limit),
 * never between the two halves of a surrogate pair: a lone surrogate is not valid Unicode, and a
 * service that stores UTF-8 would turn each half into U+FFFD, silently.
 */
export function splitText(text: string, size: number = METADATA_LIMITS.maxValueLength): string[] {
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(at + size, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** A message's text as stored records read it (both text forms of the service family). */
export function messageText(content: readonly ContentItem[]): string {
  return content.map((item) => contentItemText(item) ?? "").join("");
}

/** A new message as the client's `createMessage` takes it. */
export interface RecordMessage {
  role: "assistant";
  content: string;
  metadata: Record<string, string>;
}

/**
 * The messages holding one record's `text`: one message, or (longer than `maxChars`) one per part,
 * each with `metadata` and the part's place.
 */
export function recordMessages(
  text: string,
  metadata: Record<string, string>,
  maxChars: number,
  newRecordId: () => string = () => crypto.randomUUID(),
): RecordMessage[] {
  if (text.length <= maxChars) return [{ role: "assistant", content: text, metadata }];
  const parts = splitText(text, maxChars);
  const record = newRecordId();
  return parts.map((content, i) => ({
    role: "assistant",
    content,
    metadata: { ...metadata, [PART_RECORD_KEY]: record, [PART_KEY]: `${i + 1}/${parts.length}` },
  }));
}

/** Where a message sits in a split record. */
export interface PartPlace {
  record: string;
  /** 0-based. */
  index: number;
  count: number;
}

/** The message's place in a split record, or undefined for a whole record (or a bad place). */
function partOf(metadata: Readonly<Record<string, unknown>>): PartPlace | undefined {
  const record = metadata[PART_RECORD_KEY];
  const part = metadata[PART_KEY];
  if (typeof record !== "string" || typeof part !== "string") return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(part);
  if (!match) return undefined;
  const index = Number(match[1]) - 1;
  const count = Number(match[2]);
  return index >= 0 && index < count ? { record, index, count } : undefined;
}

/** A split record whose parts are not all read yet. */
interface PendingRecord<T> {
  /** By part index; a hole is a part not read yet. */
  parts: (T | undefined)[];
  /** Every part read, in reading order, duplicates included. */
  read: T[];
}

/**
 * Parts waiting for the rest of their record, read in any order (newest first, oldest first,
 * over several calls). `add` hands the record's parts back, in order, once the last one arrives.
 */
class PendingParts<T> {
  readonly #pending = new Map<string, PendingRecord<T>>();

  add(place: PartPlace, part: T): { parts: T[]; read: T[] } | undefined {
    const pending = this.#pending.get(place.record) ?? {
      parts: new Array<T | undefined>(place.count),
      read: [],
    };
    pending.parts[place.index] = part;
    pending.read.push(part);
    this.#pending.set(place.record, pending);
    const parts: T[] = [];
    for (let i = 0; i < pending.parts.length; i++) {
      const found = pending.parts[i];
      if (found === undefined) return undefined;
      parts.push(found);
    }
    this.#pending.delete(place.record);
    return { parts, read: pending.read };
  }

  /** The records still missing parts. */
  waiting(): IterableIterator<PendingRecord<T>> {
    return this.#pending.values();
  }

  /** Forgets the records some part of which `drop` picks. */
  dropWhere(drop: (part: T) => boolean): void {
    for (const [id, pending] of this.#pending) {
      if (pending.read.some(drop)) this.#pending.delete(id);
    }
  }
}

/** A record read whole from its message(s). */
export interface AssembledRecord<T> {
  /** The record's JSON parsed; undefined when it does not parse. */
  value: unknown;
  /** Whether the record was split over several messages. */
  split: boolean;
  /** What the caller kept of each message, in part order. */
  parts: T[];
  /** What the caller kept of each message, in reading order, duplicate parts included. */
  read: T[];
}

/**
 * The reading every stored kind that splits its records does: a message holding a whole record
 * gives it at once; a part waits for the rest of its record, read in any order. `T` is what the
 * caller keeps of each message (its id, its place, its time).
 */
export class RecordAssembler<T> {
  readonly #pending = new PendingParts<{ text: string; kept: T }>();

  /** The record `message` completes, or undefined while parts of its record are missing. */
  add(
    message: Pick<ThreadMessage, "content" | "metadata">,
    kept: T,
  ): AssembledRecord<T> | undefined {
    const text = messageText(message.content);
    const place = partOf(message.metadata ?? {});
    if (!place) return { value: parseJson(text), split: false, parts: [kept], read: [kept] };
    const whole = this.#pending.add(place, { text, kept });
    if (!whole) return undefined;
    return {
      value: parseJson(whole.parts.map((part) => part.text).join("")),
      split: true,
      parts: whole.parts.map((part) => part.kept),
      read: whole.read.map((part) => part.kept),
    };
  }

  /** What was kept of the messages of each record still missing parts, in reading order. */
  *waiting(): IterableIterator<T[]> {
    for (const pending of this.#pending.waiting()) yield pending.read.map((part) => part.kept);
  }

  /** Forgets the records some message of which `drop` picks. */
  dropWhere(drop: (kept: T) => boolean): void {
    this.#pending.dropWhere((part) => drop(part.kept));
  }
}

/** A record's JSON text parsed; undefined when it does not parse. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Someone else's message, or a damaged one: not a record to read.
    return undefined;
  }
}
