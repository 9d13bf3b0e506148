/**
 * TTL decisions, pure: the TTL a put gets, the expiry it is written with, and the touches a read
 * writes to move the expiry of the items it returned (`refreshOnRead`).
 */
import type { Entry, NamespaceWrite, PutEntry } from "./records";

export const MINUTE_MS = 60_000;

/**
 * The TTL in minutes a put stores its item with: its own, else the store's default; none for null.
 */
export function putTtl(
  ttl: number | null | undefined,
  defaultTtl: number | undefined,
): number | undefined {
  return ttl === undefined ? defaultTtl : (ttl ?? undefined);
}

/** The expiry fields of a put entry written at `now` (nothing without a TTL). */
export function expiryFields(
  ttl: number | undefined,
  now: number,
): { e: number; ttl: number } | Record<string, never> {
  return ttl === undefined ? {} : { e: now + ttl * MINUTE_MS, ttl };
}

/**
 * The touches that move the expiry of the items a batch returned to `now` plus their TTL: one
 * write per namespace, one touch per key (items without a TTL need none).
 */
export function planRefresh(
  items: readonly { namespace: readonly string[]; entry: PutEntry }[],
  now: number,
): NamespaceWrite[] {
  const touches = new Map<string, { namespace: string[]; entries: Map<string, Entry> }>();
  for (const { namespace, entry } of items) {
    if (entry.ttl === undefined) continue;
    const nsKey = JSON.stringify(namespace);
    const group = touches.get(nsKey) ?? { namespace: [...namespace], entries: new Map() };
    touches.set(nsKey, group);
    group.entries.set(entry.key, {
      op: "touch",
      key: entry.key,
      of: { s: entry.s, w: entry.w },
      e: now + entry.ttl * MINUTE_MS,
    });
  }
  return [...touches.values()].map(({ namespace, entries }) => ({
    namespace,
    entries: [...entries.values()],
  }));
}
