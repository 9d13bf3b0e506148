/**
 * StudioStore: a LangGraph `BaseStore` (long-term memory shared across threads and processes)
 * kept in the service's threads, one thread per namespace (`namespace-threads.ts`), items as
 * records in their messages (`records.ts`), answers computed as InMemoryStore computes them
 * (`queries.ts`).
 *
 * A batch reads every namespace it touches once (one call each when this process has read it
 * before), answers its gets, searches and listings from what it read, as InMemoryStore does
 * (reads see the store as it was before the batch's puts), then writes one message per namespace
 * it puts to. Similarity is computed here, with the `Embeddings` the caller gives; the vectors are
 * stored with the items so that no other process has to embed them again.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchOperation,
  type SerializerProtocol,
  validateNamespace,
} from "@langchain/langgraph-checkpoint";
import type { StudioClientFields } from "../client/resolve";
import { fromBase64, toBase64 } from "../converters/base64";
import { storeContext } from "../crypto/contexts";
import { isContextualSerde } from "../crypto/encrypted-serde";
import { StudioError, StudioValidationError } from "../errors";
import { resolveSessionClient } from "../threads/service-identity";
import { NamespaceThreads, show } from "./namespace-threads";
import {
  fixedPrefix,
  matchesFilter,
  pickNamespaces,
  rankBySimilarity,
  textsAtPath,
} from "./queries";
import {
  compareStamps,
  DEFAULT_MAX_MESSAGE_CHARS,
  decodeVector,
  type Entry,
  encodeVector,
  entryChars,
  type NamespaceLog,
  type Payload,
  type PutEntry,
  RECORD_OVERHEAD_CHARS,
  StampClock,
  type StoredPayload,
} from "./records";

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
  /** Largest message written, in characters (default 100,000); an item must fit in one. */
  maxMessageChars?: number | undefined;
  /** Namespaces whose records stay in memory (default 1,000); others are read again when used. */
  maxCachedNamespaces?: number | undefined;
};

/** A put as StudioStore takes it: LangGraph's, with a TTL in minutes (`null`: never expires). */
export type StudioPutOperation = PutOperation & { ttl?: number | null | undefined };

const DEFAULT_CACHED_NAMESPACES = 1_000;
const DEFAULT_SEARCH_LIMIT = 10;
const MINUTE_MS = 60_000;

/** Stamps of every store in this process: one clock, so their writes are ordered among them. */
const clock = new StampClock();

/** An item as read: where it is, the put that holds it, and what that put stores. */
interface ReadItem {
  namespace: string[];
  entry: PutEntry;
  payload: Payload;
}

/** A put or delete ready to write (`stored` undefined: a delete). */
interface PreparedPut {
  op: StudioPutOperation;
  stored: StoredPayload | undefined;
  ttl: number | undefined;
}

/** The namespaces a batch read, each once. */
type Reader = (namespace: readonly string[]) => Promise<NamespaceLog | undefined>;

