/**
 * A stored checkpoint as LangGraph reads it back: its `channel_values` rebuilt from the copies its
 * `channel_versions` name, its pending writes, its parent's config; and checkpoints of LangGraph's
 * checkpoint version (`v`) below 4 given the pending sends their parent's writes hold.
 */
import {
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  maxChannelVersion,
  type SerializerProtocol,
  TASKS,
} from "@langchain/langgraph-checkpoint";
import type { CheckpointEntry, CheckpointLog } from "./checkpoint-log";
import { type LoadedValue, loadValue, type StoredValue } from "./records";

export async function checkpointTuple(
  serde: SerializerProtocol,
  threadId: string,
  log: CheckpointLog,
  found: CheckpointEntry,
  firstVersion: () => string | number,
): Promise<CheckpointTuple> {
  const { record } = found;
  const checkpoint = (await loadStored(serde, record.checkpoint)) as Checkpoint;
  checkpoint.channel_versions = { ...record.versions };
  const values: Record<string, unknown> = {};
  for (const [channel, version] of Object.entries(record.versions)) {
    const resolved = log.resolve(record.ns, channel, version);
    if (resolved?.value) values[channel] = await loadResolved(serde, resolved.value);
  }
  checkpoint.channel_values = values;
  if (checkpoint.v < 4 && record.parentId !== undefined) {
    await migratePendingSends(
      serde,
      checkpoint,
      log.pendingWrites(record.ns, record.parentId).filter((w) => w.cut === undefined),
      firstVersion,
    );
  }
  const config = (checkpointId: string) => ({
    configurable: { thread_id: threadId, checkpoint_ns: record.ns, checkpoint_id: checkpointId },
  });
  const pendingWrites: CheckpointPendingWrite[] = await Promise.all(
    log
      .pendingWrites(record.ns, record.checkpointId)
      // Still cut: the value it was cut around is gone (deleted by another process). Skipped as a
      // channel value without its copies is, so LangGraph runs the task again; its halves are
      // never handed back as the value.
      .filter((w) => w.cut === undefined)
      .map(
        async (w) =>
          [w.taskId, w.channel, await loadResolved(serde, w.value)] as CheckpointPendingWrite,
      ),
  );
  return {
    config: config(record.checkpointId),
    checkpoint,
    metadata: (await loadStored(serde, record.metadata)) as CheckpointMetadata,
    ...(record.parentId === undefined ? {} : { parentConfig: config(record.parentId) }),
    pendingWrites,
  };
}

/** Checkpoint version (`v`) below 4: pending sends were writes to TASKS on the parent. */
async function migratePendingSends(
  serde: SerializerProtocol,
  checkpoint: Checkpoint,
  parentWrites: readonly { channel: string; value: LoadedValue }[],
  firstVersion: () => string | number,
): Promise<void> {
  const sends = parentWrites.filter((w) => w.channel === TASKS);
  checkpoint.channel_values[TASKS] = await Promise.all(
    sends.map((w) => loadResolved(serde, w.value)),
  );
  const versions = Object.values(checkpoint.channel_versions);
  checkpoint.channel_versions[TASKS] =
    versions.length > 0 ? maxChannelVersion(...versions) : firstVersion();
}

export function loadStored(serde: SerializerProtocol, value: StoredValue): Promise<unknown> {
  const [type, data] = loadValue(value);
  return serde.loadsTyped(type, data);
}

function loadResolved(serde: SerializerProtocol, value: LoadedValue): Promise<unknown> {
  return value === null ? Promise.resolve(undefined) : serde.loadsTyped(value.type, value.data);
}
