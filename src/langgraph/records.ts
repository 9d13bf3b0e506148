/**
 * The storage mapping: what a LangGraph checkpoint, a task's writes, or a set of channel values
 * look like as messages of a service thread. Pure functions only; the saver does the I/O.
 *
 * One record per `put` or `putWrites` (and one "values" record per `prune`). The record is JSON in
 * the message content (content is the only place with room: metadata takes 16 string values of at
 * most 512 characters). A record longer than `partChars` is split over several messages that
 * share a `record` id in metadata and are reassembled in `part` order; a record missing a part is
 * ignored, so a write cut short never surfaces as a damaged checkpoint. Metadata repeats a few
 * fields so a person reading the thread in the dashboard sees what each message is.
 */
import type { ContentItem, ThreadMessage } from "../api-types";
import { contentItemText, METADATA_LIMITS } from "../api-types";
import { fromBase64, toBase64 } from "../converters/base64";
import { StudioError } from "../errors";

/** Written into every record; a reader skips records of a format it does not know. */
export const RECORD_FORMAT = 2;
/**
 * The format of a record holding a spliced value (appended items after a cut, `keepChars`) or a
 * value cut around a reference (`cut`): readers of format 2 alone would read a wrong value, so
 * they skip it instead.
 */
export const SPLICE_FORMAT = 3;
const READABLE_FORMATS: readonly unknown[] = [RECORD_FORMAT, SPLICE_FORMAT];
/** Message metadata key naming the kind of record; threads of other tools never carry it. */
export const RECORD_KIND_KEY = "lc_checkpoint_record";
/** A record longer than this is split over several messages (the service's limit is unpublished). */
export const DEFAULT_PART_CHARS = 100_000;

/**
 * Where a message is in a thread, as one process counts: messages and characters before it.
 * (Defined here, with the records it places, so that `channel-values.ts` depends on this module
 * and not the other way round.)
 */
export interface Place {
  position: number;
  offset: number;
}

/** A channel version as LangGraph hands it over (this saver makes strings; others make numbers). */
export type Version = string | number;

/** A reference to a channel's value at a version, of the record's own checkpoint (`value-refs.ts`). */
export interface ValueRef {
  channel: string;
  version: Version;
  /** Only the first `keepChars` characters of its JSON text (they end after an item). */
  keepChars?: number | undefined;
}

/** A serializer's output as stored: JSON stays JSON (readable), anything else base64. */
export type StoredValue =
  | { type: string; json: unknown }
  | { type: string; base64: string }
  | { type: "empty" };

/**
 * One channel's value at one version: the whole value, or (for a JSON list that grew by appending)
 * the items appended to its value at version `base`: to all of it, or (`keepChars`, records of
 * `SPLICE_FORMAT`) to the first `keepChars` characters of its JSON text, which end after an item.
 */
export type BlobRecord =
  | {
      channel: string;
      version: Version;
      value: StoredValue;
      /** Set when `value` is `[before, after]` around this value (`value-refs.ts`). */
      cut?: ValueRef | undefined;
    }
  | {
      channel: string;
      version: Version;
      base: Version;
      append: StoredValue;
      keepChars?: number | undefined;
    };

/** The format a record holding `blobs` (or `writes`) is written in. */
export function blobsFormat(blobs: readonly (BlobRecord | StoredWrite)[]): number {
  return blobs.some(
    (blob) =>
      ("keepChars" in blob && blob.keepChars !== undefined) ||
      ("cut" in blob && blob.cut !== undefined),
  )
    ? SPLICE_FORMAT
    : RECORD_FORMAT;
}

export interface CheckpointRecord {
  kind: "checkpoint";
  format: number;
  threadId: string;
  ns: string;
  checkpointId: string;
  parentId?: string | undefined;
  /** The checkpoint's `channel_versions`, kept readable: they name the values a read needs. */
  versions: Record<string, Version>;
  /** The checkpoint without `channel_values` and `channel_versions`, serialized. */
  checkpoint: StoredValue;
  metadata: StoredValue;
  /** The channels this step changed (and copies of values read far back), each at its version. */
  blobs: BlobRecord[];
  /** Tasks whose writes against this checkpoint were stored before it (see `write-order.ts`). */
  earlyWrites?: string[] | undefined;
}

export interface WritesRecord {
  kind: "writes";
  format: number;
  threadId: string;
  ns: string;
  checkpointId: string;
  taskId: string;
  taskPath: string;
  writes: StoredWrite[];
}

export interface StoredWrite {
  idx: number;
  channel: string;
  value: StoredValue;
  /** Set when `value` is `[before, after]` around this channel value (`value-refs.ts`). */
  cut?: ValueRef | undefined;
}

/** Whole copies of channel values that kept checkpoints need once older records are pruned. */
export interface ValuesRecord {
  kind: "values";
  format: number;
  threadId: string;
  ns: string;
  blobs: BlobRecord[];
}

export type StoredRecord = CheckpointRecord | WritesRecord | ValuesRecord;