export class StudioStore extends BaseStore {
  readonly #threads: NamespaceThreads;
  readonly #serde: SerializerProtocol | undefined;
  readonly #index: (StudioStoreIndex & { fields: string[] }) | undefined;
  readonly #ttl: StudioStoreTtl;
  readonly #maxMessageChars: number;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(fields: StudioStoreFields = {}) {
    super();
    const { datasetId, index, ttl, serde, maxMessageChars, maxCachedNamespaces, ...clientFields } =
      fields;
    if (datasetId !== undefined && (typeof datasetId !== "string" || datasetId === "")) {
      throw new StudioValidationError("datasetId", "must be a non-empty string");
    }
    checkInteger("maxMessageChars", maxMessageChars, 1_000);
    checkInteger("maxCachedNamespaces", maxCachedNamespaces, 1);
    this.#index = index && checkIndex(index);
    this.#ttl = checkTtl(ttl);
    this.#serde = serde;
    this.#maxMessageChars = maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS;
    this.#threads = new NamespaceThreads(resolveSessionClient(clientFields), {
      datasetId,
      maxCachedNamespaces: maxCachedNamespaces ?? DEFAULT_CACHED_NAMESPACES,
      maxMessageChars: this.#maxMessageChars,
    });
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    if (!Array.isArray(operations)) {
      throw new StudioValidationError("operations", "must be an array of store operations");
    }
    const ops = operations.map(classify);
    const now = Date.now();
    const logs = new Map<string, Promise<NamespaceLog | undefined>>();
    const read: Reader = (namespace) => {
      const key = JSON.stringify(namespace);
      const found = logs.get(key) ?? this.#threads.read(namespace);
      logs.set(key, found);
      return found;
    };
    const prepared = await this.#preparePuts(
      ops.flatMap((op) => (op.kind === "put" ? [op.op] : [])),
    );
    const queries = await this.#queryVectors(ops);
    const results: unknown[] = [];
    const returned: ReadItem[] = [];
    for (const op of ops) {
      if (op.kind === "get") {
        const item = await this.#get(op.op, read, now);
        if (item) returned.push(item);
        results.push(item ? toItem(item) : null);
      } else if (op.kind === "search") {
        const page = await this.#search(op.op, read, now, queries);
        returned.push(...page.map(({ item }) => item));
        results.push(page.map(({ item, score }) => ({ ...toItem(item), score })));
      } else if (op.kind === "list") {
        results.push(await this.#listNamespaces(op.op, read));
      } else {
        // A put answers null, as in InMemoryStore.
        results.push(null);
      }
    }
    if (prepared.length > 0) await this.#writePuts(prepared, read, now);
    if (this.#ttl.refreshOnRead !== false) await this.#refresh(returned, now);
    return results as OperationResults<Op>;
  }

  /** `put` with a TTL in minutes for this item (`null`: it never expires). */
  override async put(
    namespace: string[],
    key: string,
    value: Record<string, unknown>,
    index?: false | string[],
    options?: { ttl?: number | null | undefined },
  ): Promise<void> {
    validateNamespace(namespace);
    const op: StudioPutOperation = { namespace, key, value, index };
    if (options?.ttl !== undefined) op.ttl = options.ttl;
    await this.batch([op]);
  }

  /**
   * Removes the values of expired items from the service (reads already skip them): every
   * namespace is read, and those holding expired items are compacted. Resolves to how many.
   */
  async sweepExpiredItems(): Promise<number> {
    const now = Date.now();
    let swept = 0;
    for await (const { namespace, log } of this.#threads.walk([])) {
      if (log.expiredCount(now) > 0) swept += await this.#threads.compact(namespace, now);
    }
    return swept;
  }

  /** Sweeps every `ttl.sweepIntervalMinutes` until `stop()` (nothing to do without it). */
  override start(): void {
    const minutes = this.#ttl.sweepIntervalMinutes;
    if (minutes === undefined || this.#sweeper !== undefined) return;
    this.#sweeper = setInterval(() => {
      this.sweepExpiredItems().catch((error: unknown) => {
        console.warn(
          `[langchain-studio] StudioStore's TTL sweep failed (it runs again in ${minutes} minutes): ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    }, minutes * MINUTE_MS);
    // A sweeper alone must not keep a Node process alive (browsers have no unref).
    (this.#sweeper as { unref?: () => void }).unref?.();
  }

  override stop(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  async #get(op: GetOperation, read: Reader, now: number): Promise<ReadItem | undefined> {
    const log = await read(op.namespace);
    const entry = log?.live(op.key, now);
    if (!entry) return undefined;
    return { namespace: [...op.namespace], entry, payload: await this.#load(op.namespace, entry) };
  }

  /** Embeds each distinct query of the batch's searches once (when an index is configured). */
  async #queryVectors(ops: readonly Classified[]): Promise<Map<string, number[]>> {
    const vectors = new Map<string, number[]>();
    if (!this.#index) return vectors;
    for (const op of ops) {
      if (op.kind !== "search" || !op.op.query || vectors.has(op.op.query)) continue;
      vectors.set(op.op.query, await this.#index.embeddings.embedQuery(op.op.query));
    }
    return vectors;
  }

  async #search(
    op: SearchOperation,
    read: Reader,
    now: number,
    queries: Map<string, number[]>,
  ): Promise<{ item: ReadItem; score: number | undefined }[]> {
    const namespaces: { namespace: string[]; log: NamespaceLog }[] = [];
    for await (const node of this.#threads.walk(op.namespacePrefix, read)) {
      if (node.log.opened) namespaces.push(node);
    }
    // InMemoryStore's order: namespaces as they got their first item, items as they were created.
    namespaces.sort((a, b) => compareStamps(a.log.opened!, b.log.opened!));
    const candidates: ReadItem[] = [];
    for (const { namespace, log } of namespaces) {
      for (const entry of log.liveItems(now)) {
        const payload = await this.#load(namespace, entry);
        if (matchesFilter(payload.value, op.filter)) candidates.push({ namespace, entry, payload });
      }
    }
    const offset = op.offset ?? 0;
    const limit = op.limit ?? DEFAULT_SEARCH_LIMIT;
    const query = op.query === undefined ? undefined : queries.get(op.query);
    if (query === undefined) {
      return candidates.slice(offset, offset + limit).map((item) => ({ item, score: undefined }));
    }
    const withVectors = candidates.map((item) => ({
      item,
      vectors: Object.values(item.payload.vectors ?? {}).map(decodeVector),
    }));
    return rankBySimilarity(withVectors, query, offset, limit);
  }

  async #listNamespaces(op: ListNamespacesOperation, read: Reader): Promise<string[][]> {
    const namespaces: string[][] = [];
    for await (const { namespace, log } of this.#threads.walk(
      fixedPrefix(op.matchConditions),
      read,
    )) {
      if (log.opened) namespaces.push(namespace);
    }
    return pickNamespaces(namespaces, op);
  }

  /**
   * The batch's puts and deletes, ready to write but for their stamps (which need the namespace
   * read first): the last op of a key wins, in the place of its first, as InMemoryStore applies
   * them; values embedded, serialized and checked to fit in a message before anything is sent.
   */
  async #preparePuts(puts: readonly StudioPutOperation[]): Promise<PreparedPut[]> {
    const latest = new Map<string, StudioPutOperation>();
    for (const op of puts) latest.set(JSON.stringify([op.namespace, op.key]), op);
    const ops = [...latest.values()];
    const vectors = await this.#embed(ops);
    const prepared: PreparedPut[] = [];
    for (const [i, op] of ops.entries()) {
      if (op.value === null) {
        prepared.push({ op, stored: undefined, ttl: undefined });
        continue;
      }
      const ttl = op.ttl === undefined ? this.#ttl.defaultTtl : (op.ttl ?? undefined);
      const payload: Payload = { value: op.value, ...(vectors[i] ? { vectors: vectors[i] } : {}) };
      const put = { op, stored: await this.#store(op.namespace, op.key, payload), ttl };
      this.#checkSize(put);
      prepared.push(put);
    }
    return prepared;
  }

  /** Writes prepared puts, one message per namespace, after reading each namespace once. */
  async #writePuts(prepared: readonly PreparedPut[], read: Reader, now: number): Promise<void> {
    const logs = new Map<string, NamespaceLog | undefined>();
    for (const { op } of prepared) logs.set(JSON.stringify(op.namespace), await read(op.namespace));
    let seen = 0;
    for (const log of logs.values()) seen = Math.max(seen, log?.maxStamp ?? 0);

    const writes = new Map<string, { namespace: string[]; entries: Entry[] }>();
    for (const { op, stored, ttl } of prepared) {
      const nsKey = JSON.stringify(op.namespace);
      const log = logs.get(nsKey);
      const stamp = clock.next(seen);
      let write = writes.get(nsKey);
      if (!write) {
        write = { namespace: [...op.namespace], entries: [] };
        writes.set(nsKey, write);
        if (!log?.opened) write.entries.push({ op: "open", ...stamp });
      }
      if (stored === undefined) {
        write.entries.push({ op: "del", key: op.key, ...stamp });
        continue;
      }
      write.entries.push({
        op: "put",
        key: op.key,
        ...stamp,
        c: log?.live(op.key, now)?.c ?? stamp.s,
        ...(ttl === undefined ? {} : { e: now + ttl * MINUTE_MS, ttl }),
        ...stored,
      });
    }

    const written: string[] = [];
    for (const { namespace, entries } of writes.values()) {
      try {
        await this.#threads.write(namespace, entries, describeWrites(entries));
      } catch (error) {
        if (written.length === 0 || !(error instanceof StudioError)) throw error;
        throw new StudioError(
          `${error.message} (This batch's writes to namespaces ${written.join(", ")} are stored.)`,
          { cause: error.cause },
        );
      }
      written.push(show(namespace));
      const log = logs.get(JSON.stringify(namespace));
      if (log && this.#threads.needsCompaction(log)) {
        try {
          await this.#threads.compact(namespace);
        } catch {
          // The write is stored; a compaction cut short leaves copies that read as the items they
          // copy, and the next write to the namespace tries again.
        }
      }
    }
  }

  /** The vectors of each put's indexed texts (by field path), as base64 float32. */
  async #embed(
    ops: readonly StudioPutOperation[],
  ): Promise<(Record<string, string> | undefined)[]> {
    const index = this.#index;
    if (!index) return ops.map(() => undefined);
    const fieldsOf = ops.map((op) => {
      if (op.value === null || op.index === false) return [];
      const paths = op.index ?? index.fields;
      return paths.flatMap((path) => {
        const texts = textsAtPath(op.value, path);
        return texts.map((text, i) => ({ field: texts.length > 1 ? `${path}.${i}` : path, text }));
      });
    });
    const texts = [...new Set(fieldsOf.flat().map(({ text }) => text))];
    if (texts.length === 0) return ops.map(() => undefined);
    const embedded = await index.embeddings.embedDocuments(texts);
    const byText = new Map<string, string>();
    texts.forEach((text, i) => {
      const vector = embedded[i];
      if (!Array.isArray(vector) || vector.length !== index.dims) {
        throw new StudioError(
          `The embeddings returned ${Array.isArray(vector) ? `a vector of ${vector.length} numbers` : "no vector"} for text ${i + 1} of ${texts.length}; index.dims says ${index.dims}. Nothing was stored.`,
        );
      }
      byText.set(text, encodeVector(vector));
    });
    return fieldsOf.map((fields) =>
      fields.length === 0
        ? undefined
        : Object.fromEntries(fields.map(({ field, text }) => [field, byText.get(text)!])),
    );
  }

  /** Moves the expiry of the items a batch returned that have a TTL: one write per namespace. */
  async #refresh(items: readonly ReadItem[], now: number): Promise<void> {
    const touches = new Map<string, { namespace: string[]; entries: Map<string, Entry> }>();
    for (const { namespace, entry } of items) {
      if (entry.ttl === undefined) continue;
      const nsKey = JSON.stringify(namespace);
      const group = touches.get(nsKey) ?? { namespace, entries: new Map<string, Entry>() };
      touches.set(nsKey, group);
      group.entries.set(entry.key, {
        op: "touch",
        key: entry.key,
        of: { s: entry.s, w: entry.w },
        e: now + entry.ttl * MINUTE_MS,
      });
    }
    for (const { namespace, entries } of touches.values()) {
      await this.#threads.write(namespace, [...entries.values()], "the refreshed expiry of items");
    }
  }

  /** What a put stores of `payload`: inline JSON, or the serializer's output for its place. */
  async #store(namespace: string[], key: string, payload: Payload): Promise<StoredPayload> {
    const serde = this.#serde;
    if (!serde) return { p: payload };
    const [type, bytes] = isContextualSerde(serde)
      ? await serde.sealFor(storeContext(namespace, key), await serde.inner.dumpsTyped(payload))
      : await serde.dumpsTyped(payload);
    return { x: { type, data: toBase64(bytes) } };
  }

  async #load(namespace: readonly string[], entry: PutEntry): Promise<Payload> {
    const serde = this.#serde;
    const where = `key "${entry.key}" in namespace ${show(namespace)}`;
    if (!serde) {
      if ("p" in entry) return entry.p;
      throw new StudioError(
        `The value of ${where} was stored through a serializer (type "${entry.x.type}"): pass the same \`serde\` to the StudioStore that reads it.`,
      );
    }
    // Inline JSON goes through the serializer too, so that an encrypting one can refuse it.
    const [type, data] =
      "p" in entry ? ["json", JSON.stringify(entry.p)] : [entry.x.type, fromBase64(entry.x.data)];
    if (data === undefined) {
      throw new StudioError(`The stored value of ${where} is damaged: its data is not base64.`);
    }
    const payload: unknown = isContextualSerde(serde)
      ? await serde.inner.loadsTyped(
          ...(await serde.openFor(storeContext(namespace, entry.key), type, data)),
        )
      : await serde.loadsTyped(type, data);
    const value = (payload as Partial<Payload> | null)?.value;
    if (typeof value !== "object" || value === null) {
      throw new StudioError(`The stored value of ${where} did not read back as an object.`);
    }
    return payload as Payload;
  }

  /** Checks with the widest stamps a put can get, so that no stamp makes it too big later. */
  #checkSize({ op, stored, ttl }: PreparedPut): void {
    const widest = Number.MAX_SAFE_INTEGER;
    const entry: Entry = {
      op: "put",
      key: op.key,
      s: widest,
      w: clock.writer,
      c: widest,
      ...(ttl === undefined ? {} : { e: widest, ttl }),
      ...stored!,
    };
    const chars = entryChars(entry) + RECORD_OVERHEAD_CHARS;
    if (chars <= this.#maxMessageChars) return;
    throw new StudioValidationError(
      "value",
      `of key "${op.key}" in namespace ${show(op.namespace)} takes ${chars} characters once stored; an item is stored in one message of at most maxMessageChars (${this.#maxMessageChars}). Nothing of this batch was stored.`,
    );
  }
}

