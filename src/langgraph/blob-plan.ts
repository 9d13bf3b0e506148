/**
 * Which channel values one checkpoint record stores (the rules are in `channel-values.ts`):
 *   - each channel the step changed: the items appended to its previous value when that is all
 *     that changed, or its first items kept and the rest stored (a tool turn rewrites the last
 *     message), while the chain stays short and within reach; else the whole value;
 *   - each channel it did not change whose whole copy has fallen out of a bounded read: a copy of
 *     its stored value under the same version (never the caller's value: only what was stored).
 * What is known comes from the thread's log in this process; without it (a write that did not
 * read the thread first), the changed values are stored whole and nothing is copied.
 */
import {
  appendedItems,
  mayAppend,
  type Place,
  splicedItems,
  withinReadWindow,
} from "./channel-values";
import type { CheckpointLog, ResolvedValue } from "./checkpoint-log";
import {
  type BlobRecord,
  type LoadedValue,
  loadedValue,
  type StoredValue,
  storedValueOf,
  type Version,
} from "./records";

export interface BlobPlanInput {
  ns: string;
  /** The new checkpoint's `channel_versions`. */
  versions: Record<string, Version>;
  /** The values to store, serialized, by channel (what the step changed). */
  changed: Map<string, StoredValue>;
  /** The parent checkpoint's `channel_versions`, when the log holds it. */
  parentVersions: Record<string, Version> | undefined;
  log: CheckpointLog | undefined;
  now: Place | undefined;
}

/** A changed value as it will read back, and the value it extends (if stored as appended). */
interface StoredChannel {
  version: Version;
  value: LoadedValue;
  base: ResolvedValue | undefined;
  appendedChars: number;
}

export interface BlobPlan {
  blobs: BlobRecord[];
  stored: Map<string, StoredChannel>;
}

export function planBlobs(input: BlobPlanInput): BlobPlan {
  const { ns, versions, changed, parentVersions, log, now } = input;
  const texts = new Map<string, string | undefined>();
  let checkpointChars = 0;
  for (const [channel, value] of changed) {
    const text = "json" in value ? JSON.stringify(value.json) : undefined;
    texts.set(channel, text);
    checkpointChars += text?.length ?? ("base64" in value ? value.base64.length : 0);
  }
  const unchanged = new Map<string, ResolvedValue>();
  for (const [channel, version] of Object.entries(versions)) {
    if (changed.has(channel)) continue;
    const resolved = log?.resolve(ns, channel, version);
    if (!resolved) continue;
    unchanged.set(channel, resolved);
    checkpointChars += resolved.value?.data.length ?? 0;
  }

  const plan: BlobPlan = { blobs: [], stored: new Map() };
  for (const [channel, value] of changed) {
    const version = versions[channel];
    if (version === undefined) continue;
    const text = texts.get(channel);
    const baseVersion = parentVersions?.[channel];
    const base =
      baseVersion === undefined || !log ? undefined : log.resolve(ns, channel, baseVersion);
    const items =
      text !== undefined && base?.value?.type === value.type && typeof base.value.data === "string"
        ? appendedItems(base.value.data, text)
        : undefined;
    const loaded: LoadedValue =
      text !== undefined ? { type: value.type, data: text } : loadedValue(value);
    if (items !== undefined && base && baseVersion !== undefined && now) {
      if (mayAppend(base, items.length, now, checkpointChars)) {
        plan.blobs.push({
          channel,
          version,
          base: baseVersion,
          append: { type: value.type, json: JSON.parse(items) },
        });
        plan.stored.set(channel, { version, value: loaded, base, appendedChars: items.length });
        continue;
      }
    }
    const spliced =
      items === undefined &&
      text !== undefined &&
      base?.value?.type === value.type &&
      typeof base.value.data === "string"
        ? splicedItems(base.value.data, text)
        : undefined;
    if (spliced && base && baseVersion !== undefined && now) {
      if (mayAppend(base, spliced.items.length, now, checkpointChars)) {
        plan.blobs.push({
          channel,
          version,
          base: baseVersion,
          keepChars: spliced.keepChars,
          append: { type: value.type, json: JSON.parse(spliced.items) },
        });
        const appendedChars = spliced.items.length;
        plan.stored.set(channel, { version, value: loaded, base, appendedChars });
        continue;
      }
    }
    plan.blobs.push({ channel, version, value });
    plan.stored.set(channel, { version, value: loaded, base: undefined, appendedChars: 0 });
  }
  for (const [channel, resolved] of unchanged) {
    if (!now || withinReadWindow(resolved, now, checkpointChars)) continue;
    plan.blobs.push({ channel, version: resolved.version, value: storedValueOf(resolved.value) });
  }
  return plan;
}

/**
 * Tells the log the values a stored record holds, so that the next step extends them without
 * rebuilding them from their chains.
 */
export function rememberStored(log: CheckpointLog, ns: string, plan: BlobPlan, at: Place): void {
  for (const [channel, { version, value, base, appendedChars }] of plan.stored) {
    const chars = value?.data.length ?? 0;
    log.remember(ns, channel, {
      version,
      value,
      root: base ? base.root : at,
      rootChars: base ? base.rootChars : chars,
      sinceRootChars: base ? base.sinceRootChars + appendedChars : 0,
    });
  }
}
