/**
 * StudioStore: a LangGraph `BaseStore` (long-term memory shared across threads and processes)
 * kept in the service's threads, one thread per namespace. The class is thin; each job has its
 * file: fields and their checks (`fields.ts`), operation checks (`operations.ts`), write, TTL and
 * search planning (`write-plan.ts`, `ttl.ts`, `search-plan.ts`, pure), sealing values
 * (`payloads.ts`), embedding (`vectors.ts`), the service I/O (`namespace-threads.ts`), the
 * storage mapping (`records.ts`) and the answers InMemoryStore computes (`queries.ts`).
 *
 * A batch reads every namespace it touches once (one call each when this process has read it
 * before), answers its gets, searches and listings from what it read, as InMemoryStore does
 * (reads see the store as it was before the batch's puts), then writes one message per namespace
 * it puts to.
 */
import {
  BaseStore,
  type GetOperation,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type SearchOperation,
  type SerializerProtocol,
  validateNamespace,
} from "@langchain/langgraph-checkpoint";
import { resolveSessionClient } from "../threads/service-identity";
import { type StoreSettings, type StudioStoreFields, storeSettings } from "./fields";
import { NamespaceThreads } from "./namespace-threads";
import { checkCallOptions, classifyAll, type StudioPutOperation } from "./operations";
import { loadPayload, storePayload } from "./payloads";
import { fixedPrefix, matchesFilter, pickNamespaces } from "./queries";
import { type NamespaceLog, type Payload, StampClock } from "./records";
import { type ReadItem, searchOrder, searchPage, toItem } from "./search-plan";
import { MINUTE_MS, planRefresh, putTtl } from "./ttl";
import { embedPuts, embedQueries } from "./vectors";
import { latestPuts, type PreparedPut, planWrites } from "./write-plan";

export type { StudioStoreFields, StudioStoreIndex, StudioStoreTtl } from "./fields";
export type { StudioPutOperation } from "./operations";

/** Stamps of every store in this process: one clock, so their writes are ordered among them. */
const clock = new StampClock();

/** The namespaces a batch read, each once. */
type Reader = (namespace: readonly string[]) => Promise<NamespaceLog | undefined>;

