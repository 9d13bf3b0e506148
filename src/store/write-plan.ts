/**
 * Write planning, pure: which of a batch's puts and deletes are written (the last op of a key
 * wins, in the place of its first, as InMemoryStore applies them) and the entries each namespace
 * gets, stamped after everything the batch read.
 */
import type { StudioPutOperation } from "./operations";
import type { Entry, NamespaceLog, NamespaceWrite, Stamp, StoredPayload } from "./records";
import { expiryFields } from "./ttl";

/** A put or delete ready to write (`stored` undefined: a delete). */
export interface PreparedPut {
  op: StudioPutOperation;
  stored: StoredPayload | undefined;
  /** Its TTL in minutes, if it has one. */
  ttl: number | undefined;
}

/** The puts of a batch that are written: the last of each key, in the place of the key's first. */
export function latestPuts(puts: readonly StudioPutOperation[]): StudioPutOperation[] {
  const latest = new Map<string, StudioPutOperation>();
  for (const op of puts) latest.set(JSON.stringify([op.namespace, op.key]), op);
  return [...latest.values()];
}

/**
 * The entries each namespace gets, one write per namespace in the order the puts came: an `open`
 * first for a namespace that holds no items yet, then each put (keeping the created stamp of the
 * item it replaces) or delete. `logs` are the namespaces as the batch read them; `stamp` gives a
 * stamp later than the largest one read.
 */
export function planWrites(
  prepared: readonly PreparedPut[],
  logs: ReadonlyMap<string, NamespaceLog | undefined>,
  now: number,
  stamp: (seen: number) => Stamp,
): NamespaceWrite[] {
  let seen = 0;
  for (const log of logs.values()) seen = Math.max(seen, log?.maxStamp ?? 0);
  const writes = new Map<string, NamespaceWrite>();
  for (const { op, stored, ttl } of prepared) {
    const nsKey = JSON.stringify(op.namespace);
    const log = logs.get(nsKey);
    const stamped = stamp(seen);
    let write = writes.get(nsKey);
    if (!write) {
      write = { namespace: [...op.namespace], entries: [] };
      writes.set(nsKey, write);
      if (!log?.opened) write.entries.push({ op: "open", ...stamped });
    }
    if (stored === undefined) {
      write.entries.push({ op: "del", key: op.key, ...stamped });
      continue;
    }
    write.entries.push({
      op: "put",
      key: op.key,
      ...stamped,
      c: log?.live(op.key, now)?.c ?? stamped.s,
      ...expiryFields(ttl, now),
      ...stored,
    });
  }
  return [...writes.values()];
}

/** "the write of key \"a\"", "3 writes (keys \"a\", \"b\", \"c\")": for error messages. */
export function describeWrites(entries: readonly Entry[]): string {
  const keys = entries.flatMap((entry) => ("key" in entry ? [JSON.stringify(entry.key)] : []));
  if (keys.length === 1) return `the write of key ${keys[0]}`;
  const shown = keys.length > 5 ? `${keys.slice(0, 5).join(", ")}...` : keys.join(", ");
  return `${keys.length} writes (keys ${shown})`;
}
