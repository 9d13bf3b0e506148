/**
 * One LangGraph thread's records, indexed the way the Postgres saver's three tables are:
 * checkpoints by (namespace, id), channel blobs by (namespace, channel, version), pending writes
 * by (namespace, checkpoint id, task id, index). Records are added in the order the thread holds
 * them, and the same conflict rules apply: a checkpoint put again replaces the earlier one, a
 * blob version is written once, a regular write is kept once while a special write (error,
 * interrupt, resume: negative index) is replaced by a later one.
 */
import { compareWritesSortKeys, writesSortKey } from "@langchain/langgraph-checkpoint";
import type { CheckpointRecord, StoredRecord, StoredValue } from "./records";

export interface WriteEntry {
  taskId: string;
  taskPath: string;
  idx: number;
  channel: string;
  value: StoredValue;
}

export class CheckpointLog {
  private readonly checkpoints = new Map<string, Map<string, CheckpointRecord>>();
  private readonly blobs = new Map<string, StoredValue>();
  private readonly writes = new Map<string, Map<string, WriteEntry>>();

  add(record: StoredRecord): void {
    if (record.kind === "checkpoint") {
      const byId = this.checkpoints.get(record.ns) ?? new Map<string, CheckpointRecord>();
      byId.set(record.checkpointId, record);
      this.checkpoints.set(record.ns, byId);
      for (const [channel, blob] of Object.entries(record.blobs)) {
        const key = blobKey(record.ns, channel, blob.version);
        if (!this.blobs.has(key)) this.blobs.set(key, blob.value);
      }
      return;
    }
    const key = writesKey(record.ns, record.checkpointId);
    const entries = this.writes.get(key) ?? new Map<string, WriteEntry>();
    this.writes.set(key, entries);
    for (const write of record.writes) {
      const entryKey = JSON.stringify([record.taskId, write.idx]);
      if (write.idx >= 0 && entries.has(entryKey)) continue;
      entries.set(entryKey, {
        taskId: record.taskId,
        taskPath: record.taskPath,
        idx: write.idx,
        channel: write.channel,
        value: write.value,
      });
    }
  }

  /** The checkpoint with `id`, or the latest of the namespace (ids are time-ordered uuid6). */
  checkpoint(ns: string, id?: string): CheckpointRecord | undefined {
    const byId = this.checkpoints.get(ns);
    if (!byId) return undefined;
    if (id) return byId.get(id);
    let latest: CheckpointRecord | undefined;
    for (const record of byId.values()) {
      if (!latest || record.checkpointId > latest.checkpointId) latest = record;
    }
    return latest;
  }

  /** Every checkpoint, newest first within each namespace. */
  allCheckpoints(ns?: string): CheckpointRecord[] {
    const namespaces = ns === undefined ? [...this.checkpoints.keys()] : [ns];
    return namespaces.flatMap((name) =>
      [...(this.checkpoints.get(name)?.values() ?? [])].sort((a, b) =>
        a.checkpointId < b.checkpointId ? 1 : a.checkpointId > b.checkpointId ? -1 : 0,
      ),
    );
  }

  blob(ns: string, channel: string, version: string | number): StoredValue | undefined {
    return this.blobs.get(blobKey(ns, channel, version));
  }

  /** The writes against a checkpoint, in the order live execution applies them. */
  pendingWrites(ns: string, checkpointId: string): WriteEntry[] {
    const entries = [...(this.writes.get(writesKey(ns, checkpointId))?.values() ?? [])];
    return entries.sort((a, b) =>
      compareWritesSortKeys(
        writesSortKey(a.taskPath, a.taskId, a.idx),
        writesSortKey(b.taskPath, b.taskId, b.idx),
      ),
    );
  }
}

function blobKey(ns: string, channel: string, version: string | number): string {
  return JSON.stringify([ns, channel, String(version)]);
}

function writesKey(ns: string, checkpointId: string): string {
  return JSON.stringify([ns, checkpointId]);
}
