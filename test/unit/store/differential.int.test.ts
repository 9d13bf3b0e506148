/**
 * StudioStore against InMemoryStore on the same seeded random operations: puts, deletes, gets,
 * searches with filters, limits and offsets, namespace listings with prefix, suffix, wildcards,
 * depth, limit and offset, single and in batches, over several namespaces. Every answer must be
 * the same (item dates aside: they are the two stores' own clocks). At the end a second store with
 * its own client, as another process, must see the same store. One run uses few keys and many
 * writes so that namespaces get compacted on the way, another ranks searches by similarity.
 */
import { Embeddings } from "@langchain/core/embeddings";
import {
  InMemoryStore,
  type Item,
  type Operation,
  type SearchItem,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { toBase64 } from "../../../src/converters/base64";
import { createRng, type Rng } from "../../../src/emulator/rng";
import { createEncryptedSerde, StudioStore, type StudioStoreIndex } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator({ recordRequests: false });

beforeEach(async () => {
  await emulator.handle.reset();
});

function studioStore(index?: StudioStoreIndex, serde?: SerializerProtocol): StudioStore {
  const { baseUrl, apiKey } = emulator.handle;
  // Its own client each time: nothing cached in the process answers for the service.
  return new StudioStore({ client: new StudioClient({ baseUrl, apiKey }), index, serde });
}

/** The key every encrypted run shares (both of its stores must read what the other wrote). */
const KEYS = { k1: toBase64(crypto.getRandomValues(new Uint8Array(32))) };

/** Small integer vectors (exact in float32, so both stores compute the very same scores). */
class TinyEmbeddings extends Embeddings {
  constructor() {
    super({});
  }
  async embedQuery(text: string): Promise<number[]> {
    return vectorOf(text);
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map(vectorOf);
  }
}
const embeddings = new TinyEmbeddings();

function vectorOf(text: string): number[] {
  const codes = [...text].map((c) => c.charCodeAt(0));
  return [text.length % 4, codes.reduce((a, b) => a + b, 0) % 5, (codes[0] ?? 0) % 3];
}

interface Shape {
  namespaces: string[][];
  keys: number;
  /** Ops with a `query` (only when both stores have the same index). */
  queries: boolean;
}

const WIDE: Shape = {
  namespaces: [
    ["a"],
    ["a", "b"],
    ["a", "b", "c"],
    ["a", "d"],
    ["x", "y"],
    ["users", "u1", "memories"],
    ["users", "u2", "memories"],
    ["users", "u2", "prefs"],
  ],
  keys: 6,
  queries: false,
};

const HOT: Shape = { namespaces: [["hot"], ["hot", "sub"]], keys: 3, queries: false };

const RANKED: Shape = { ...WIDE, namespaces: WIDE.namespaces.slice(0, 5), queries: true };

const FILTERS = [
  undefined,
  { tag: "red" },
  { n: { $gt: 4 } },
  { n: { $gte: 3, $lt: 7 } },
  { tag: { $ne: "blue" } },
  { n: { $in: [1, 2, 3] } },
  { tag: { $nin: ["red"] } },
  { flag: true },
  { n: { $lte: 2 }, flag: false },
  { tag: { $eq: "green" } },
  { missing: { $ne: 1 } },
];

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng.next() * items.length)]!;
}

function int(rng: Rng, below: number): number {
  return Math.floor(rng.next() * below);
}

/** A random prefix (maybe empty) of one of the shape's namespaces, "*" put in sometimes. */
function randomPrefix(rng: Rng, shape: Shape, wildcards: boolean): string[] {
  const namespace = pick(rng, shape.namespaces);
  const prefix = namespace.slice(0, int(rng, namespace.length + 1));
  return prefix.map((label) => (wildcards && rng.next() < 0.2 ? "*" : label));
}

function randomOp(rng: Rng, shape: Shape): Operation {
  const roll = rng.next();
  const namespace = pick(rng, shape.namespaces);
  const key = `k${int(rng, shape.keys)}`;
  if (roll < 0.45) {
    const n = int(rng, 10);
    const value: Record<string, unknown> = {
      n,
      tag: pick(rng, ["red", "green", "blue"]),
      flag: rng.next() < 0.5,
      text: `note ${rng.token(1 + int(rng, 6))}`,
    };
    if (rng.next() < 0.2) value.nested = { deep: [n, rng.token(2)] };
    return { namespace, key, value };
  }
  if (roll < 0.55) return { namespace, key, value: null };
  if (roll < 0.7) return { namespace, key };
  if (roll < 0.88) {
    const op: Operation = {
      namespacePrefix: randomPrefix(rng, shape, false),
      filter: pick(rng, FILTERS),
      limit: rng.next() < 0.3 ? 10 : 1 + int(rng, 6),
      offset: rng.next() < 0.5 ? 0 : int(rng, 4),
    };
    if (shape.queries && rng.next() < 0.7) op.query = `note ${rng.token(1 + int(rng, 4))}`;
    return op;
  }
  const matchConditions = [];
  if (rng.next() < 0.6) {
    matchConditions.push({ matchType: "prefix" as const, path: randomPrefix(rng, shape, true) });
  }
  if (rng.next() < 0.3) {
    const namespace = pick(rng, shape.namespaces);
    const suffix = namespace.slice(namespace.length - 1 - int(rng, namespace.length));
    matchConditions.push({ matchType: "suffix" as const, path: suffix });
  }
  return {
    matchConditions: matchConditions.length > 0 ? matchConditions : undefined,
    maxDepth: rng.next() < 0.4 ? 1 + int(rng, 3) : undefined,
    limit: rng.next() < 0.5 ? 100 : 1 + int(rng, 5),
    offset: rng.next() < 0.6 ? 0 : int(rng, 3),
  };
}

