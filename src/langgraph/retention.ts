/**
 * What `prune` keeps and removes, planned from a whole thread's log (pure: the saver does the I/O).
 *
 * Kept, per namespace: the `keepLast` newest checkpoints, and every checkpoint that waits on an
 * interrupt (it has an interrupt write and no checkpoint continues from it), each with its pending
 * writes; and every write whose checkpoint the prune has not read, unless that checkpoint is older
 * than the oldest one kept. LangGraph (durability "async") stores a step's writes before the
 * step's checkpoint, so while a run goes on in another process the thread holds writes of a
 * checkpoint still on its way: an interrupt among them must survive. Removed: every other
 * checkpoint, its writes, and copies of values no kept checkpoint reads. Only records the prune
 * read can be removed, so nothing stored after its read is touched. A kept checkpoint whose value
 * is read through a removed record gets a whole copy of that
 * value in a new "values" record, written before anything is deleted.
 *
 * Records are deleted newest first. A record's values extend older ones, or copy them, so while a
 * prune runs (or after it stops half way), every checkpoint still in the thread reads whole.
 */
import { INTERRUPT } from "@langchain/langgraph-checkpoint";
import { valuesRecord } from "../records/checkpoint";
import type { ChainLink, CheckpointEntry, CheckpointLog, RecordEntry } from "./checkpoint-log";
import { type BlobRecord, storedValueOf, type ValuesRecord, type Version } from "./records";
import type { PrunedThread } from "./saver-config";

export interface PrunePlan {
  /** Whole copies the kept checkpoints need, one record per namespace; to write first. */
  copies: ValuesRecord[];
  /** The records to delete, newest first. */
  remove: RecordEntry[];
}

export function planPrune(log: CheckpointLog, threadId: string, keepLast: number): PrunePlan {
  const kept = keptCheckpoints(log, keepLast);
  const keep = new Set<RecordEntry>();
  for (const found of kept) {
    keep.add(found.entry);
    for (const write of log.pendingWrites(found.record.ns, found.record.checkpointId)) {
      keep.add(write.owner);
    }
  }
  const oldestKept = new Map<string, string>();
  for (const found of kept) {
    const { ns, checkpointId } = found.record;
    const oldest = oldestKept.get(ns);
    if (oldest === undefined || checkpointId < oldest) oldestKept.set(ns, checkpointId);
  }
  for (const entry of log.entries()) {
    if (entry.kind !== "writes" || entry.checkpointId === undefined) continue;
    if (log.checkpoint(entry.ns, entry.checkpointId)) continue;
    const oldest = oldestKept.get(entry.ns);
    // A write of a checkpoint not read: on its way (keep) unless older than everything kept.
    if (oldest === undefined || entry.checkpointId >= oldest) keep.add(entry);
  }

  const copies = new Map<string, BlobRecord[]>();
  const copied = new Set<string>();
  // Oldest first: a newer kept checkpoint's chain then stops at the copies made for older ones.
  for (const found of [...kept].reverse()) {
    const { ns } = found.record;
    for (const { channel, version } of log.references(found)) {
      const links = log.chain(ns, channel, version);
      if (!links) continue;
      if (!readsRemoved(links, keep, (v) => copied.has(copyKey(ns, channel, v)))) continue;
      const resolved = log.resolve(ns, channel, version);
      if (!resolved) continue;
      const blobs = copies.get(ns) ?? [];
      blobs.push({ channel, version, value: storedValueOf(resolved.value) });
      copies.set(ns, blobs);
      copied.add(copyKey(ns, channel, version));
    }
  }

  const remove = [...log.entries()]
    .filter((entry) => !keep.has(entry))
    .sort((a, b) => b.place.position - a.place.position);
  return {
    copies: [...copies].map(([ns, blobs]) => valuesRecord({ threadId, ns, blobs })),
    remove,
  };
}

/** What deleting `remove` deletes, as `prune` reports it. */
export function prunedThread(threadId: string, remove: readonly RecordEntry[]): PrunedThread {
  // A checkpoint put twice (a retried write) is one checkpoint in two records.
  const ids = new Map<string, { checkpointNs: string; checkpointId: string }>();
  for (const entry of remove) {
    if (entry.kind !== "checkpoint" || entry.checkpointId === undefined) continue;
    const checkpoint = { checkpointNs: entry.ns, checkpointId: entry.checkpointId };
    ids.set(JSON.stringify(checkpoint), checkpoint);
  }
  const checkpoints = [...ids.values()].sort((a, b) =>
    a.checkpointId < b.checkpointId ? 1 : a.checkpointId > b.checkpointId ? -1 : 0,
  );
  return {
    threadId,
    checkpoints,
    writes: remove.filter((entry) => entry.kind === "writes").length,
    messages: remove.reduce((sum, entry) => sum + entry.messageIds.length, 0),
  };
}

/**
 * What a `keep: "latest"` put deletes once checkpoint `checkpointId` of `ns` is stored: the
 * namespace's older checkpoints, the writes against them, and "values" copies, as far as this
 * process has read them. Never a checkpoint or a write with a newer id (another process's, or
 * writes LangGraph stored before their checkpoint: an interrupt, or a task that succeeded beside
 * a failing one), never the new checkpoint's own writes, and never a record a value those writes
 * are cut around is read from.
 */
export function planSuperseded(
  log: CheckpointLog,
  ns: string,
  checkpointId: string,
  /** The new checkpoint's position: "values" copies above it may serve a newer checkpoint. */
  position: number,
): RecordEntry[] {
  // LangGraph (durability "async") may store the new checkpoint's writes before it, cut around a
  // value of an older checkpoint: the records that value is read from stay until a later put.
  const referenced = new Set<RecordEntry>();
  for (const { channel, version } of log.writeReferences(ns, checkpointId)) {
    for (const link of log.chain(ns, channel, version) ?? []) referenced.add(link.owner);
  }
  return [...log.entries()]
    .filter(
      (entry) =>
        entry.ns === ns &&
        !referenced.has(entry) &&
        (entry.kind === "values"
          ? entry.place.position < position
          : entry.checkpointId !== undefined && entry.checkpointId < checkpointId),
    )
    .sort((a, b) => b.place.position - a.place.position);
}

/** Whether a chain, followed down to a version already copied, passes through a removed record. */
function readsRemoved(
  links: readonly ChainLink[],
  keep: ReadonlySet<RecordEntry>,
  isCopied: (version: Version) => boolean,
): boolean {
  for (const link of links) {
    if (isCopied(link.version)) return false;
    if (!keep.has(link.owner)) return true;
  }
  return false;
}

/** Per namespace: the `keepLast` newest, and the ones waiting on an interrupt. */
function keptCheckpoints(log: CheckpointLog, keepLast: number): CheckpointEntry[] {
  const all = log.checkpoints();
  const continued = new Set(all.map((found) => `${found.record.ns}\u0000${found.record.parentId}`));
  const kept: CheckpointEntry[] = [];
  const perNamespace = new Map<string, number>();
  for (const found of all) {
    const { ns, checkpointId } = found.record;
    const rank = perNamespace.get(ns) ?? 0;
    perNamespace.set(ns, rank + 1);
    const waiting =
      !continued.has(`${ns}\u0000${checkpointId}`) &&
      log.pendingWrites(ns, checkpointId).some((write) => write.channel === INTERRUPT);
    if (rank < keepLast || waiting) kept.push(found);
  }
  return kept.sort((a, b) => (a.record.checkpointId < b.record.checkpointId ? 1 : -1));
}

function copyKey(ns: string, channel: string, version: Version): string {
  return JSON.stringify([ns, channel, String(version)]);
}
