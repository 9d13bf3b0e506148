/**
 * A thread's checkpoints written again under another thread id, through any checkpointer's own
 * `list`, `put` and `putWrites` (LangGraph's savers have no copy of their own; the reference's
 * in-memory one copies its maps). The copy keeps every checkpoint id, its parent, its metadata
 * and its pending writes, so the copy's history, its interrupts and a fork from any of its
 * checkpoints read as the original's did.
 */
import type {
  BaseCheckpointSaver,
  ChannelVersions,
  CheckpointTuple,
  PendingWrite,
} from "@langchain/langgraph-checkpoint";

/** The channels whose version differs from the parent's: what a `put` stores anew. */
function changedVersions(tuple: CheckpointTuple, parent?: CheckpointTuple): ChannelVersions {
  const versions = tuple.checkpoint.channel_versions;
  if (!parent) return { ...versions };
  const before = parent.checkpoint.channel_versions;
  const changed: ChannelVersions = {};
  for (const [channel, version] of Object.entries(versions)) {
    if (before[channel] !== version) changed[channel] = version;
  }
  return changed;
}

/** Each task's writes, as `putWrites` takes them. */
function writesByTask(tuple: CheckpointTuple): Map<string, PendingWrite[]> {
  const tasks = new Map<string, PendingWrite[]>();
  for (const [taskId, channel, value] of tuple.pendingWrites ?? []) {
    const list = tasks.get(taskId) ?? [];
    list.push([channel, value]);
    tasks.set(taskId, list);
  }
  return tasks;
}

/**
 * Copies every checkpoint of `from` (every namespace) to `to`, oldest first, so each parent is
 * written before its children. Returns how many checkpoints were copied.
 */
export async function copyCheckpoints(
  saver: BaseCheckpointSaver,
  from: string,
  to: string,
): Promise<number> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: from } })) tuples.push(tuple);
  // Checkpoint ids are time-ordered (uuid6): ascending is parents first, in every namespace.
  tuples.sort((a, b) => (a.checkpoint.id < b.checkpoint.id ? -1 : 1));
  const byId = new Map(tuples.map((tuple) => [tuple.checkpoint.id, tuple]));
  for (const tuple of tuples) {
    const ns = tuple.config.configurable?.checkpoint_ns ?? "";
    const parentId = tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
    const written = await saver.put(
      {
        configurable: {
          thread_id: to,
          checkpoint_ns: ns,
          ...(parentId ? { checkpoint_id: parentId } : {}),
        },
      },
      tuple.checkpoint,
      tuple.metadata ?? { source: "update", step: -1, parents: {} },
      changedVersions(tuple, parentId ? byId.get(parentId) : undefined),
    );
    for (const [taskId, writes] of writesByTask(tuple)) {
      await saver.putWrites(written, writes, taskId);
    }
  }
  return tuples.length;
}
