/**
 * The storage mapping: what a LangGraph checkpoint or a task's writes look like as messages of a
 * service thread. Pure functions only; the saver does the I/O.
 *
 * One record per `put` or `putWrites`. The record is JSON in the message content (content is the
 * only place with room: metadata takes 16 string values of at most 512 characters). A record
 * longer than `partChars` is split over several messages that share a `record` id in metadata
 * and are reassembled in `part` order; a record missing a part is ignored, so a write cut short
 * never surfaces as a damaged checkpoint. Metadata repeats a few fields so a person reading the
 * thread in the dashboard sees what each message is.
 */
import type { ContentItem, ThreadMessage } from "../api-types";
import { contentItemText, METADATA_LIMITS } from "../api-types";

/** Written into every record; a reader skips records of a format it does not know. */
export const RECORD_FORMAT = 1;
/** Message metadata key naming the kind of record; threads of other tools never carry it. */
export const RECORD_KIND_KEY = "lc_checkpoint_record";
/** A record longer than this is split over several messages (the service's limit is unpublished). */
export const DEFAULT_PART_CHARS = 100_000;

/** A serializer's output as stored: JSON stays JSON (readable), anything else base64. */
export type StoredValue =
  | { type: string; json: unknown }
  | { type: string; base64: string }
  | { type: "empty" };

export interface CheckpointRecord {
  kind: "checkpoint";
  format: number;
  threadId: string;
  ns: string;
  checkpointId: string;
  parentId: string | undefined;
  /** The checkpoint without `channel_values`, serialized. */
  checkpoint: StoredValue;
  metadata: StoredValue;
  /** Only the channels this step changed, keyed by channel, each at its new version. */
  blobs: Record<string, { version: string | number; value: StoredValue }>;
}

export interface WritesRecord {
  kind: "writes";
  format: number;
  threadId: string;
  ns: string;
  checkpointId: string;
  taskId: string;
  taskPath: string;
  writes: { idx: number; channel: string; value: StoredValue }[];
}

export type StoredRecord = CheckpointRecord | WritesRecord;

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
  if ("base64" in value) return [value.type, fromBase64(value.base64)];
  return ["empty", new Uint8Array()];
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
  const parts: string[] = [];
  for (let at = 0; at < text.length; at += partChars) parts.push(text.slice(at, at + partChars));
  const id = newRecordId();
  return parts.map((content, i) => ({
    role: "assistant",
    content,
    metadata: { ...base, record: id, part: `${i + 1}/${parts.length}` },
  }));
}

/** Metadata a person can read in the dashboard; long values are left out (content has them). */
function describeRecord(record: StoredRecord): Record<string, string> {
  const fields: Record<string, string | undefined> = {
    [RECORD_KIND_KEY]: record.kind,
    checkpoint_id: record.checkpointId,
    checkpoint_ns: record.ns === "" ? undefined : record.ns,
    task_id: record.kind === "writes" ? record.taskId : undefined,
    channels:
      record.kind === "checkpoint"
        ? Object.keys(record.blobs).join(",")
        : record.writes.map((w) => w.channel).join(","),
  };
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined && value.length <= METADATA_LIMITS.maxValueLength) out[key] = value;
  }
  return out;
}

/**
 * Turns messages (oldest first) into records. Parts of a split record wait in `pending` until
 * the last one arrives, which may be in a later call (a later page, or a later sync).
 */
export class RecordReader {
  private readonly pending = new Map<string, string[]>();

  read(message: ThreadMessage): StoredRecord | undefined {
    const metadata = message.metadata ?? {};
    if (typeof metadata[RECORD_KIND_KEY] !== "string") return undefined;
    const text = messageText(message.content);
    const recordId = metadata.record;
    const part = typeof metadata.part === "string" ? /^(\d+)\/(\d+)$/.exec(metadata.part) : null;
    if (typeof recordId !== "string" || !part) return parseRecord(text);
    const index = Number(part[1]) - 1;
    const count = Number(part[2]);
    const parts = this.pending.get(recordId) ?? new Array<string>(count);
    parts[index] = text;
    this.pending.set(recordId, parts);
    for (let i = 0; i < count; i++) if (parts[i] === undefined) return undefined;
    this.pending.delete(recordId);
    return parseRecord(parts.join(""));
  }
}

function messageText(content: readonly ContentItem[]): string {
  return content.map((item) => contentItemText(item) ?? "").join("");
}

function parseRecord(text: string): StoredRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<StoredRecord>;
    if (value.format !== RECORD_FORMAT) return undefined;
    if (value.kind !== "checkpoint" && value.kind !== "writes") return undefined;
    if (typeof value.checkpointId !== "string" || typeof value.ns !== "string") return undefined;
    return value as StoredRecord;
  } catch {
    // Someone else's message in the thread, or a damaged one: not ours to read.
    return undefined;
  }
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
