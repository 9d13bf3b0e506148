/**
 * The checkpointer's records (kinds `checkpoint`, `writes`, `values`): their fields, one schema
 * per kind and format, the builders the writers use (the format follows from what a record holds),
 * and the reader's check. How they become messages and values is `langgraph/records.ts`.
 *
 * Format 2: channel values whole, or as items appended to an earlier version (`base`, `append`).
 * Format 3 adds what a format-2 reader would read wrongly, so a record holding any of it is
 * format 3: appended items after only the first `keepChars` characters of the base's JSON text
 * (a tool turn rewrote the list's last items), and a value stored cut around another channel's
 * value (`cut`: a whole blob, or a pending write; `langgraph/value-refs.ts` says which values).
 */
import * as z from "zod/v4/mini";
import { useEnglishMessages } from "../zod-locale";
import { CHECKPOINT_KIND, readsFormat, VALUES_KIND, WRITES_KIND } from "./kinds";

useEnglishMessages();

/** The format of a record holding values whole or appended. */
export const RECORD_FORMAT = CHECKPOINT_KIND.formats[0];
/** The format of a record holding a value cut around a reference or spliced after `keepChars`. */
export const SPLICE_FORMAT = CHECKPOINT_KIND.formats[1];

/** A channel version as LangGraph hands it over (this saver makes strings; others make numbers). */
export type Version = string | number;

/** A reference to a channel's value at a version, of the record's own checkpoint. */
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
 * the items appended to its value at version `base`: to all of it, or (`keepChars`, format 3) to
 * the first `keepChars` characters of its JSON text, which end after an item.
 */
export type BlobRecord =
  | {
      channel: string;
      version: Version;
      value: StoredValue;
      /** Set when `value` is `[before, after]` around this value (format 3). */
      cut?: ValueRef | undefined;
    }
  | {
      channel: string;
      version: Version;
      base: Version;
      append: StoredValue;
      keepChars?: number | undefined;
    };

export interface StoredWrite {
  idx: number;
  channel: string;
  value: StoredValue;
  /** Set when `value` is `[before, after]` around this channel value (format 3). */
  cut?: ValueRef | undefined;
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

/** Whole copies of channel values that kept checkpoints need once older records are pruned. */
export interface ValuesRecord {
  kind: "values";
  format: number;
  threadId: string;
  ns: string;
  blobs: BlobRecord[];
}

export type StoredRecord = CheckpointRecord | WritesRecord | ValuesRecord;

/** The format a record holding `items` (blobs or writes) is written in. */
export function blobsFormat(items: readonly (BlobRecord | StoredWrite)[]): number {
  return items.some(
    (item) =>
      ("keepChars" in item && item.keepChars !== undefined) ||
      ("cut" in item && item.cut !== undefined),
  )
    ? SPLICE_FORMAT
    : RECORD_FORMAT;
}

/** A checkpoint record, in the format its values need (fields in the order they are stored). */
export function checkpointRecord(
  fields: Omit<CheckpointRecord, "kind" | "format">,
): CheckpointRecord {
  return { kind: "checkpoint", format: blobsFormat(fields.blobs), ...fields };
}

export function writesRecord(fields: Omit<WritesRecord, "kind" | "format">): WritesRecord {
  return { kind: "writes", format: blobsFormat(fields.writes), ...fields };
}

export function valuesRecord(fields: Omit<ValuesRecord, "kind" | "format">): ValuesRecord {
  return { kind: "values", format: blobsFormat(fields.blobs), ...fields };
}

// The schemas check what a reader relies on; unknown fields pass (a record is never rewritten
// from its parsed form, so nothing is dropped).
const version = z.union([z.string(), z.number()]);
const storedValue = z.custom<StoredValue>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    typeof (value as { type?: unknown }).type === "string" &&
    ("json" in value ||
      typeof (value as { base64?: unknown }).base64 === "string" ||
      (value as { type: string }).type === "empty"),
);
const valueRef = z.looseObject({
  channel: z.string(),
  version,
  keepChars: z.optional(z.number()),
});
const wholeBlob2 = z.looseObject({ channel: z.string(), version, value: storedValue });
const appendedBlob2 = z.looseObject({
  channel: z.string(),
  version,
  base: version,
  append: storedValue,
});
const blob2 = z.union([wholeBlob2, appendedBlob2]);
const blob3 = z.union([
  z.looseObject({ ...wholeBlob2.shape, cut: z.optional(valueRef) }),
  z.looseObject({ ...appendedBlob2.shape, keepChars: z.optional(z.number()) }),
]);
const write2 = z.looseObject({ idx: z.number(), channel: z.string(), value: storedValue });
const write3 = z.looseObject({ ...write2.shape, cut: z.optional(valueRef) });

function checkpointSchema(format: number, blob: typeof blob2 | typeof blob3) {
  return z.looseObject({
    kind: z.literal("checkpoint"),
    format: z.literal(format),
    ns: z.string(),
    checkpointId: z.string(),
    parentId: z.optional(z.string()),
    versions: z.record(z.string(), version),
    checkpoint: storedValue,
    metadata: storedValue,
    blobs: z.array(blob),
    earlyWrites: z.optional(z.array(z.string())),
  });
}

function writesSchema(format: number, write: typeof write2 | typeof write3) {
  return z.looseObject({
    kind: z.literal("writes"),
    format: z.literal(format),
    ns: z.string(),
    checkpointId: z.string(),
    taskId: z.string(),
    taskPath: z.string(),
    writes: z.array(write),
  });
}

function valuesSchema(format: number, blob: typeof blob2 | typeof blob3) {
  return z.looseObject({
    kind: z.literal("values"),
    format: z.literal(format),
    ns: z.string(),
    blobs: z.array(blob),
  });
}

/** One schema per kind and format. */
export const CHECKPOINT_SCHEMAS = {
  checkpoint: { 2: checkpointSchema(2, blob2), 3: checkpointSchema(3, blob3) },
  writes: { 2: writesSchema(2, write2), 3: writesSchema(3, write3) },
  values: { 2: valuesSchema(2, blob2), 3: valuesSchema(3, blob3) },
} as const;

const KINDS = { checkpoint: CHECKPOINT_KIND, writes: WRITES_KIND, values: VALUES_KIND } as const;

/**
 * A record read back (parsed JSON), if it is one this version reads; undefined for another
 * kind, an older unknown format, or a record its schema refuses.
 * @throws StudioStoredFormatError for a record of a newer format.
 */
export function readCheckpointRecord(value: unknown): StoredRecord | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { kind, format } = value as { kind?: unknown; format?: unknown };
  if (kind !== "checkpoint" && kind !== "writes" && kind !== "values") return undefined;
  if (typeof format !== "number" || !readsFormat(KINDS[kind], format)) return undefined;
  const schema = CHECKPOINT_SCHEMAS[kind][format as 2 | 3];
  return schema.safeParse(value).success ? (value as StoredRecord) : undefined;
}