export class StudioStore extends BaseStore {
  // Not readonly: a `withSerde` view takes its origin's.
  #threads: NamespaceThreads;
  #settings: StoreSettings;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(fields: StudioStoreFields = {}) {
    super();
    this.#settings = storeSettings(fields);
    const { clientFields, datasetId, maxCachedNamespaces, maxMessageChars, maxConcurrentReads } =
      this.#settings;
    this.#threads = new NamespaceThreads(resolveSessionClient(clientFields), {
      datasetId,
      maxCachedNamespaces,
      maxMessageChars,
      maxConcurrentReads,
    });
  }

  /**
   * A store like this one whose values go through `serde` (e.g. one user's
   * `createEncryptedSerde`). It shares the client and the namespaces read, whose logs keep values
   * as stored (sealed, opened on each read), so a view costs no calls and no memory of its own.
   */
  withSerde(serde: SerializerProtocol): StudioStore {
    const view = new StudioStore({ client: this.#threads.client });
    view.#settings = { ...this.#settings, serde };
    view.#threads = this.#threads;
    return view;
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const ops = classifyAll(operations);
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
    const queries = await embedQueries(this.#settings.index, ops);
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
    if (this.#settings.ttl.refreshOnRead !== false) {
      for (const { namespace, entries } of planRefresh(returned, now)) {
        await this.#threads.write(namespace, entries, "the refreshed expiry of items");
      }
    }
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
    checkCallOptions("put", options);
    const op: StudioPutOperation = { namespace, key, value, index };
    if (options?.ttl !== undefined) op.ttl = options.ttl;
    await this.batch([op]);
  }

  /** LangGraph's `search`, its options checked first (a misspelt one would be dropped). */
  override search(
    namespacePrefix: string[],
    options?: Parameters<BaseStore["search"]>[1],
  ): ReturnType<BaseStore["search"]> {
    checkCallOptions("search", options);
    return super.search(namespacePrefix, options);
  }

  /** LangGraph's `listNamespaces`, its options checked first. */
  override listNamespaces(
    options?: Parameters<BaseStore["listNamespaces"]>[0],
  ): ReturnType<BaseStore["listNamespaces"]> {
    checkCallOptions("listNamespaces", options);
    return super.listNamespaces(options);
  }

  /**
   * Removes the values of expired items from the service (reads already skip them): every
   * namespace is read, and those holding items expired over a minute ago (or parts of a write cut
   * short over an hour ago) are compacted. Resolves to how many items' values were removed.
   */
  async sweepExpiredItems(): Promise<number> {
    const now = Date.now();
    let swept = 0;
    for (const { namespace, log } of await this.#threads.readTree([])) {
      if (this.#threads.needsSweep(log, now)) swept += await this.#threads.compact(namespace, now);
    }
    return swept;
  }

  /** Sweeps every `ttl.sweepIntervalMinutes` until `stop()` (nothing to do without it). */
  override start(): void {
    const minutes = this.#settings.ttl.sweepIntervalMinutes;
    if (minutes === undefined || this.#sweeper !== undefined) return;
    this.#sweeper = setInterval(() => {
      this.sweepExpiredItems().catch((error: unknown) => {
        console.warn(
          `[langchain-studio] StudioStore's TTL sweep failed (it runs again in ${minutes} ` +
            `minutes): ${error instanceof Error ? error.message : String(error)}`,
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
    const payload = await loadPayload(this.#settings.serde, op.namespace, entry);
    return { namespace: [...op.namespace], entry, payload };
  }

  async #search(op: SearchOperation, read: Reader, now: number, queries: Map<string, number[]>) {
    const nodes = await this.#threads.readTree(op.namespacePrefix, read);
    const candidates: ReadItem[] = [];
    for (const { namespace, log } of searchOrder(nodes)) {
      for (const entry of log.liveItems(now)) {
        const payload = await loadPayload(this.#settings.serde, namespace, entry);
        if (matchesFilter(payload.value, op.filter)) candidates.push({ namespace, entry, payload });
      }
    }
    const query = op.query === undefined ? undefined : queries.get(op.query);
    return searchPage(candidates, op, query);
  }

  async #listNamespaces(op: ListNamespacesOperation, read: Reader): Promise<string[][]> {
    const namespaces: string[][] = [];
    for (const { namespace, log } of await this.#threads.readTree(
      fixedPrefix(op.matchConditions),
      read,
    )) {
      if (log.opened) namespaces.push(namespace);
    }
    return pickNamespaces(namespaces, op);
  }

  /**
   * The batch's puts and deletes, ready to write but for their stamps (which need the namespace
   * read first): values embedded and serialized before anything is sent (an item of any size is
   * written, over several messages when it needs them).
   */
  async #preparePuts(puts: readonly StudioPutOperation[]): Promise<PreparedPut[]> {
    const { index, serde, ttl } = this.#settings;
    const ops = latestPuts(puts);
    const vectors = await embedPuts(index, ops);
    const prepared: PreparedPut[] = [];
    for (const [i, op] of ops.entries()) {
      if (op.value === null) {
        prepared.push({ op, stored: undefined, ttl: undefined });
        continue;
      }
      const payload: Payload = { value: op.value, ...(vectors[i] ? { vectors: vectors[i] } : {}) };
      const stored = await storePayload(serde, op.namespace, op.key, payload);
      prepared.push({ op, stored, ttl: putTtl(op.ttl, ttl.defaultTtl) });
    }
    return prepared;
  }

  /** Writes prepared puts, one message per namespace, after reading each namespace once. */
  async #writePuts(prepared: readonly PreparedPut[], read: Reader, now: number): Promise<void> {
    const logs = new Map<string, NamespaceLog | undefined>();
    for (const { op } of prepared) logs.set(JSON.stringify(op.namespace), await read(op.namespace));
    const writes = planWrites(prepared, logs, now, (seen) => clock.next(seen));
    await this.#threads.writeAll(writes, logs);
  }
}
