/**
 * How channel values are kept by version (pure functions; the saver and the log apply them).
 *
 * Versions: a counter LangGraph compares, plus a random part, so that two branches (a replay, a
 * fork, two processes on one thread) never give two values the same version. With plain counters
 * a new branch's value lands on a version the old branch already stored, and the first value
 * stored for a version is the one read back (LangGraph's Python savers add the random part too).
 *
 * Values: a JSON list whose new value is its old value plus items at the end (an agent's
 * `messages`) is stored as the appended items and the version it extends. A whole copy is stored
 * again when the appended parts since the last whole copy outgrow it, so whole copies grow
 * geometrically and the bytes written stay linear in the value's size; and when the last whole copy
 * is further back than a bounded newest-first read reaches (`READ_WINDOW`), so that a process new
 * to the thread finds every value it needs in the thread's newest messages.
 */
import type { Place, Version } from "./records";

export type { Place } from "./records";

/**
 * How far back a value's whole copy may be: a read of the thread's newest messages, 100 per
 * call, finds it within 3 calls, and reads no more characters than the checkpoint holds (or 64 KiB
 * for small checkpoints, so that they are not copied at every step).
 */
export const READ_WINDOW = { messages: 280, minChars: 65_536 } as const;

const COUNTER_DIGITS = 16;
const RANDOM_HEX_DIGITS = 12;

/** The version after `current`: its counter plus one, with a random part of its own. */
export function nextVersion(current: Version | undefined): string {
  const counter =
    typeof current === "number" ? current : Number.parseInt(String(current ?? "0"), 10);
  const next = (Number.isFinite(counter) ? Math.floor(counter) : 0) + 1;
  const random = new Uint8Array(RANDOM_HEX_DIGITS / 2);
  crypto.getRandomValues(random);
  const hex = Array.from(random, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${String(next).padStart(COUNTER_DIGITS, "0")}.${hex}`;
}

/**
 * The items that `next` appends to `base`, as JSON list text, when `next` is `base` with items
 * added at the end (both JSON list texts as `JSON.stringify` writes them); undefined otherwise.
 * Comparing text is exact: JSON reads left to right, so a shared prefix ending where `base`'s last
 * item ends holds the same items.
 */
export function appendedItems(base: string, next: string): string | undefined {
  if (base.length <= 2 || base[0] !== "[" || base[base.length - 1] !== "]") return undefined;
  if (next.length <= base.length || next[base.length - 1] !== ",") return undefined;
  if (!next.startsWith(base.slice(0, -1))) return undefined;
  return `[${next.slice(base.length)}`;
}

/**
 * When `next` keeps `base`'s first items (at least one) and then differs: where the kept items
 * end in `base` (`keepChars`, just after the last kept item) and the items that follow them in
 * `next`, as JSON list text. This is how an agent's `messages` grows on a tool turn: LangChain
 * serializes a `ToolMessage` differently once it has gone through a model call (its `artifact`
 * and `metadata`), so the list is not `base` plus items, but `base` with its last item rewritten
 * plus items. Both texts must be written by `JSON.stringify` (the saver's canonical form), so an
 * item's text is `JSON.stringify` of the item.
 */
export function splicedItems(
  base: string,
  next: string,
): { keepChars: number; items: string } | undefined {
  if (base[0] !== "[" || next[0] !== "[") return undefined;
  let before: unknown;
  let after: unknown;
  try {
    before = JSON.parse(base);
    after = JSON.parse(next);
  } catch {
    return undefined;
  }
  if (!Array.isArray(before) || !Array.isArray(after)) return undefined;
  let kept = 0;
  let keepChars = 1;
  for (; kept < before.length && kept < after.length; kept++) {
    const item = JSON.stringify(before[kept]);
    if (item !== JSON.stringify(after[kept])) break;
    keepChars += (kept === 0 ? 0 : 1) + item.length;
  }
  if (kept === 0 || kept >= after.length) return undefined;
  return { keepChars, items: JSON.stringify(after.slice(kept)) };
}

/**
 * The text of a value stored as a chain: `root` (JSON list text), then each link's items added
 * after the first `keepChars` characters of the value below it (all of it when undefined).
 * Built once, back to front, so a long chain costs the size of the result, not its length times.
 */
export function chainedItems(
  root: string,
  links: readonly { items: string; keepChars?: number | undefined }[],
): string | undefined {
  // Lengths without the closing "]", oldest first.
  const open: number[] = [root.length - 1];
  for (const link of links) {
    const below = open.at(-1)!;
    const kept = link.keepChars ?? below;
    if (kept > below || kept < 2 || link.items.length < 3) return undefined;
    open.push(kept + link.items.length - 1);
  }
  const segments: string[] = [];
  let need = open.at(-1)!;
  for (let i = links.length - 1; i >= 0; i--) {
    const kept = links[i]!.keepChars ?? open[i]!;
    if (need > kept) {
      segments.push(`,${links[i]!.items.slice(1, -1)}`.slice(0, need - kept));
      need = kept;
    }
  }
  segments.push(root.slice(0, need));
  return `${segments.reverse().join("")}]`;
}

/**
 * `base` (JSON list text) with the items of each of `appended` (JSON list texts) added, in order.
 */
export function withItems(base: string, appended: readonly string[]): string {
  if (appended.length === 0) return base;
  return `${base.slice(0, -1)},${appended.map((items) => items.slice(1, -1)).join(",")}]`;
}

/** What a value's version chain costs to read: its whole copy and the appended parts since. */
export interface ChainCost {
  /** Where the whole copy is. */
  root: Place;
  rootChars: number;
  /** Characters of the appended parts stored since the whole copy. */
  sinceRootChars: number;
}

/**
 * Whether a value's whole copy is within the bounded read from `now`: few enough messages back,
 * and few enough characters written after it.
 */
export function withinReadWindow(chain: ChainCost, now: Place, checkpointChars: number): boolean {
  const charsAfter = now.offset - chain.root.offset - chain.rootChars;
  return (
    now.position - chain.root.position < READ_WINDOW.messages &&
    charsAfter < Math.max(READ_WINDOW.minChars, checkpointChars)
  );
}

/**
 * Whether the next value may be stored as `appendedChars` of appended items on top of `chain`:
 * the parts since the whole copy stay no larger than it, and the whole copy stays within reach.
 */
export function mayAppend(
  chain: ChainCost,
  appendedChars: number,
  now: Place,
  checkpointChars: number,
): boolean {
  return (
    chain.sinceRootChars + appendedChars <= chain.rootChars &&
    withinReadWindow(chain, now, checkpointChars)
  );
}
