/**
 * Encryption contexts: the place a stored value belongs to, bound into its ciphertext as
 * associated data, so that a value copied to any other place fails to decrypt there. A context is
 * a string; the package's are the JSON text of an array whose first item names the kind of place:
 *
 *   ["checkpoint", thread_id, checkpoint_ns, checkpoint_id, part, parent_id, versions]
 *                                      a checkpoint ("checkpoint") or its metadata ("metadata")
 *   ["channel", thread_id, checkpoint_ns, channel, version]             a channel's value
 *   ["channel", thread_id, checkpoint_ns, channel, version, base]       items appended to `base`
 *   ["write", thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel]   a pending write
 *   ["store", [namespace labels...], key]                              a StudioStore item
 *
 * A channel's value is bound to its version, not to a checkpoint: LangGraph names the same
 * (channel, version) from every checkpoint the channel did not change in, as the Postgres saver's
 * blobs table keys it. A version is never reused for another value (`channel-values.ts`), so the
 * value is the one those checkpoints hold and no other. A checkpoint binds the versions it names
 * and its parent, so neither can be changed without the checkpoint being refused.
 *
 * JSON keeps the parts apart whatever characters they hold (no separator can be forged), and ""
 * is the context of the serializer's plain `dumpsTyped`/`loadsTyped`, which are told no place.
 */

/** A channel version as LangGraph hands it over. */
type Version = string | number;

export interface CheckpointPlace {
  threadId: string;
  checkpointNs: string;
  checkpointId: string;
  /** The parent checkpoint's id, if it has one. */
  parentId?: string | undefined;
  /** The checkpoint's `channel_versions`. */
  versions: Readonly<Record<string, Version>>;
}

/** The context of a checkpoint (without its channel values) or of its metadata. */
export function checkpointContext(place: CheckpointPlace, part: "checkpoint" | "metadata"): string {
  const versions = Object.entries(place.versions)
    .map(([channel, version]) => [channel, String(version)])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
  return JSON.stringify([
    "checkpoint",
    place.threadId,
    place.checkpointNs,
    place.checkpointId,
    part,
    place.parentId ?? null,
    versions,
  ]);
}

export interface ChannelValuePlace {
  threadId: string;
  checkpointNs: string;
  channel: string;
  version: Version;
  /** For items appended to the channel's value: the version they extend. */
  base?: Version | undefined;
}

/** The context of a channel's value at one version, or of the items appended to reach it. */
export function channelValueContext(place: ChannelValuePlace): string {
  const { threadId, checkpointNs, channel, version, base } = place;
  const parts = ["channel", threadId, checkpointNs, channel, String(version)];
  return JSON.stringify(base === undefined ? parts : [...parts, String(base)]);
}

export interface PendingWritePlace {
  threadId: string;
  checkpointNs: string;
  checkpointId: string;
  taskId: string;
  idx: number;
  channel: string;
}

/** The context of one pending write of a task against a checkpoint. */
export function pendingWriteContext(place: PendingWritePlace): string {
  const { threadId, checkpointNs, checkpointId, taskId, idx, channel } = place;
  return JSON.stringify(["write", threadId, checkpointNs, checkpointId, taskId, idx, channel]);
}

/** The context of a store item's value. */
export function storeContext(namespace: readonly string[], key: string): string {
  return JSON.stringify(["store", namespace, key]);
}