type Classified =
  | { kind: "get"; op: GetOperation }
  | { kind: "put"; op: StudioPutOperation }
  | { kind: "search"; op: SearchOperation }
  | { kind: "list"; op: ListNamespacesOperation };

/** Which operation `op` is, once checked as InMemoryStore checks it (and a little more). */
function classify(op: Operation, i: number): Classified {
  if (typeof op !== "object" || op === null) {
    throw new StudioValidationError(`operations[${i}]`, "must be a store operation object");
  }
  if ("namespacePrefix" in op) {
    if (!Array.isArray(op.namespacePrefix)) {
      throw new StudioValidationError(`operations[${i}].namespacePrefix`, "must be an array");
    }
    if (op.namespacePrefix.length > 0) {
      validateNamespace(op.namespacePrefix, { allowReservedRoot: true });
    }
    checkInteger(`operations[${i}].limit`, op.limit, 0);
    checkInteger(`operations[${i}].offset`, op.offset, 0);
    if (op.query !== undefined && op.query !== null && typeof op.query !== "string") {
      throw new StudioValidationError(`operations[${i}].query`, "must be a string");
    }
    return { kind: "search", op };
  }
  if ("namespace" in op) {
    validateNamespace(op.namespace, { allowReservedRoot: true });
    if (typeof op.key !== "string") {
      throw new StudioValidationError(`operations[${i}].key`, "must be a string");
    }
    if (!("value" in op)) return { kind: "get", op };
    const { value, ttl } = op as StudioPutOperation;
    if (value !== null && (typeof value !== "object" || Array.isArray(value))) {
      throw new StudioValidationError(
        `operations[${i}].value`,
        "must be an object (or null to delete the item)",
      );
    }
    if (ttl !== undefined && ttl !== null && !(typeof ttl === "number" && ttl > 0)) {
      throw new StudioValidationError(
        `operations[${i}].ttl`,
        "must be a number of minutes above 0 (or null: never expires)",
      );
    }
    return { kind: "put", op };
  }
  if ("matchConditions" in op || "maxDepth" in op || "limit" in op) {
    checkInteger(`operations[${i}].maxDepth`, op.maxDepth, 1);
    checkInteger(`operations[${i}].limit`, op.limit, 0);
    checkInteger(`operations[${i}].offset`, op.offset, 0);
    return { kind: "list", op };
  }
  throw new StudioValidationError(
    `operations[${i}]`,
    "is not a get, put, search or listNamespaces operation",
  );
}

