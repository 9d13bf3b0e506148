/**
 * Encryption contexts: the place a stored value belongs to, bound into its ciphertext as
 * associated data, so that a value copied to any other place fails to decrypt there. A context is
 * a string; the package's are the JSON text of an array whose first item names the kind of place:
 *
 *   ["checkpoint", thread_id, checkpoint_ns, checkpoint_id, channel]   a checkpointer value
 *   ["store", [namespace labels...], key]                              a StudioStore item
 *
 * JSON keeps the parts apart whatever characters they hold (no separator can be forged), and ""
 * is the context of the serializer's plain `dumpsTyped`/`loadsTyped`, which are told no place.
 */

export interface CheckpointPlace {
  threadId: string;
  checkpointNs: string;
  checkpointId: string;
  /** The channel, or a name for what else the checkpointer stores (e.g. "__metadata__"). */
  channel: string;
}

/** The context of a checkpointer value. */
export function checkpointContext(place: CheckpointPlace): string {
  return JSON.stringify([
    "checkpoint",
    place.threadId,
    place.checkpointNs,
    place.checkpointId,
    place.channel,
  ]);
}

/** The context of a store item's value. */
export function storeContext(namespace: readonly string[], key: string): string {
  return JSON.stringify(["store", namespace, key]);
}
