/**
 * StudioStore's fields, written once: the schema below checks them (naming the field at fault,
 * before anything is sent) and gives their defaults; the store's settings are derived from it.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import * as z from "zod/v4/mini";
import { CLIENT_OPTION_NAMES } from "../client/options";
import type { StudioClientFields } from "../client/resolve";
import { describeFields } from "../field-docs";
import {
  integerAtLeast,
  type KnownKeys,
  knownKeysOnly,
  parseFields,
  refuseUnknownKeys,
} from "../validation";
import { useEnglishMessages } from "../zod-locale";
import { DEFAULT_MAX_MESSAGE_CHARS } from "./records";

useEnglishMessages();

export interface StudioStoreIndex {
  /** Any LangChain embeddings; texts are embedded here, on the client. */
  embeddings: EmbeddingsInterface;
  /** The length of the vectors `embeddings` returns (checked on every put). */
  dims: number;
  /** Field paths whose text is embedded (default `["$"]`, the whole value as JSON). */
  fields?: string[] | undefined;
}

export interface StudioStoreTtl {
  /** Minutes an item lives after it is put (or read, with `refreshOnRead`), unless its put says. */
  defaultTtl?: number | undefined;
  /** Reads (`get`, `search`) move the expiry of the items they return (default true). */
  refreshOnRead?: boolean | undefined;
  /** `start()` sweeps expired items this often, in minutes (no sweeping when unset). */
  sweepIntervalMinutes?: number | undefined;
}

export type StudioStoreFields = StudioClientFields & {
  /** Keep the store's threads among this dataset's threads (and look them up there only). */
  datasetId?: string | undefined;
  /** Semantic search: `search(prefix, { query })` ranks items by similarity to the query. */
  index?: StudioStoreIndex | undefined;
  /** Items that expire, as LangGraph's Postgres and Redis stores let them. */
  ttl?: StudioStoreTtl | undefined;
  /**
   * Serializer for item values, e.g. `createEncryptedSerde(...)` (each value then bound to its
   * namespace and key). Without one, values are stored as readable JSON.
   */
  serde?: SerializerProtocol | undefined;
  /**
   * Largest message written, in characters (default 100,000). A larger item is split over
   * several messages and read back whole, as the checkpointer splits its records.
   */
  maxMessageChars?: number | undefined;
  /** Namespaces whose records stay in memory (default 1,000); others are read again when used. */
  maxCachedNamespaces?: number | undefined;
  /**
   * How many namespaces a `search` or `listNamespaces` reads at once (default 32): a prefix over
   * 100 namespaces costs about 4 round trips of wall time instead of 100.
   */
  maxConcurrentReads?: number | undefined;
};

export const DEFAULT_CACHED_NAMESPACES = 1_000;
export const DEFAULT_CONCURRENT_READS = 32;

/** An optional integer of at least `min` (null reads as unset, as it always did). */
function optionalIntegerAtLeast(min: number) {
  return z.optional(z.nullable(integerAtLeast(min)));
}

const minutesSchema = z.optional(
  z.custom<number>((value) => typeof value === "number" && value > 0, {
    error: "must be a number of minutes above 0",
  }),
);

const indexShape = {
  embeddings: z.custom<EmbeddingsInterface>(
    (value) => {
      const embeddings = value as Partial<EmbeddingsInterface> | undefined;
      return (
        typeof embeddings?.embedDocuments === "function" &&
        typeof embeddings.embedQuery === "function"
      );
    },
    { error: "must be LangChain embeddings (embedDocuments and embedQuery)" },
  ),
  dims: z.custom<number>().check((ctx) => {
    const problem = optionalIntegerAtLeast(1).safeParse(ctx.value).error?.issues[0]?.message;
    const message = problem ?? (ctx.value === undefined ? "is required" : undefined);
    if (message !== undefined) ctx.issues.push({ code: "custom", input: ctx.value, message });
  }),
  fields: z._default(
    z.custom<string[]>(
      (value) => Array.isArray(value) && value.every((field) => typeof field === "string"),
      { error: "must be an array of field paths" },
    ),
    () => ["$"],
  ),
};

const indexSchema = knownKeysOnly(z.object(indexShape), {
  owner: "StudioStore index",
  known: Object.keys(indexShape),
});

const ttlShape = {
  defaultTtl: minutesSchema,
  refreshOnRead: z.optional(z.boolean({ error: "must be a boolean" })),
  sweepIntervalMinutes: minutesSchema,
};

