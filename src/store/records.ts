/**
 * The storage mapping of StudioStore: what a namespace's items look like as messages of its
 * service thread, and the rule that reads them back. Pure: the I/O is `namespace-threads.ts`.
 *
 * Each namespace (and each prefix of one, for listing) has one thread. A message holds a record:
 * JSON `{"entries": [...]}` in its content (metadata holds 512 characters a value, too little for
 * values), marked `lc_store_record` in metadata so other messages are never read as ours. A record
 * longer than a message (an item of any size) is split over several messages that share a
 * `record` id in metadata and are read back whole once every `part` is read, as the
 * checkpointer splits its records; a record missing a part is not read, so a write cut short never
 * surfaces as a damaged item. Entries:
 *   put    a key's value (inline JSON, or a serializer's bytes in base64), created/expiry times
 *   del    a key deleted (a tombstone: it must outlive the puts it hides, see `compactedEntries`)
 *   touch  a key's expiry moved later by a read (TTL refreshed), naming the put it refreshes
 *   child  a label under this namespace that has a thread of its own (for listing and search)
 *   open   the namespace holds items: it is listed from then on, ordered by this stamp
 *
 * Newest wins, by stamp, not by position: every put and del carries a stamp (a microsecond time
 * that never goes back in a process and always passes what its writer last read) and the writer's
 * id to break ties. A process writes only after reading the namespace, so a write made after
 * another one has seen it outranks it whatever the clocks say. Ordering by stamp is also what lets
 * compaction copy the winners to new messages (same stamps) and delete the old ones, with no
 * moment at which a reader could see an older value win.
 */
import type { ThreadMessage } from "../api-types";
import { fromBase64, toBase64 } from "../converters/base64";
import {
  messageText,
  parseJson,
  recordMessages as partMessages,
  RecordAssembler,
  type RecordMessage,
} from "../records/parts";
import {
  type DeleteEntry,
  type Entry,
  isStoreRecord,
  type OpenEntry,
  type PutEntry,
  readStoreEntries,
  STORE_RECORD_KEY,
  type Stamp,
  storeRecordMetadata,
} from "../records/store";
import { sha256Hex } from "../threads/service-identity";

export type { RecordMessage } from "../records/parts";
export type {
  ChildEntry,
  DeleteEntry,
  Entry,
  OpenEntry,
  Payload,
  PutEntry,
  Stamp,
  StoredPayload,
  TouchEntry,
} from "../records/store";
export { STORE_RECORD_KEY };
/** Largest message content written (the service's limit is unpublished; as the checkpointer). */
export const DEFAULT_MAX_MESSAGE_CHARS = 100_000;
/** Longest session id the thread directory takes (thread metadata value). */
const MAX_SESSION_ID_CHARS = 512;
const TITLE_CHARS = 200;
/**
 * How old the newest part of a split record still missing parts must be before compaction deletes
 * its parts: far longer than any write takes (a write sends its parts back to back, in seconds),
 * so a write still under way in another process is never deleted under it, while a write cut
 * short (or a late duplicate of a part) does not keep its text in the thread forever.
 */
export const INCOMPLETE_RECORD_GRACE_MS = 60 * 60_000;
/**
 * How long ago an item must have expired before compaction turns it into a tombstone. The
 * tombstone takes the put's own stamp and outranks it, so a refresh of the put by another process
 * (one whose clock read it as live, or whose read landed between compaction's read and its copy)
 * would be hidden by it; within this margin the put is copied as it is, still expired unless
 * refreshed, and removed by a later compaction.
 */
export const EXPIRED_TOMBSTONE_GRACE_MS = 60_000;

/** A namespace as error messages show it: its labels as JSON. */
export function show(namespace: readonly string[]): string {
  return JSON.stringify(namespace);
}

/** Entries to append to one namespace's thread. */
export interface NamespaceWrite {
  namespace: string[];
  entries: Entry[];
}

/** Compares stamps; at equal stamps a delete outranks a put (an expired put's tombstone). */
export function compareStamps(a: Stamp & { op?: string }, b: Stamp & { op?: string }): number {
  if (a.s !== b.s) return a.s - b.s;
  if (a.w !== b.w) return a.w < b.w ? -1 : 1;
  return (a.op === "del" ? 1 : 0) - (b.op === "del" ? 1 : 0);
}

