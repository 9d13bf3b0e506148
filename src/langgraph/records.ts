/**
 * The storage mapping: what a LangGraph checkpoint, a task's writes, or a set of channel values
 * look like as messages of a service thread. Pure functions only; the saver does the I/O. The
 * records' fields, formats and schemas are the record layer's (`records/checkpoint.ts`).
 *
 * One record per `put` or `putWrites` (and one "values" record per `prune`). The record is JSON in
 * the message content (content is the only place with room: metadata takes 16 string values of at
 * most 512 characters). A record longer than `partChars` is split over several messages that
 * share a `record` id in metadata and are reassembled in `part` order (`records/parts.ts`); a
 * record missing a part is ignored, so a write cut short never surfaces as a damaged checkpoint.
 * Metadata repeats a few fields so a person reading the thread in the dashboard sees what each
 * message is.
 */
import type { ThreadMessage } from "../api-types";
import { METADATA_LIMITS } from "../api-types";
import { fromBase64, toBase64 } from "../converters/base64";
import { StudioError } from "../errors";
import { readCheckpointRecord, type StoredRecord, type StoredValue } from "../records/checkpoint";
import {
  messageText,
  recordMessages as partMessages,
  RecordAssembler,
  type RecordMessage,
} from "../records/parts";

export type {
  BlobRecord,
  CheckpointRecord,
  StoredRecord,
  StoredValue,
  StoredWrite,
  ValueRef,
  ValuesRecord,
  Version,
  WritesRecord,
} from "../records/checkpoint";
export type { RecordMessage } from "../records/parts";

/** Message metadata key naming the kind of record; threads of other tools never carry it. */
export const RECORD_KIND_KEY = "lc_checkpoint_record";
/** A record longer than this is split over several messages (the service's limit: unpublished). */
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

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Stores a serializer's `[type, bytes]`; JSON text is kept as a value so the thread is readable.
 */
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
        `A stored checkpoint value of type "${value.type}" is not valid base64: the thread's ` +
          "record was changed by something other than this package. Restore that message, " +
          "or delete the LangGraph thread (deleteThread) to start it over.",
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
  return partMessages(JSON.stringify(record), describeRecord(record), partChars, newRecordId);
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

interface ReadPart {
  id: string;
  place: Place;
}

/**
 * Turns messages into records. The parts of a split record wait until the last one arrives, in
 * whichever order they are read (newest first, oldest first, over several calls).
 * @throws StudioStoredFormatError (from `read`) for a record of a format newer than this version's.
 */
export class RecordReader {
  private readonly records = new RecordAssembler<ReadPart>();

  /** `place` is the message's place in the caller's count (larger is newer). */
  read(message: ThreadMessage, place: Place): ReadRecord | undefined {
    if (typeof message.metadata?.[RECORD_KIND_KEY] !== "string") return undefined;
    const whole = this.records.add(message, { id: message.id, place });
    if (!whole) return undefined;
    const { parts } = whole;
    const record = readCheckpointRecord(whole.value);
    const first = parts.reduce((a, b) => (b.place.position < a.place.position ? b : a));
    return record && { record, messageIds: parts.map((p) => p.id), place: first.place };
  }

  /** Forgets parts read below `position` (they will be read again if ever needed). */
  dropBelow(position: number): void {
    this.records.dropWhere((part) => part.place.position < position);
  }
}

/** The number of characters a message's content holds, as the reader counts them. */
export function messageChars(message: ThreadMessage): number {
  return messageText(message.content).length;
}
