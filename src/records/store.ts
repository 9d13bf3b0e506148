/**
 * StudioStore's records (kind `store-record`): a message marked `lc_store_record: "<format>"` in
 * metadata whose content is `{"entries": [...]}`, one schema per entry. What the entries mean
 * (newest stamp wins, tombstones, refreshed expiries) is `store/records.ts`.
 *
 * Format 1 entries:
 *   put    a key's value (inline JSON `p`, or a serializer's bytes in base64 `x`), its stamp
 *          (`s` microseconds, `w` writer), created stamp `c`, expiry `e` and TTL `ttl` if any
 *   del    a key deleted (a tombstone), with its stamp
 *   touch  a key's expiry moved later by a read, naming the put it refreshes (`of`)
 *   child  a label under this namespace that has a thread of its own
 *   open   the namespace holds items, ordered by this stamp
 */
import * as z from "zod/v4/mini";
import { useEnglishMessages } from "../zod-locale";
import { currentFormat, readsFormat, STORE_KIND } from "./kinds";

useEnglishMessages();

/** Message metadata key marking a store record; its value is the record's format. */
export const STORE_RECORD_KEY = "lc_store_record";

/** When and by whom a put or delete was written: the larger wins. */
export interface Stamp {
  /** Microseconds since 1970, strictly increasing in a process. */
  s: number;
  /** The writing process. */
  w: string;
}

/** What a put stores of an item: its value, and the vectors of its indexed texts. */
export interface Payload {
  value: Record<string, unknown>;
  /** Float32 vectors, base64, by the field path their text came from ("$", "text", "tags.0"). */
  vectors?: Record<string, string>;
}

/** The payload inline (readable), or a serializer's output (e.g. encrypted) in base64. */
export type StoredPayload = { p: Payload } | { x: { type: string; data: string } };

export type PutEntry = Stamp & {
  op: "put";
  key: string;
  /** Stamp of the put that created the item (puts since keep it): the item's place in search. */
  c: number;
  /** When it expires (ms since 1970), if it has a TTL. */
  e?: number;
  /** Its TTL in minutes, which a read that refreshes TTL adds to the time of the read. */
  ttl?: number;
} & StoredPayload;

export interface DeleteEntry extends Stamp {
  op: "del";
  key: string;
}

export interface TouchEntry {
  op: "touch";
  key: string;
  /** The put whose expiry moves (a later put of the key replaces it, touch and all). */
  of: Stamp;
  e: number;
}

export interface ChildEntry {
  op: "child";
  label: string;
}

export interface OpenEntry extends Stamp {
  op: "open";
}

export type Entry = PutEntry | DeleteEntry | TouchEntry | ChildEntry | OpenEntry;

const stamp = { s: z.number(), w: z.string() };
const object = z.custom<object>((value) => typeof value === "object");
const put = { op: z.literal("put"), key: z.string(), ...stamp, c: z.number() };

/** Format 1: one schema per entry; an entry none of them takes is not read. */
const ENTRY_1 = z.union([
  z.looseObject({ ...put, p: object }),
  z.looseObject({ ...put, x: object }),
  z.looseObject({ op: z.literal("del"), key: z.string(), ...stamp }),
  z.looseObject({
    op: z.literal("touch"),
    key: z.string(),
    e: z.number(),
    of: z.looseObject(stamp),
  }),
  z.looseObject({ op: z.literal("child"), label: z.string() }),
  z.looseObject({ op: z.literal("open"), ...stamp }),
]);

const RECORD_1 = z.looseObject({ entries: z.array(z.unknown()) });

/** The metadata of a store record written by this version. */
export function storeRecordMetadata(): Record<string, string> {
  return { [STORE_RECORD_KEY]: String(currentFormat(STORE_KIND)) };
}

/**
 * Whether `metadata` marks a store record this version reads.
 * @throws StudioStoredFormatError for a record of a newer format.
 */
export function isStoreRecord(metadata: Readonly<Record<string, unknown>> | undefined): boolean {
  const format = metadata?.[STORE_RECORD_KEY];
  return format !== undefined && readsFormat(STORE_KIND, format);
}

/** The entries of a record's parsed content, or undefined when it is not a record. */
export function readStoreEntries(value: unknown): Entry[] | undefined {
  if (!RECORD_1.safeParse(value).success) return undefined;
  const { entries } = value as { entries: unknown[] };
  return entries.filter((entry): entry is Entry => ENTRY_1.safeParse(entry).success);
}