/** A new message as the client's `createMessage` takes it. */
export interface RecordMessage {
  role: "assistant";
  content: string;
  metadata: Record<string, string>;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Stores a serializer's `[type, bytes]`; JSON text is kept as a value so the thread is readable. */
export function storeValue([type, bytes]: [string, Uint8Array]): StoredValue {
  if (type === "json") {
    try {
      return { type, json: JSON.parse(utf8.decode(bytes)) };
    } catch {
      // Not UTF-8 JSON after all: fall through to base64, which keeps every byte.
    }
  }
  return { type, base64: toBase64(bytes) };
}

/** The `[type, data]` pair to hand back to the serializer's `loadsTyped`. */
export function loadValue(value: StoredValue): [string, Uint8Array | string] {
  if ("json" in value) return [value.type, JSON.stringify(value.json)];
  if ("base64" in value) {
    const bytes = fromBase64(value.base64);
    if (bytes === undefined) {
      throw new StudioError(
        `A stored checkpoint value of type "${value.type}" is not valid base64: the thread's record was changed by something other than this package.`,
      );
    }
    return [value.type, bytes];
  }
  return ["empty", new Uint8Array()];
}

/** A value ready for the serializer's `loadsTyped`; null for a channel stored as empty. */
export type LoadedValue = { type: string; data: string | Uint8Array } | null;

export function loadedValue(value: StoredValue): LoadedValue {
  if (!("json" in value) && !("base64" in value)) return null;
  const [type, data] = loadValue(value);
  return { type, data };
}

/** A value read back, to be stored again as it was. */
export function storedValueOf(value: LoadedValue): StoredValue {
  if (value === null) return { type: "empty" };
  if (typeof value.data === "string") return { type: value.type, json: JSON.parse(value.data) };
  return storeValue([value.type, value.data]);
}

/** The messages that hold one record: one, or several parts when the record is long. */
export function recordMessages(
  record: StoredRecord,
  partChars: number = DEFAULT_PART_CHARS,
  newRecordId: () => string = () => crypto.randomUUID(),
): RecordMessage[] {
  const text = JSON.stringify(record);
  const base = describeRecord(record);
  if (text.length <= partChars) return [{ role: "assistant", content: text, metadata: base }];
  const parts = splitText(text, partChars);
  const id = newRecordId();
  return parts.map((content, i) => ({
    role: "assistant",
    content,
    metadata: { ...base, record: id, part: `${i + 1}/${parts.length}` },
  }));
}

/**
 * Cuts `text` into pieces of at most `size` UTF-16 units, never between the two halves of a
 * surrogate pair: a service that stores UTF-8 would turn each half into U+FFFD, silently.
 */
export function splitText(text: string, size: number): string[] {
  const parts: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(at + size, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    parts.push(text.slice(at, end));
    at = end;
  }
  return parts;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Metadata a person can read in the dashboard; long values are left out (content has them). */
function describeRecord(record: StoredRecord): Record<string, string> {
  const fields: Record<string, string | undefined> = {
    [RECORD_KIND_KEY]: record.kind,
    checkpoint_id: record.kind === "values" ? undefined : record.checkpointId,
    checkpoint_ns: record.ns === "" ? undefined : record.ns,
    task_id: record.kind === "writes" ? record.taskId : undefined,
    channels:
      record.kind === "writes"
        ? record.writes.map((w) => w.channel).join(",")
        : [...new Set(record.blobs.map((b) => b.channel))].join(","),
  };
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined && value.length <= METADATA_LIMITS.maxValueLength) out[key] = value;
  }
  return out;
}

/** A record read back whole, with where its messages are. */
export interface ReadRecord {
  record: StoredRecord;
  /** The ids of its messages, in part order. */
  messageIds: string[];
  /** Where its first part is, in the caller's count. */
  place: Place;
}

interface PendingPart {
  id: string;
  text: string;
  place: Place;
}

/**
 * Turns messages into records. The parts of a split record wait in `pending` until the last one
 * arrives, in whichever order they are read (newest first, oldest first, over several calls).
 */
export class RecordReader {
  private readonly pending = new Map<string, PendingPart[]>();

  /** `place` is the message's place in the caller's count (larger is newer). */
  read(message: ThreadMessage, place: Place): ReadRecord | undefined {
    const metadata = message.metadata ?? {};
    if (typeof metadata[RECORD_KIND_KEY] !== "string") return undefined;
    const text = messageText(message.content);
    const recordId = metadata.record;
    const part = typeof metadata.part === "string" ? /^(\d+)\/(\d+)$/.exec(metadata.part) : null;
    if (typeof recordId !== "string" || !part) {
      const record = parseRecord(text);
      return record && { record, messageIds: [message.id], place };
    }
    const index = Number(part[1]) - 1;
    const count = Number(part[2]);
    const parts = this.pending.get(recordId) ?? new Array<PendingPart>(count);
    parts[index] = { id: message.id, text, place };
    this.pending.set(recordId, parts);
    for (let i = 0; i < count; i++) if (parts[i] === undefined) return undefined;
    this.pending.delete(recordId);
    const record = parseRecord(parts.map((p) => p.text).join(""));
    const first = parts.reduce((a, b) => (b.place.position < a.place.position ? b : a));
    return record && { record, messageIds: parts.map((p) => p.id), place: first.place };
  }

  /** Forgets parts read below `position` (they will be read again if ever needed). */
  dropBelow(position: number): void {
    for (const [id, parts] of this.pending) {
      if (parts.some((p) => p !== undefined && p.place.position < position)) {
        this.pending.delete(id);
      }
    }
  }
}

/** The number of characters a message's content holds, as the reader counts them. */
export function messageChars(message: ThreadMessage): number {
  return messageText(message.content).length;
}

function messageText(content: readonly ContentItem[]): string {
  return content.map((item) => contentItemText(item) ?? "").join("");
}

function parseRecord(text: string): StoredRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<StoredRecord>;
    if (!READABLE_FORMATS.includes(value.format) || typeof value.ns !== "string") return undefined;
    if (value.kind === "values")
      return Array.isArray(value.blobs) ? (value as StoredRecord) : undefined;
    if (value.kind !== "checkpoint" && value.kind !== "writes") return undefined;
    if (typeof value.checkpointId !== "string") return undefined;
    return value as StoredRecord;
  } catch {
    // Someone else's message in the thread, or a damaged one: not ours to read.
    return undefined;
  }
}