/** Stamps for this process's writes. */
export class StampClock {
  #writer: string | undefined;
  #last = 0;

  constructor(writer?: string) {
    this.#writer = writer;
  }

  /**
   * The id that orders this process's writes among equal stamps. Made on first use, not when the
   * clock is: the store module makes one at load, and workerd refuses random values at load.
   */
  get writer(): string {
    this.#writer ??= crypto.randomUUID().replaceAll("-", "").slice(0, 12);
    return this.#writer;
  }

  /** A stamp later than `seen` (the largest the writer read) and than any issued before. */
  next(seen: number, now: number = Date.now()): Stamp {
    const s = Math.max(now * 1000, this.#last + 1, seen + 1);
    this.#last = s;
    return { s, w: this.writer };
  }
}

/** The message content of a record holding `entries`. */
export function recordContent(entries: readonly Entry[]): string {
  return JSON.stringify({ entries });
}

/** Characters `entry` takes in a record's content (the comma between entries included). */
export function entryChars(entry: Entry): number {
  return JSON.stringify(entry).length + 1;
}

/** Characters of a record's content besides its entries. */
export const RECORD_OVERHEAD_CHARS = recordContent([]).length;

/**
 * The messages holding `entries`, in order, each at most `maxChars` of content: entries grouped
 * into records that fit a message, and an entry too big for a message on its own in a record
 * split over as many messages as it needs.
 */
export function recordMessages(entries: readonly Entry[], maxChars: number): RecordMessage[] {
  const groups: Entry[][] = [];
  let current: Entry[] = [];
  let size = RECORD_OVERHEAD_CHARS;
  for (const entry of entries) {
    const chars = entryChars(entry);
    if (current.length > 0 && size + chars > maxChars) {
      groups.push(current);
      current = [];
      size = RECORD_OVERHEAD_CHARS;
    }
    current.push(entry);
    size += chars;
  }
  if (current.length > 0) groups.push(current);
  return groups.flatMap((group) =>
    partMessages(recordContent(group), storeRecordMetadata(), maxChars),
  );
}

/** The entries of a record's text, or undefined when it is not a record. */
export function parseRecord(text: string): Entry[] | undefined {
  return readStoreEntries(parseJson(text));
}

/**
 * The entries of a message, or undefined when it is not a store record.
 * @throws StudioStoredFormatError for a record of a format newer than this version's.
 */
export function readRecord(message: ThreadMessage): Entry[] | undefined {
  if (!isStoreRecord(message.metadata ?? {})) return undefined;
  return parseRecord(messageText(message.content));
}

interface Held<T> {
  entry: T;
  /** The messages of the record it was read from (several for a split record). */
  messageIds: readonly string[];
}

/**
 * A namespace as its messages say it is: the winning put or delete of each key, the refreshed
 * expiries, the child labels and the opening stamp. Messages are added in any order; the result
 * is the same (stamps decide, not positions).
 */
export class NamespaceLog {
  readonly #items = new Map<string, Held<PutEntry | DeleteEntry>>();
  readonly #children = new Map<string, readonly string[]>();
  #opened: Held<OpenEntry> | undefined;
  readonly #touches = new Map<string, number>();
  readonly #messageIds: string[] = [];
  /** Parts of split records read so far, until the last one is read. */
  readonly #records = new RecordAssembler<ReadPart>();
  /** The largest stamp read: a write made after this read must pass it. */
  maxStamp = 0;

  /**
   * Adds what a message holds. A part of a split record waits for the others, and counts among
   * the messages read (`messageIds`, which compaction deletes) only once its record is whole: a
   * part of a write still under way in another process is never deleted under it (until it is
   * older than `INCOMPLETE_RECORD_GRACE_MS`, see `staleParts`).
   */
  addMessage(message: ThreadMessage): void {
    if (!isStoreRecord(message.metadata ?? {})) return;
    const whole = this.#records.add(message, { id: message.id, time: messageTime(message) });
    if (!whole) return;
    const entries = readStoreEntries(whole.value);
    // A message that does not parse is someone else's: it is not read (nor compacted away).
    if (!whole.split && !entries) return;
    // Every message of the record, a duplicate of a part included: all go once it is compacted.
    const ids = whole.read.map((part) => part.id);
    // A split record that does not parse when whole holds nothing: its messages count as dead.
    this.add(ids, entries ?? []);
  }