function toItem({ namespace, entry, payload }: ReadItem): Item {
  return {
    namespace: [...namespace],
    key: entry.key,
    value: payload.value,
    createdAt: new Date(Math.floor(entry.c / 1000)),
    updatedAt: new Date(Math.floor(entry.s / 1000)),
  };
}

/** "the put of key \"a\"", "3 writes (keys \"a\", \"b\", \"c\")": for error messages. */
function describeWrites(entries: readonly Entry[]): string {
  const keys = entries.flatMap((entry) => ("key" in entry ? [JSON.stringify(entry.key)] : []));
  if (keys.length === 1) return `the write of key ${keys[0]}`;
  const shown = keys.length > 5 ? `${keys.slice(0, 5).join(", ")}...` : keys.join(", ");
  return `${keys.length} writes (keys ${shown})`;
}

function checkInteger(field: string, value: unknown, min: number): void {
  if (value === undefined || value === null) return;
  if (!Number.isInteger(value) || (value as number) < min) {
    throw new StudioValidationError(
      field,
      `must be an integer of at least ${min} (got ${String(value)})`,
    );
  }
}

function checkIndex(index: StudioStoreIndex): StudioStoreIndex & { fields: string[] } {
  const embeddings = index.embeddings as Partial<EmbeddingsInterface> | undefined;
  if (
    typeof embeddings?.embedDocuments !== "function" ||
    typeof embeddings.embedQuery !== "function"
  ) {
    throw new StudioValidationError(
      "index.embeddings",
      "must be LangChain embeddings (embedDocuments and embedQuery)",
    );
  }
  checkInteger("index.dims", index.dims, 1);
  if (index.dims === undefined) throw new StudioValidationError("index.dims", "is required");
  const fields = index.fields ?? ["$"];
  if (!Array.isArray(fields) || fields.some((field) => typeof field !== "string")) {
    throw new StudioValidationError("index.fields", "must be an array of field paths");
  }
  return { ...index, fields };
}

function checkTtl(ttl: StudioStoreTtl | undefined): StudioStoreTtl {
  if (ttl === undefined) return {};
  for (const field of ["defaultTtl", "sweepIntervalMinutes"] as const) {
    const value = ttl[field];
    if (value !== undefined && !(typeof value === "number" && value > 0)) {
      throw new StudioValidationError(`ttl.${field}`, "must be a number of minutes above 0");
    }
  }
  if (ttl.refreshOnRead !== undefined && typeof ttl.refreshOnRead !== "boolean") {
    throw new StudioValidationError("ttl.refreshOnRead", "must be a boolean");
  }
  return ttl;
}
