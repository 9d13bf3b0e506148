/**
 * Values that hold another channel's value (pure functions; the saver and the log apply them).
 *
 * LangGraph's `Send` carries a state: createAgent sends each tool call the whole state, so on a
 * tool turn the task's write and the next checkpoint's `__pregel_tasks` each hold the whole
 * `messages` list once more. Stored as is, a tool turn costs the conversation's size twice and
 * bytes grow with the square of its length. Such a value is stored cut around the list instead:
 * the text before it, a reference to the channel and version whose value it is (the items it
 * adds at the end stay in the text after it), and the text after it.
 *
 * A reference names a channel value by version in the record's namespace: for a checkpoint
 * record, one of its own checkpoint's values; for a task's writes, one of their checkpoint's
 * values or, while that checkpoint's `put` is still on its way (LangGraph stores a step's writes
 * first), one of the newest checkpoint's this process has (`blob-plan.ts` `cutWrites`). What a
 * checkpoint needs counts the values its writes reference (`CheckpointLog.references`), so
 * whatever keeps a checkpoint readable (its chains, the copies a prune makes) keeps them too.
 * A record holding a cut value is of format 3 (`records/checkpoint.ts`).
 */
import type { ValueRef } from "./records";

export type { ValueRef } from "./records";

/** A channel value a stored value may hold, as JSON text. */
export interface RefCandidate extends ValueRef {
  text: string;
}

/** Shorter values are stored as they are: a reference would save little. */
export const MIN_REF_CHARS = 2_048;

/**
 * `text` cut around the longest candidate list it holds: all of it but its closing bracket (a
 * list that grew at its end is found too), or its first items (a message in it was serialized
 * differently since: LangChain rewrites a `ToolMessage` once it has been read back). Returns
 * `[before, after]` and the reference; undefined when it holds none.
 */
export function cutAround(
  text: string,
  candidates: readonly RefCandidate[],
): { parts: [string, string]; ref: ValueRef } | undefined {
  let best: { at: number; chars: number; candidate: RefCandidate } | undefined;
  for (const candidate of candidates) {
    if (candidate.text.length < MIN_REF_CHARS || candidate.text[0] !== "[") continue;
    const found = heldPrefix(text, candidate.text);
    if (found && (!best || found.chars > best.chars)) best = { ...found, candidate };
  }
  if (!best || best.chars < MIN_REF_CHARS) return undefined;
  const { candidate, at, chars } = best;
  const whole = chars === candidate.text.length - 1;
  return {
    parts: [text.slice(0, at), text.slice(at + chars)],
    ref: {
      channel: candidate.channel,
      version: candidate.version,
      ...(whole ? {} : { keepChars: chars }),
    },
  };
}

/**
 * Where `text` holds `list`'s text (but its closing bracket), or its longest run of first items.
 */
function heldPrefix(text: string, list: string): { at: number; chars: number } | undefined {
  const open = list.slice(0, -1);
  const at = text.indexOf(open);
  if (at >= 0) return { at, chars: open.length };
  const anchor = text.indexOf(list.slice(0, Math.min(256, list.length - 1)));
  if (anchor < 0) return undefined;
  let same = 0;
  while (same < open.length && text[anchor + same] === open[same]) same++;
  let items: unknown;
  try {
    items = JSON.parse(list);
  } catch {
    return undefined;
  }
  if (!Array.isArray(items)) return undefined;
  // The end of the last whole item within the common prefix.
  let end = 1;
  let kept = 0;
  for (const item of items) {
    const next = end + (kept === 0 ? 0 : 1) + JSON.stringify(item).length;
    if (next > same) break;
    end = next;
    kept += 1;
  }
  return kept === 0 ? undefined : { at: anchor, chars: end };
}

/** The text `cutAround` cut, given the referenced value's text. */
export function joinCut(
  parts: readonly [string, string],
  referenced: string,
  keepChars?: number,
): string {
  return `${parts[0]}${referenced.slice(0, keepChars ?? -1)}${parts[1]}`;
}

/** Reads `[before, after]` back from the stored JSON; undefined when it is not that shape. */
export function cutParts(data: string): [string, string] | undefined {
  try {
    const parts: unknown = JSON.parse(data);
    return Array.isArray(parts) &&
      parts.length === 2 &&
      typeof parts[0] === "string" &&
      typeof parts[1] === "string"
      ? [parts[0], parts[1]]
      : undefined;
  } catch {
    return undefined;
  }
}

/** Binds a reference into an encryption context's free part, so it cannot be changed unseen. */
export function refTag(ref: ValueRef): string {
  const where = [ref.channel, String(ref.version)];
  return `ref ${JSON.stringify(ref.keepChars === undefined ? where : [...where, ref.keepChars])}`;
}
