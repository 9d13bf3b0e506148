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
  type StoredWrite,
  storedValueOf,
  type Version,
} from "./records";
import { cutAround, MIN_REF_CHARS, type RefCandidate } from "./value-refs";

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

/**
 * The plan's whole values with every value that holds another of the checkpoint's list values
 * (a `Send` carrying the state) stored cut around it (`value-refs.ts`).
 */
export function cutBlobs(
  plan: BlobPlan,
  log: CheckpointLog | undefined,
  ns: string,
  versions: Record<string, Version>,
): BlobRecord[] {
  const candidates: RefCandidate[] = [];
  for (const [channel, version] of Object.entries(versions)) {
    const known = plan.stored.get(channel);
    const text =
      known && String(known.version) === String(version)
        ? known.value?.data
        : log?.resolve(ns, channel, version)?.value?.data;
    if (typeof text === "string" && text.length >= MIN_REF_CHARS) {
      candidates.push({ channel, version, text });
    }
  }
  if (candidates.length === 0) return plan.blobs;
  return plan.blobs.map((blob) => {
    if (!("value" in blob) || !("json" in blob.value)) return blob;
    const own = plan.stored.get(blob.channel);
    if (!own || String(own.version) !== String(blob.version)) return blob;
    const others = candidates.filter((candidate) => candidate.channel !== blob.channel);
    const cut = cutAround(JSON.stringify(blob.value.json), others);
    return cut
      ? { ...blob, value: { type: blob.value.type, json: cut.parts }, cut: cut.ref }
      : blob;
  });
}

/**
 * Writes against `checkpointId` with values holding a list value stored cut around it: one of
 * the checkpoint's values or, while its `put` is still on its way (LangGraph stores a step's
 * writes first), one of the newest checkpoint's this process has. A `Send`'s state is the
 * checkpoint's list plus what the task added, so either is found in it.
 */
export function cutWrites(
  writes: StoredWrite[],
  log: CheckpointLog | undefined,
  ns: string,
  checkpointId: string,
): StoredWrite[] {
  const found = log?.checkpoint(ns, checkpointId) ?? log?.checkpoint(ns);
  if (!log || !found) return writes;
  const candidates: RefCandidate[] = [];
  for (const [channel, version] of Object.entries(found.record.versions)) {
    const text = log.resolve(ns, channel, version)?.value?.data;
    if (typeof text === "string" && text.length >= MIN_REF_CHARS) {
      candidates.push({ channel, version, text });
    }
  }
  if (candidates.length === 0) return writes;
  return writes.map((write) => {
    if (!("json" in write.value)) return write;
    const cut = cutAround(JSON.stringify(write.value.json), candidates);
    return cut
      ? { ...write, value: { type: write.value.type, json: cut.parts }, cut: cut.ref }
      : write;
  });
}