/** `ttl`'s names as LangGraph's stores spell them; the checkpointer's spelling is refused. */
const TTL_KEYS: KnownKeys = {
  owner: "StudioStore ttl",
  known: Object.keys(ttlShape),
  hints: { defaultTTL: "the store spells it defaultTtl, as LangGraph's stores do" },
};

const ttlSchema = knownKeysOnly(z.object(ttlShape), TTL_KEYS);

const storeFieldsSchema = z.object({
  datasetId: z.optional(
    z.custom<string>((value) => typeof value === "string" && value !== "", {
      error: "must be a non-empty string",
    }),
  ),
  maxMessageChars: optionalIntegerAtLeast(1_000),
  maxCachedNamespaces: optionalIntegerAtLeast(1),
  maxConcurrentReads: optionalIntegerAtLeast(1),
  index: z.optional(indexSchema),
  ttl: z._default(ttlSchema, () => ({})),
  serde: z.optional(z.custom<SerializerProtocol>()),
});

describeFields("store", storeFieldsSchema, {
  datasetId: "Keep the store's threads in a dataset of yours; look-ups then list that dataset",
  maxMessageChars: "Largest message written, in characters; a larger item is split over several",
  maxCachedNamespaces:
    "Namespaces whose records stay in memory, so a read costs one call; others are read again",
  maxConcurrentReads: "Namespaces a `search` or `listNamespaces` reads at once",
  index: "Semantic search: `search(prefix, { query })` ranks items by similarity to the query",
  "index.embeddings": "Any LangChain embeddings; texts are embedded here, on the client",
  "index.dims": "The length of the vectors `embeddings` returns (checked on every put)",
  "index.fields": "Field paths whose text is embedded (`$`: the whole value as JSON)",
  ttl: "Items that expire, as in LangGraph's Postgres and Redis stores (minutes)",
  "ttl.defaultTtl": "Minutes an item lives after it is put (or read, with `refreshOnRead`)",
  "ttl.refreshOnRead": "Reads (`get`, `search`) move the expiry of the items they return",
  "ttl.sweepIntervalMinutes": "`start()` sweeps expired items this often (no sweeping when unset)",
  serde:
    "Serializer for item values, e.g. `createEncryptedSerde(...)`; without one, values are " +
    "stored as readable JSON",
});

type CheckedFields = z.output<typeof storeFieldsSchema>;

/**
 * The store's own field names, read from the schema: a field added there is checked and kept
 * out of the client's options without a second list to forget.
 */
const STORE_KEYS: ReadonlySet<string> = new Set(Object.keys(storeFieldsSchema.shape));

/** Every field the store takes: its own and the client's. */
const STORE_FIELD_KEYS: KnownKeys = {
  owner: "StudioStore",
  known: [...STORE_KEYS, ...CLIENT_OPTION_NAMES, "client"],
  listed: [...STORE_KEYS, "and the client options"],
};

/** The store's own fields (for the schema) and the rest, which are the client's options. */
function splitFields(fields: StudioStoreFields): {
  own: Record<string, unknown>;
  clientFields: StudioClientFields;
} {
  const own: Record<string, unknown> = {};
  const clientFields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    (STORE_KEYS.has(key) ? own : clientFields)[key] = value;
  }
  return { own, clientFields: clientFields as StudioClientFields };
}

/** What the store runs with: its fields checked, with their defaults. */
export interface StoreSettings {
  clientFields: StudioClientFields;
  datasetId: string | undefined;
  index: (StudioStoreIndex & { fields: string[] }) | undefined;
  ttl: CheckedFields["ttl"];
  serde: SerializerProtocol | undefined;
  maxMessageChars: number;
  maxCachedNamespaces: number;
  maxConcurrentReads: number;
}

/**
 * The store's fields checked and defaulted.
 * @throws StudioValidationError naming the field (e.g. "ttl.defaultTtl") and what it must be.
 */
export function storeSettings(fields: StudioStoreFields): StoreSettings {
  refuseUnknownKeys(fields, STORE_FIELD_KEYS);
  const { own, clientFields } = splitFields(fields);
  const checked = parseFields(storeFieldsSchema, own);
  return {
    clientFields,
    datasetId: checked.datasetId,
    index: checked.index,
    ttl: checked.ttl,
    serde: checked.serde,
    maxMessageChars: checked.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS,
    maxCachedNamespaces: checked.maxCachedNamespaces ?? DEFAULT_CACHED_NAMESPACES,
    maxConcurrentReads: checked.maxConcurrentReads ?? DEFAULT_CONCURRENT_READS,
  };
}
