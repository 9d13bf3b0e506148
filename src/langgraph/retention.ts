/**
 * What `prune` keeps and removes, planned from a whole thread's log (pure: the saver does the I/O).
 *
 * Kept, per namespace: the `keepLast` newest checkpoints, and every checkpoint that waits on an
 * interrupt (it has an interrupt write and no checkpoint continues from it), each with its pending
 * writes. Removed: every other checkpoint, its writes, and copies of values no kept checkpoint
 * reads. A kept checkpoint whose value is read through a removed record gets a whole copy of that
 * value in a new "values" record, written before anything is deleted.
 *
 * Records are deleted newest first. A record's values extend older ones, or copy them, so while a
 * prune runs (or after it stops half way), every checkpoint still in the thread reads whole.
 */
import { INTERRUPT } from "@langchain/langgraph-checkpoint";
import type { ChainLink, CheckpointEntry, CheckpointLog, RecordEntry } from "./checkpoint-log";
import {
  type BlobRecord,
  RECORD_FORMAT,
  storedValueOf,
  type ValuesRecord,
  type Version,
} from "./records";

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

  const copies = new Map<string, BlobRecord[]>();
  const copied = new Set<string>();
  // Oldest first: a newer kept checkpoint's chain then stops at the copies made for older ones.
  for (const found of [...kept].reverse()) {
    const { ns } = found.record;
    for (const [channel, version] of Object.entries(found.record.versions)) {
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
    copies: [...copies].map(([ns, blobs]) => ({
      kind: "values",
      format: RECORD_FORMAT,
      threadId,
      ns,
      blobs,
    })),
    remove,
  };
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