  /**
   * The messages of split records still missing parts whose newest part was stored more than
   * `graceMs` before `now`: a write cut short, or a late duplicate of a part of a record already
   * whole (a new record that never completes). Compaction deletes them. A part without a readable
   * time is never stale.
   */
  staleParts(now: number, graceMs: number = INCOMPLETE_RECORD_GRACE_MS): string[] {
    const stale: string[] = [];
    for (const read of this.#records.waiting()) {
      const newest = Math.max(...read.map((part) => part.time));
      if (newest < now - graceMs) stale.push(...read.map((part) => part.id));
    }
    return stale;
  }

  /** Adds the entries of a record read from `messageId` (or the messages of a split record). */
  add(messageId: string | readonly string[], entries: readonly Entry[]): void {
    const messageIds = typeof messageId === "string" ? [messageId] : messageId;
    this.#messageIds.push(...messageIds);
    for (const entry of entries) {
      if (entry.op === "child") {
        if (!this.#children.has(entry.label)) this.#children.set(entry.label, messageIds);
      } else if (entry.op === "touch") {
        const at = touchKey(entry.key, entry.of);
        this.#touches.set(at, Math.max(this.#touches.get(at) ?? 0, entry.e));
      } else if (entry.op === "open") {
        this.maxStamp = Math.max(this.maxStamp, entry.s);
        if (!this.#opened || compareStamps(entry, this.#opened.entry) < 0) {
          this.#opened = { entry, messageIds };
        }
      } else {
        this.maxStamp = Math.max(this.maxStamp, entry.s);
        if (entry.op === "put" && entry.e !== undefined) {
          // A put's expiry as a touch of it: a compaction's copy of the put (same stamp) carries
          // the refreshes it folded in, and must move the expiry of the put already read here.
          const at = touchKey(entry.key, entry);
          this.#touches.set(at, Math.max(this.#touches.get(at) ?? 0, entry.e));
        }
        const held = this.#items.get(entry.key);
        if (!held || compareStamps(entry, held.entry) > 0) {
          this.#items.set(entry.key, { entry, messageIds });
        }
      }
    }
  }

  /** Whether the namespace holds (or held) items: it is then listed, as InMemoryStore lists it. */
  get opened(): Stamp | undefined {
    return this.#opened?.entry;
  }

  get children(): string[] {
    return [...this.#children.keys()];
  }

  hasChild(label: string): boolean {
    return this.#children.has(label);
  }

  /** The put's expiry with the reads that refreshed it, if it has one. */
  expiresAt(put: PutEntry): number | undefined {
    if (put.e === undefined) return undefined;
    return Math.max(put.e, this.#touches.get(touchKey(put.key, put)) ?? 0);
  }

  /** The key's value at `now`: its winning put, unless deleted or expired. */
  live(key: string, now: number): PutEntry | undefined {
    const entry = this.#items.get(key)?.entry;
    if (entry?.op !== "put") return undefined;
    const expiresAt = this.expiresAt(entry);
    return expiresAt !== undefined && expiresAt <= now ? undefined : entry;
  }

  /** The live items at `now`, in the order the namespace got them (created stamp, then key). */
  liveItems(now: number): PutEntry[] {
    const live: PutEntry[] = [];
    for (const key of this.#items.keys()) {
      const entry = this.live(key, now);
      if (entry) live.push(entry);
    }
    return live.sort((a, b) => a.c - b.c || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /**
   * How many puts a compaction at `now` removes: those expired more than
   * `EXPIRED_TOMBSTONE_GRACE_MS` ago (their values are still stored until compacted).
   */
  expiredCount(now: number): number {
    let count = 0;
    for (const { entry } of this.#items.values()) {
      if (entry.op === "put" && this.#removable(entry, now)) count += 1;
    }
    return count;
  }

  /**
   * Whether compaction at `now` turns the put into a tombstone (see EXPIRED_TOMBSTONE_GRACE_MS).
   */
  #removable(put: PutEntry, now: number): boolean {
    const expiresAt = this.expiresAt(put);
    return expiresAt !== undefined && expiresAt <= now - EXPIRED_TOMBSTONE_GRACE_MS;
  }

  /** Every message read, oldest first. */
  get messageIds(): readonly string[] {
    return this.#messageIds;
  }

  /** Messages holding nothing that still counts: compaction deletes them. */
  deadMessageCount(): number {
    const holding = new Set<string>();
    const hold = (messageIds: readonly string[]) => {
      for (const id of messageIds) holding.add(id);
    };
    for (const held of this.#items.values()) hold(held.messageIds);
    for (const messageIds of this.#children.values()) hold(messageIds);
    if (this.#opened) hold(this.#opened.messageIds);
    return this.#messageIds.length - holding.size;
  }

  /**
   * What the namespace holds, as entries for new messages: each key's winner with its refreshed
   * expiry folded in (a put expired more than `EXPIRED_TOMBSTONE_GRACE_MS` ago becomes a tombstone
   * with the put's own stamp, which outranks it and nothing newer; one expired more recently is
   * copied, so a refresh landing meanwhile still moves its expiry), each child once, the opening.
   * Tombstones are kept: a process that read an older put of the key before compaction must still
   * see it deleted.
   */
  compactedEntries(now: number): Entry[] {
    const entries: Entry[] = [];
    if (this.#opened) entries.push(this.#opened.entry);
    for (const label of this.#children.keys()) entries.push({ op: "child", label });
    for (const { entry } of this.#items.values()) {
      if (entry.op === "del") {
        entries.push(entry);
        continue;
      }
      const expiresAt = this.expiresAt(entry);
      if (this.#removable(entry, now)) {
        entries.push({ op: "del", key: entry.key, s: entry.s, w: entry.w });
      } else {
        entries.push(expiresAt === undefined ? entry : { ...entry, e: expiresAt });
      }
    }
    return entries;
  }
}

/** What is kept of a message of a record until the record is whole. */
interface ReadPart {
  id: string;
  /** When it was stored (ms since 1970); +Infinity when a time was unreadable. */
  time: number;
}

/** When the service stored the message (ms since 1970), or +Infinity when it does not say. */
function messageTime(message: ThreadMessage): number {
  const { createdAt } = message;
  // A number is taken as seconds when it is too small to be milliseconds of this century.
  const time =
    typeof createdAt === "number"
      ? createdAt < 1e11
        ? createdAt * 1000
        : createdAt
      : typeof createdAt === "string"
        ? Date.parse(createdAt)
        : Number.NaN;
  return Number.isFinite(time) ? time : Number.POSITIVE_INFINITY;
}

function touchKey(key: string, of: Stamp): string {
  return JSON.stringify([key, of.s, of.w]);
}

/**
 * The id the thread directory knows a namespace by: its labels as JSON, or a SHA-256 of that when
 * longer than a metadata value (the namespace itself is never read back from it: listing walks
 * the labels of `child` entries).
 */
export async function namespaceSessionId(namespace: readonly string[]): Promise<string> {
  const json = JSON.stringify(namespace);
  return json.length <= MAX_SESSION_ID_CHARS ? json : `sha256:${await sha256Hex(json)}`;
}

/** The title of a namespace's thread, for a person reading the dashboard. */
export function namespaceTitle(namespace: readonly string[]): string {
  const title = `LangGraph store: ${namespace.length === 0 ? "(namespaces)" : namespace.join("/")}`;
  return title.length <= TITLE_CHARS ? title : `${title.slice(0, TITLE_CHARS - 1)}…`;
}

/** A vector as stored: float32, base64 (a quarter of the JSON of its numbers). */
export function encodeVector(vector: readonly number[]): string {
  return toBase64(new Uint8Array(Float32Array.from(vector).buffer));
}

export function decodeVector(text: string): number[] {
  const bytes = fromBase64(text) ?? new Uint8Array();
  const copy = bytes.slice(0, bytes.length - (bytes.length % 4));
  return Array.from(new Float32Array(copy.buffer));
}
