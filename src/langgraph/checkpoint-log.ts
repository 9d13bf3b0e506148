/**
 * The records one process has read (or written) of one LangGraph thread, indexed the way the
 * Postgres saver's three tables are: checkpoints by (namespace, id), channel values by (namespace,
 * channel, version), pending writes by (namespace, checkpoint id, task id, index).
 *
 * Each record carries its place in the thread, so records may arrive in any order (a newest-first
 * read, then catch-ups) and the same rules hold as if read oldest first: a checkpoint put again
 * replaces the earlier one; a regular write is kept once, the first, while a special write (error,
 * interrupt, resume: negative index) is replaced by a later one. A version holds one value (see
 * `channel-values.ts`), so among its copies the one to read is a whole copy over appended items,
 * and the newest (the one a bounded read finds).
 */
import { compareWritesSortKeys, writesSortKey } from "@langchain/langgraph-checkpoint";
import { type ChainCost, chainedItems, type Place } from "./channel-values";
import {
  type CheckpointRecord,
  type LoadedValue,
  loadedValue,
  type StoredRecord,
  type ValueRef,
  type Version,
} from "./records";
import { cutParts, joinCut } from "./value-refs";

/** One record's place in the thread (its content lives in the indexes below). */
export interface RecordEntry {
  kind: StoredRecord["kind"];
  ns: string;
  checkpointId: string | undefined;
  place: Place;
  messageIds: string[];
}

export interface CheckpointEntry {
  entry: RecordEntry;
  /** The record without its values (they are in the value index). */
  record: CheckpointRecord;
}

export interface WriteEntry {
  owner: RecordEntry;
  taskId: string;
  taskPath: string;
  idx: number;
  channel: string;
  value: LoadedValue;
  /** Set while `value` is stored cut around this channel value (`value-refs.ts`). */
  cut?: ValueRef;
}

interface BlobEntry {
  owner: RecordEntry;
  chars: number;
  /** Set for a whole copy. */
  whole?: LoadedValue;
  /** Set when the whole copy is stored cut around another channel's value (`value-refs.ts`). */
  cut?: ValueRef;
  /** Set for appended items: the version they extend and the items' JSON list text. */
  base?: Version;
  items?: string;
  /** Set when the items follow only the first `keepChars` characters of the base's text. */
  keepChars?: number;
}

/** One copy on a value's chain: the version it holds and the record it is in. */
export interface ChainLink {
  version: Version;
  owner: RecordEntry;
}

/** A channel's value at one version, and what its chain costs to read. */
export interface ResolvedValue extends ChainCost {
  version: Version;
  value: LoadedValue;
}

export class CheckpointLog {
  readonly #entries = new Set<RecordEntry>();
  readonly #checkpoints = new Map<string, Map<string, CheckpointEntry>>();
  readonly #blobs = new Map<string, BlobEntry>();
  readonly #writes = new Map<string, Map<string, WriteEntry>>();
  /** The last value resolved per channel: the next step's value is one append away from it. */
  readonly #resolved = new Map<string, ResolvedValue>();

  add(record: StoredRecord, place: Place, messageIds: string[]): RecordEntry {
    const entry: RecordEntry = {
      kind: record.kind,
      ns: record.ns,
      checkpointId: record.kind === "values" ? undefined : record.checkpointId,
      place,
      messageIds,
    };
    this.#entries.add(entry);
    if (record.kind === "writes") {
      this.#addWrites(entry, record);
      return entry;
    }
    for (const blob of record.blobs) {
      let stored: BlobEntry;
      if ("value" in blob) {
        const whole = loadedValue(blob.value);
        stored = { owner: entry, chars: whole?.data.length ?? 0, whole };
        if (blob.cut !== undefined && blob.cut.channel !== blob.channel) stored.cut = blob.cut;
      } else {
        if (!("json" in blob.append) || !Array.isArray(blob.append.json)) continue;
        const items = JSON.stringify(blob.append.json);
        stored = { owner: entry, chars: items.length, base: blob.base, items };
        if (typeof blob.keepChars === "number") stored.keepChars = blob.keepChars;
      }
      this.#addBlob(record.ns, blob.channel, blob.version, stored);
    }
    if (record.kind === "checkpoint") {
      const byId = this.#checkpoints.get(record.ns) ?? new Map<string, CheckpointEntry>();
      this.#checkpoints.set(record.ns, byId);
      const existing = byId.get(record.checkpointId);
      if (!existing || existing.entry.place.position <= place.position) {
        byId.set(record.checkpointId, { entry, record: { ...record, blobs: [] } });
      }
    }
    return entry;
  }

