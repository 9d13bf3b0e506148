/**
 * What one process has read of one service thread: a window over its newest messages. The first
 * read takes the newest page (newest first); a read that needs older records grows the window
 * downward, a page at a time, until it has them; a catch-up lists the messages added above it.
 * After each catch-up the window is trimmed to what the newest checkpoints need (and a margin), so
 * memory follows the size of the state, not the age of the thread.
 *
 * Every message gets a place (its position and the characters before it, as this process counts
 * them): the log orders records by it, and the writer measures by it how far back a value is.
 * Messages this process appended take their place when sent and are skipped when read back.
 */
import type { ThreadMessage } from "../api-types";
import type { StudioClient } from "../client";
import { type Place, READ_WINDOW } from "./channel-values";
import { type CheckpointEntry, CheckpointLog, type RecordEntry } from "./checkpoint-log";
import { messageChars, type RecordMessage, RecordReader, type StoredRecord } from "./records";

/** Messages per listing call (the service's maximum). */
export const PAGE = 100;
/** Own messages remembered so that a listing that returns them anyway does not add them twice. */
const MAX_OWN = 1_000;

export class ThreadWindow {
  readonly log = new CheckpointLog();
  readonly #reader = new RecordReader();
  /** The place the next message above the window takes (read in a catch-up, or appended). */
  #next: Place = { position: 0, offset: 0 };
  /** The place of the oldest message read. */
  #lowest: Place = { position: 0, offset: 0 };
  /** The newest message read: catch-ups list what follows it. */
  #top: { id: string; place: Place } | undefined;
  /** The oldest message read: reading down lists what precedes it. */
  #bottom: string | undefined;
  #reachedStart = false;
  /** Messages this process appended and has not read back, with their positions. */
  readonly #own = new Map<string, Place>();

  constructor(
    private readonly client: StudioClient,
    readonly serviceThreadId: string,
    /** Turns a record as stored into what the log keeps (opens encrypted values). */
    private readonly open: (record: StoredRecord) => Promise<StoredRecord>,
  ) {}

  /** Where the thread's end is, as far as this process knows. */
  get now(): Place {
    return { ...this.#next };
  }

  /** Whether a read has listed the thread yet. */
  get started(): boolean {
    return this.#top !== undefined || this.#reachedStart;
  }

  /** Reads the messages added since the last read (the newest page on the first read). */
  async catchUp(): Promise<void> {
    if (!this.started) return this.#readDown();
    const query = { order: "asc" as const, limit: PAGE, ...after(this.#top?.id) };
    for await (const message of this.client.iterateMessages(this.serviceThreadId, query)) {
      const own = this.#own.get(message.id);
      if (own) {
        this.#own.delete(message.id);
        this.#top = { id: message.id, place: own };
        continue;
      }
      const place = { ...this.#next };
      this.#next = { position: place.position + 1, offset: place.offset + messageChars(message) };
      this.#top = { id: message.id, place };
      await this.#add(message, place);
    }
  }

  /** Reads older pages until `done()` holds or the thread's first message is read. */
  async extendDown(done: () => boolean): Promise<void> {
    if (!this.started) await this.catchUp();
    while (!this.#reachedStart && !done()) await this.#readDown();
  }

  async #readDown(): Promise<void> {
    const query = { order: "desc" as const, limit: PAGE, ...after(this.#bottom) };
    const page = await this.client.listMessages(this.serviceThreadId, query);
    for (const message of page.data) {
      const own = this.#own.get(message.id);
      this.#own.delete(message.id);
      const place = own ?? {
        position: this.#lowest.position - 1,
        offset: this.#lowest.offset - messageChars(message),
      };
      if (!own) this.#lowest = place;
      this.#top ??= { id: message.id, place };
      this.#bottom = message.id;
      if (!own) await this.#add(message, place);
    }
    if (!page.hasMore) this.#reachedStart = true;
  }

  /** The newest checkpoint of `ns`, read until everything its tuple needs is read. */
  async readLatest(ns: string): Promise<CheckpointEntry | undefined> {
    await this.catchUp();
    await this.extendDown(() => {
      const head = this.log.checkpoint(ns);
      return head !== undefined && this.log.isReadable(head);
    });
    const head = this.log.checkpoint(ns);
    this.trim();
    return head;
  }

  /** The checkpoint `id` of `ns`: in the window, else above it (a catch-up), else further down. */
  async readCheckpoint(ns: string, id: string): Promise<CheckpointEntry | undefined> {
    if (!this.log.checkpoint(ns, id)) await this.catchUp();
    await this.extendDown(() => {
      const found = this.log.checkpoint(ns, id);
      return found !== undefined && this.log.isReadable(found);
    });
    return this.log.checkpoint(ns, id);
  }

  async #add(message: ThreadMessage, place: Place): Promise<void> {
    const read = this.#reader.read(message, place);
    if (read) this.log.add(await this.open(read.record), read.place, read.messageIds);
  }

  /**
   * Adds a record this process has just stored (as the log keeps it), in the messages sent. Once
   * the window has been read, the next catch-up starts after them: the writer does not download
   * its own records again (the service already echoed each one). Another process's records stored
   * after them are found by that catch-up; one stored between this process's read and its own
   * write (two runs on one thread at once, which LangGraph does not support) is read by every
   * other process, and by this one when its window is next read from the newest messages.
   */
  appended(record: StoredRecord, sent: RecordMessage[], stored: ThreadMessage[]): RecordEntry {
    const place = { ...this.#next };
    for (const [i, message] of stored.entries()) {
      const at = { ...this.#next };
      this.#own.set(message.id, at);
      if (this.started && (!this.#top || at.position > this.#top.place.position)) {
        this.#top = { id: message.id, place: at };
      }
      this.#next = {
        position: this.#next.position + 1,
        offset: this.#next.offset + (sent[i]?.content.length ?? 0),
      };
    }
    // Own messages listed anyway (their creation raced) are recognised for a while, not forever.
    while (this.#own.size > MAX_OWN) {
      const oldest = this.#own.keys().next().value;
      if (oldest === undefined) break;
      this.#own.delete(oldest);
    }
    return this.log.add(
      record,
      place,
      stored.map((m) => m.id),
    );
  }

  /**
   * Forgets the records below what the newest checkpoints need and a margin of the newest
   * messages (LangGraph's delta channels read their parents' writes). Never above the newest
   * message read, so that reading down and catching up never list the same message twice.
   */
  trim(): void {
    const top = this.#top;
    if (!top) return;
    const keepFrom = Math.min(this.#next.position - READ_WINDOW.messages, top.place.position);
    const needed = this.log.neededFrom(keepFrom);
    if (needed === undefined) return;
    const horizon = Math.min(needed, keepFrom);
    if (horizon <= this.#lowest.position) return;
    this.log.removeBelow(horizon);
    this.#reader.dropBelow(horizon);
    let lowest: RecordEntry | undefined;
    for (const entry of this.log.entries()) {
      if (entry.place.position > top.place.position) continue;
      if (!lowest || entry.place.position < lowest.place.position) lowest = entry;
    }
    this.#lowest = lowest?.place ?? top.place;
    this.#bottom = lowest?.messageIds[0] ?? top.id;
    this.#reachedStart = false;
  }
}

function after(cursor: string | undefined): { after?: string } {
  return cursor === undefined ? {} : { after: cursor };
}