/** An answer without the item dates, which come from each store's own clock. */
function comparable(result: unknown): unknown {
  if (Array.isArray(result)) return result.map(comparable);
  if (result !== null && typeof result === "object" && "key" in result) {
    const { createdAt, updatedAt, ...rest } = result as Item & SearchItem;
    return rest;
  }
  return result;
}

/**
 * InMemoryStore's answers to a batch, as they were when it answered: it returns its live item
 * objects, which a put later in the same batch then changes (reads are meant to see the store
 * before the batch's puts, and StudioStore's do). Its reads run first, then its puts, as it does.
 */
async function inMemoryBatch(memory: InMemoryStore, ops: Operation[]): Promise<unknown[]> {
  const isPut = (op: Operation) => "value" in op;
  const reads = structuredClone(await memory.batch(ops.filter((op) => !isPut(op))));
  await memory.batch(ops.filter(isPut));
  return ops.map((op) => (isPut(op) ? null : reads.shift()));
}

async function runBoth(
  seed: number,
  count: number,
  shape: Shape,
  serde?: () => SerializerProtocol,
): Promise<StudioStore> {
  const rng = createRng(seed);
  const index = shape.queries ? { embeddings, dims: 3, fields: ["text"] } : undefined;
  const memory = new InMemoryStore(index ? { index } : undefined);
  const studio = studioStore(index, serde?.());
  for (let step = 0; step < count; ) {
    const size = rng.next() < 0.2 ? 2 + int(rng, 3) : 1;
    const ops = Array.from({ length: size }, () => randomOp(rng, shape));
    step += size;
    const expected = await inMemoryBatch(memory, structuredClone(ops));
    const actual: unknown[] = await studio.batch(structuredClone(ops));
    const where = `seed ${seed}, step ${step}: ${JSON.stringify(ops)}`;
    expect(comparable(actual), where).toEqual(comparable(expected));
    for (const result of actual.flat() as (Item | null)[]) {
      if (result !== null && typeof result === "object" && "createdAt" in result) {
        expect(result.createdAt.getTime()).toBeLessThanOrEqual(result.updatedAt.getTime());
      }
    }
  }
  // Another process sees the same store, whole.
  const other = studioStore(index, serde?.());
  expect(comparable(await other.search([], { limit: 1_000 }))).toEqual(
    comparable(await memory.search([], { limit: 1_000 })),
  );
  expect(await other.listNamespaces()).toEqual(await memory.listNamespaces());
  return studio;
}

/** Hundreds of calls to the emulator per run: a bound for a loaded machine, not a speed target. */
const RUN_TIMEOUT_MS = 60_000;

describe("StudioStore answers as InMemoryStore does", () => {
  it.each([11, 23, 37])(
    "on 150 random operations over 8 namespaces (seed %i)",
    async (seed) => {
      await runBoth(seed, 150, WIDE);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "on 300 writes and reads of 3 keys, through compactions",
    async () => {
      await runBoth(5, 300, HOT);
      // About 80 writes went to ["hot"]; compaction deleted the messages that no longer count.
      const { baseUrl, apiKey } = emulator.handle;
      const client = new StudioClient({ baseUrl, apiKey });
      let messages = 0;
      for await (const thread of client.iterateThreads({ order: "asc" })) {
        if (thread.title !== "LangGraph store: hot") continue;
        for await (const _ of client.iterateMessages(thread.id, { order: "asc" })) messages += 1;
      }
      expect(messages).toBeGreaterThan(0);
      expect(messages).toBeLessThan(60);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "on 150 random operations ranked by similarity to a query",
    async () => {
      await runBoth(71, 150, RANKED);
    },
    RUN_TIMEOUT_MS,
  );
});

describe("StudioStore answers as InMemoryStore does, with encryption on", () => {
  const sealed = () => createEncryptedSerde({ keys: KEYS });

  it(
    "on 150 random operations over 8 namespaces",
    async () => {
      await runBoth(23, 150, WIDE, sealed);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "on 300 writes and reads of 3 keys, through compactions",
    async () => {
      await runBoth(5, 300, HOT, sealed);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "on 150 random operations ranked by similarity to a query",
    async () => {
      await runBoth(71, 150, RANKED, sealed);
    },
    RUN_TIMEOUT_MS,
  );
});