  #addBlob(ns: string, channel: string, version: Version, blob: BlobEntry): void {
    const key = blobKey(ns, channel, version);
    const existing = this.#blobs.get(key);
    if (existing && !betterCopy(blob, existing)) return;
    this.#blobs.set(key, blob);
    const resolved = this.#resolved.get(channelKey(ns, channel));
    // A newer copy moves where the chain starts; the cached cost would be stale.
    if (resolved && (blob.whole !== undefined || sameVersion(resolved.version, version))) {
      this.#resolved.delete(channelKey(ns, channel));
    }
  }

  #addWrites(entry: RecordEntry, record: Extract<StoredRecord, { kind: "writes" }>): void {
    const key = writesKey(record.ns, record.checkpointId);
    const entries = this.#writes.get(key) ?? new Map<string, WriteEntry>();
    this.#writes.set(key, entries);
    for (const write of record.writes) {
      const writeKey = JSON.stringify([record.taskId, write.idx]);
      const existing = entries.get(writeKey);
      if (existing) {
        const later = entry.place.position > existing.owner.place.position;
        // Regular writes: the first is kept. Special writes: the last one wins.
        if (write.idx >= 0 ? later : !later) continue;
      }
      entries.set(writeKey, {
        owner: entry,
        taskId: record.taskId,
        taskPath: record.taskPath,
        idx: write.idx,
        channel: write.channel,
        value: loadedValue(write.value),
        ...(write.cut === undefined ? {} : { cut: write.cut }),
      });
    }
  }

  /** The checkpoint with `id`, or the latest of the namespace (ids are time-ordered uuid6). */
  checkpoint(ns: string, id?: string): CheckpointEntry | undefined {
    const byId = this.#checkpoints.get(ns);
    if (!byId) return undefined;
    if (id) return byId.get(id);
    let latest: CheckpointEntry | undefined;
    for (const found of byId.values()) {
      if (!latest || found.record.checkpointId > latest.record.checkpointId) latest = found;
    }
    return latest;
  }

  /** Every checkpoint, newest first within each namespace. */
  checkpoints(ns?: string): CheckpointEntry[] {
    const namespaces = ns === undefined ? [...this.#checkpoints.keys()] : [ns];
    return namespaces.flatMap((name) =>
      [...(this.#checkpoints.get(name)?.values() ?? [])].sort((a, b) =>
        compareIds(b.record.checkpointId, a.record.checkpointId),
      ),
    );
  }

  /**
   * The writes against a checkpoint, in the order live execution applies them; a value stored cut
   * around a channel value is whole again (left cut, with `cut` set, while that value is not read:
   * never a value to hand back).
   */
  pendingWrites(ns: string, checkpointId: string): WriteEntry[] {
    const entries = [...(this.#writes.get(writesKey(ns, checkpointId))?.values() ?? [])].map(
      (write) => {
        if (!write.cut || !write.value || typeof write.value.data !== "string") return write;
        const joined = this.#joined(ns, write.cut, write.value.data);
        if (joined === undefined) return write;
        const { cut: _joined, ...whole } = write;
        return { ...whole, value: { ...write.value, data: joined } };
      },
    );
    return entries.sort((a, b) =>
      compareWritesSortKeys(
        writesSortKey(a.taskPath, a.taskId, a.idx),
        writesSortKey(b.taskPath, b.taskId, b.idx),
      ),
    );
  }

  /** The value of a channel at a version; undefined while a record it needs is not read. */
  resolve(ns: string, channel: string, version: Version): ResolvedValue | undefined {
    const key = channelKey(ns, channel);
    const cached = this.#resolved.get(key);
    const walked = this.#walk(ns, channel, version, cached?.version);
    if (!walked) return undefined;
    const { links, reachedWhole } = walked;
    const appendedLinks = reachedWhole ? links.slice(0, -1) : links;
    let start = cached;
    if (reachedWhole) {
      const { version: rootVersion, blob } = links.at(-1)!;
      let value = blob.whole ?? null;
      if (blob.cut && value && typeof value.data === "string") {
        const joined = this.#joined(ns, blob.cut, value.data);
        if (joined === undefined) return undefined;
        value = { ...value, data: joined };
      }
      const whole = { value, root: blob.owner.place, rootChars: blob.chars };
      start = { version: rootVersion, ...whole, sinceRootChars: 0 };
    }
    if (!start) return undefined;
    if (appendedLinks.length === 0 && start === cached) return cached;
    const data = start.value?.data;
    if (appendedLinks.length > 0 && typeof data !== "string") return undefined;
    const appended = appendedLinks
      .map((link) => ({ items: link.blob.items ?? "[]", keepChars: link.blob.keepChars }))
      .reverse();
    const text = appendedLinks.length === 0 ? undefined : chainedItems(data as string, appended);
    if (appendedLinks.length > 0 && text === undefined) return undefined;
    const resolved: ResolvedValue = {
      ...start,
      version,
      value: text === undefined ? start.value : { type: start.value!.type, data: text },
      sinceRootChars:
        start.sinceRootChars + appendedLinks.reduce((sum, link) => sum + link.blob.chars, 0),
    };
    this.#resolved.set(key, resolved);
    return resolved;
  }

  /** `cut` text (`[before, after]` as stored) joined around the value it references. */
  #joined(ns: string, ref: ValueRef, cut: string): string | undefined {
    const parts = cutParts(cut);
    const referenced = this.resolve(ns, ref.channel, ref.version)?.value?.data;
    if (!parts || typeof referenced !== "string") return undefined;
    if (ref.keepChars !== undefined && ref.keepChars > referenced.length) return undefined;
    return joinCut(parts, referenced, ref.keepChars);
  }

  /** Remembers a value the caller just stored, so the next step need not rebuild it. */
  remember(ns: string, channel: string, resolved: ResolvedValue): void {
    this.#resolved.set(channelKey(ns, channel), resolved);
  }

  /**
   * The copies a value is read from, newest version first, down to the first whole copy;
   * undefined while one is not read (or was never stored).
   */
  chain(ns: string, channel: string, version: Version, depth = 0): ChainLink[] | undefined {
    const walked = this.#walk(ns, channel, version);
    if (!walked) return undefined;
    const links = walked.links.map((link) => ({ version: link.version, owner: link.blob.owner }));
    // A whole copy cut around another value reads that value's chain too.
    const cut = walked.links.at(-1)?.blob.cut;
    if (!cut || !walked.reachedWhole) return links;
    if (depth > 4) return undefined;
    const referenced = this.chain(ns, cut.channel, cut.version, depth + 1);
    return referenced && [...links, ...referenced];
  }

  /** From `version` down to a whole copy, or to `stop` (a version already rebuilt). */
  #walk(
    ns: string,
    channel: string,
    version: Version,
    stop?: Version,
  ): { links: { version: Version; blob: BlobEntry }[]; reachedWhole: boolean } | undefined {
    const links: { version: Version; blob: BlobEntry }[] = [];
    let current = version;
    for (;;) {
      if (stop !== undefined && sameVersion(stop, current)) return { links, reachedWhole: false };
      const blob = this.#blobs.get(blobKey(ns, channel, current));
      // A chain longer than the index is a loop: damaged records, never written by this saver.
      if (!blob || links.length > this.#blobs.size) return undefined;
      links.push({ version: current, blob });
      if (blob.whole !== undefined) return { links, reachedWhole: true };
      if (blob.base === undefined) return undefined;
      current = blob.base;
    }
  }

  /**
   * The records a checkpoint's values are read from, and the values its writes reference
   * (`value-refs.ts`); undefined while one is not read.
   */
  #valueOwners(found: CheckpointEntry): RecordEntry[] | undefined {
    const owners: RecordEntry[] = [];
    for (const { channel, version } of this.references(found)) {
      const links = this.chain(found.record.ns, channel, version);
      if (!links) return undefined;
      for (const link of links) owners.push(link.owner);
    }
    return owners;
  }

  /** The channel values a checkpoint's tuple reads: its own, and those its writes reference. */
  references(found: CheckpointEntry): { channel: string; version: Version }[] {
    const { ns, checkpointId, versions } = found.record;
    const refs = Object.entries(versions).map(([channel, version]) => ({ channel, version }));
    return [...refs, ...this.writeReferences(ns, checkpointId)];
  }

  /** The channel values the writes against a checkpoint are stored cut around. */
  writeReferences(ns: string, checkpointId: string): ValueRef[] {
    const refs: ValueRef[] = [];
    for (const write of this.#writes.get(writesKey(ns, checkpointId))?.values() ?? []) {
      if (write.cut) refs.push(write.cut);
    }
    return refs;
  }

  /**
   * Whether everything a checkpoint's tuple needs has been read: each value's chain, the writes
   * stored before it, and for a checkpoint of LangGraph's checkpoint version (`v`) below 4, its
   * parent (whose writes hold the pending sends).
   */
  isReadable(found: CheckpointEntry): boolean {
    const { record } = found;
    if (!this.#valueOwners(found)) return false;
    const writes = [
      ...(this.#writes.get(writesKey(record.ns, record.checkpointId))?.values() ?? []),
    ];
    const early = record.earlyWrites ?? [];
    if (!early.every((taskId) => writes.some((write) => write.taskId === taskId))) return false;
    if (record.parentId === undefined || checkpointVersion(record) >= 4) return true;
    return this.checkpoint(record.ns, record.parentId) !== undefined;
  }

  /**
   * The lowest position that the newest checkpoint of each namespace needs (itself, its writes,
   * the records its values are read from), ignoring namespaces whose newest checkpoint is below
   * `from`; undefined when one of them cannot be read yet.
   */
  neededFrom(from: number): number | undefined {
    let lowest = Number.POSITIVE_INFINITY;
    for (const ns of this.#checkpoints.keys()) {
      const head = this.checkpoint(ns);
      if (!head || head.entry.place.position < from) continue;
      const owners = this.#valueOwners(head);
      if (!owners) return undefined;
      const writes = this.pendingWrites(ns, head.record.checkpointId).map((write) => write.owner);
      for (const owner of [head.entry, ...owners, ...writes]) {
        lowest = Math.min(lowest, owner.place.position);
      }
    }
    return lowest;
  }

  /** Every record entry, in no particular order. */
  entries(): Iterable<RecordEntry> {
    return this.#entries;
  }

  /** Forgets the given records (pruned, deleted, or below what is kept in memory). */
  remove(gone: ReadonlySet<RecordEntry>): void {
    if (gone.size === 0) return;
    for (const entry of gone) this.#entries.delete(entry);
    for (const [ns, byId] of this.#checkpoints) {
      for (const [id, found] of byId) if (gone.has(found.entry)) byId.delete(id);
      if (byId.size === 0) this.#checkpoints.delete(ns);
    }
    for (const [key, blob] of this.#blobs) if (gone.has(blob.owner)) this.#blobs.delete(key);
    for (const [key, writes] of this.#writes) {
      for (const [writeKey, write] of writes) if (gone.has(write.owner)) writes.delete(writeKey);
      if (writes.size === 0) this.#writes.delete(key);
    }
  }

  /** Forgets every record below `position`. */
  removeBelow(position: number): void {
    const gone = new Set<RecordEntry>();
    for (const entry of this.#entries) if (entry.place.position < position) gone.add(entry);
    this.remove(gone);
  }
}

/** Whole copies over appended items; then the newest copy. */
function betterCopy(candidate: BlobEntry, existing: BlobEntry): boolean {
  const wholeNew = candidate.whole !== undefined;
  const wholeOld = existing.whole !== undefined;
  if (wholeNew !== wholeOld) return wholeNew;
  return candidate.owner.place.position >= existing.owner.place.position;
}

/** LangGraph's checkpoint version (`v`) of the stored checkpoint (4 when it does not say). */
function checkpointVersion(record: CheckpointRecord): number {
  const stored = record.checkpoint;
  const v = "json" in stored ? (stored.json as { v?: unknown } | null)?.v : undefined;
  return typeof v === "number" ? v : 4;
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sameVersion(a: Version, b: Version): boolean {
  return String(a) === String(b);
}

function blobKey(ns: string, channel: string, version: Version): string {
  return JSON.stringify([ns, channel, String(version)]);
}

function channelKey(ns: string, channel: string): string {
  return JSON.stringify([ns, channel]);
}

function writesKey(ns: string, checkpointId: string): string {
  return JSON.stringify([ns, checkpointId]);
}
