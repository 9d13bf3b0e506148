/**
 * The service side of StudioStore: which thread holds a namespace, reading its records (only the
 * messages added since the last read), appending records, and compacting a thread.
 *
 * Namespaces form a tree: the thread of `["users", "42"]` holds that namespace's items, and the
 * thread of `["users"]` names `"42"` in a `child` entry; the root (`[]`) names the first labels.
 * Each node's thread is found like a history session (`threads/session-threads.ts`, kind "store",
 * the namespace's labels as session id): one call at any account size, created on the first write
 * and tagged so any process finds it. Listing and searching under a prefix read that prefix's
 * subtree, one thread per namespace in it, whatever else the store holds.
 *
 * A new namespace is named in its parent before its own thread is created: a write that stops in
 * between leaves a name that leads nowhere (skipped when listing), never a namespace that listing
 * and search cannot reach.
 */
import type { StudioClient } from "../client";
import { StudioAPIError, StudioError, StudioNotFoundError } from "../errors";
import { CODEC_KEYS } from "../records/history-message";
import { PART_KEY } from "../records/parts";
import { PartialWrite } from "../threads/confirmed-writes";
import { SerialQueue } from "../threads/serial-queue";
import {
  findSessionThread,
  forgetSessionThread,
  writeSessionThread,
} from "../threads/session-threads";
import {
  type Entry,
  NamespaceLog,
  type NamespaceWrite,
  namespaceSessionId,
  namespaceTitle,
  recordMessages,
  show,
} from "./records";
import { describeWrites } from "./write-plan";

export const STORE_KIND = "store";
/** Thread metadata telling people (and tools) what the thread holds. */
export const STORE_THREAD_TAGS = { lc_memory: "langgraph-store" } as const;
const PAGE = 100;
/**
 * A thread is compacted once its messages holding nothing that counts reach this many, and as
 * many as those that do: its length stays within twice what it holds, plus this.
 */
const MIN_DEAD_MESSAGES = 50;

/** What this process knows of one namespace's thread. */
interface NamespaceView {
  threadId: string | undefined;
  /** The last message read: the next read lists only what follows it. */
  cursor: string | undefined;
  log: NamespaceLog;
  /** Reads run one after another, so no message is applied twice. */
  reads: SerialQueue;
}

export interface NamespaceThreadsOptions {
  datasetId: string | undefined;
  /** Namespaces whose records stay in memory; the least recently used beyond are read again. */
  maxCachedNamespaces: number;
  maxMessageChars: number;
  /** Namespaces a tree read reads at once. */
  maxConcurrentReads: number;
}

export class NamespaceThreads {
  readonly #views = new Map<string, NamespaceView>();

  constructor(
    readonly client: StudioClient,
    private readonly options: NamespaceThreadsOptions,
  ) {}

  #scope() {
    const { datasetId } = this.options;
    return datasetId === undefined ? undefined : { datasetId };
  }

  #view(namespace: readonly string[]): NamespaceView {
    const key = JSON.stringify(namespace);
    const view = this.#views.get(key) ?? fresh();
    // Map order is use order: re-inserting marks it recently used, the first key is the oldest.
    this.#views.delete(key);
    this.#views.set(key, view);
    if (this.#views.size > this.options.maxCachedNamespaces) {
      const oldest = this.#views.keys().next().value;
      if (oldest !== undefined) this.#views.delete(oldest);
    }
    return view;
  }

  /**
   * Forgets what was read of the namespace: the next read lists `threadId` from its start. Queued
   * behind the reads under way, which would otherwise go on filling the new log from their cursor.
   */
  #reset(namespace: readonly string[], threadId: string | undefined): Promise<void> {
    const view = this.#view(namespace);
    return view.reads.run(async () => restart(view, threadId));
  }

  /**
   * The namespace's records, brought up to date: one call when its thread is known and nothing
   * is new; the first read lists every message, 100 per call. Undefined when it has no thread.
   */
  read(namespace: readonly string[]): Promise<NamespaceLog | undefined> {
    const view = this.#view(namespace);
    return view.reads.run(() => this.#catchUp(namespace, view, true));
  }

  async #catchUp(
    namespace: readonly string[],
    view: NamespaceView,
    mayRetry: boolean,
  ): Promise<NamespaceLog | undefined> {
    const sessionId = await namespaceSessionId(namespace);
    view.threadId ??= await findSessionThread(this.client, sessionId, STORE_KIND, this.#scope());
    const threadId = view.threadId;
    if (threadId === undefined) return undefined;
    try {
      const query = { order: "asc" as const, limit: PAGE, ...after(view.cursor) };
      for await (const message of this.client.iterateMessages(threadId, query)) {
        view.log.addMessage(message);
        view.cursor = message.id;
      }
      return view.log;
    } catch (error) {
      const refused =
        error instanceof StudioAPIError && (error.status === 400 || error.status === 404);
      if (!refused) throw error;
      if (view.cursor !== undefined) {
        // The cursor message may have been compacted away, and a service may refuse it: the
        // thread is read again from its start (a 404 then says the thread itself is gone).
        restart(view, threadId);
        return this.#catchUp(namespace, view, mayRetry);
      }
      if (!(error instanceof StudioNotFoundError) || !mayRetry) throw error;
    }
    // Deleted by another process: forget it and look again (a newer thread may hold it now).
    forgetSessionThread(this.client, sessionId, STORE_KIND, this.#scope(), threadId);
    restart(view, undefined);
    return this.#catchUp(namespace, view, false);
  }

  /**
   * Appends `entries` to the namespace's thread (several messages when they exceed the size of
   * one), creating the thread on the first write, after naming it in its parent.
   * @throws StudioError saying what is stored and that writing again is safe.
   */
  async write(namespace: readonly string[], entries: readonly Entry[], what: string) {
    if (entries.length === 0) return;
    const view = this.#view(namespace);
    const sessionId = await namespaceSessionId(namespace);
    // A namespace this process has not seen a thread for may be new: naming it in its parent
    // first costs one read of the parent when it is named already.
    if (view.threadId === undefined && namespace.length > 0) await this.#nameInParent(namespace);
    const messages = recordMessages(entries, this.options.maxMessageChars).map((input) => {
      const clientId = crypto.randomUUID();
      return {
        clientId,
        input: { ...input, metadata: { ...input.metadata, [CODEC_KEYS.clientId]: clientId } },
      };
    });
    let written: string;
    try {
      ({ threadId: written } = await writeSessionThread(
        this.client,
        sessionId,
        STORE_KIND,
        messages,
        { ...this.#scope(), title: namespaceTitle(namespace), metadata: { ...STORE_THREAD_TAGS } },
      ));
    } catch (error) {
      const split = messages.some(({ input }) => PART_KEY in input.metadata);
      throw writeError(namespace, what, messages.length, split, error);
    }
    // A thread found or created by this write, or another process's older thread that won a
    // creation race: what this process read of a different thread does not count.
    if (view.threadId !== written) await this.#reset(namespace, written);
  }

  /** Makes sure the parent namespace names this one as a child (creating the parent if need be). */
  async #nameInParent(namespace: readonly string[]): Promise<void> {
    const parent = namespace.slice(0, -1);
    const label = namespace.at(-1)!;
    const log = await this.read(parent);
    if (log?.hasChild(label)) return;
    await this.write(parent, [{ op: "child", label }], `the name of namespace ${show(namespace)}`);
  }

  /**
   * Writes one record per namespace, one namespace after another, compacting a namespace whose
   * thread has grown enough beyond what it holds. `logs` are the namespaces as the batch read them.
   * @throws StudioError that also names the namespaces whose writes are stored.
   */
  async writeAll(
    writes: readonly NamespaceWrite[],
    logs: ReadonlyMap<string, NamespaceLog | undefined>,
  ): Promise<void> {
    const written: string[] = [];
    for (const { namespace, entries } of writes) {
      try {
        await this.write(namespace, entries, describeWrites(entries));
      } catch (error) {
        if (written.length === 0 || !(error instanceof StudioError)) throw error;
        throw new StudioError(
          `${error.message} (This batch's writes to namespaces ${written.join(", ")} are stored.)`,
          { cause: error.cause },
        );
      }
      written.push(show(namespace));
      const log = logs.get(JSON.stringify(namespace));
      if (log && this.needsCompaction(log)) {
        try {
          await this.compact(namespace);
        } catch {
          // The write is stored; a compaction cut short leaves copies that read as the items they
          // copy, and the next write to the namespace tries again.
        }
      }
    }
  }

  /**
   * Whether the namespace's thread has grown enough beyond what it holds to compact it: the
   * parts of writes cut short long ago (`staleParts`) count as messages holding nothing.
   */
  needsCompaction(log: NamespaceLog, now: number = Date.now()): boolean {
    const stale = log.staleParts(now).length;
    const dead = log.deadMessageCount() + stale;
    return dead >= MIN_DEAD_MESSAGES && dead >= log.messageIds.length + stale - dead;
  }

  /**
   * Whether a sweep at `now` compacts the namespace: it holds items expired long enough to be
   * removed, or parts of a write cut short long ago.
   */
  needsSweep(log: NamespaceLog, now: number): boolean {
    return log.expiredCount(now) > 0 || log.staleParts(now).length > 0;
  }

  /**
   * Rewrites what the namespace holds (expired items as tombstones) into new messages, then
   * deletes the messages read before, and the parts of split records whose write was cut short
   * more than `INCOMPLETE_RECORD_GRACE_MS` ago (a write still under way is never deleted). Readers
   * never see an older value win meanwhile: the copies keep their stamps, and each old message is
   * deleted only once its copy is stored. Cost: one call per new message (usually one) and one per
   * message deleted. Resolves to the number of expired items whose values were removed.
   */
  async compact(namespace: readonly string[], now: number = Date.now()): Promise<number> {
    const log = await this.read(namespace);
    const threadId = this.#view(namespace).threadId;
    if (!log || threadId === undefined) return 0;
    const expired = log.expiredCount(now);
    // Read before the write below, which may reset the view: the reset after the deletes then
    // drops the stale parts' text from this process's view too.
    const old = [...log.messageIds, ...log.staleParts(now)];
    await this.write(namespace, log.compactedEntries(now), "the compacted items");
    if (this.#view(namespace).threadId !== threadId) return expired;
    for (const messageId of old) {
      try {
        await this.client.deleteMessage(threadId, messageId);
      } catch (error) {
        if (!(error instanceof StudioNotFoundError)) throw error;
      }
    }
    await this.#reset(namespace, threadId);
    return expired;
  }

  /**
   * Every namespace node under `prefix` (itself included) that has a thread, with its records,
   * parents before children. Nodes are read concurrently, at most `maxConcurrentReads` at once:
   * a node's children are read as soon as it is, and the children this process already knows
   * of are read beside their parent rather than after it. Cost: one read per node (plus a
   * look-up per node the process has not seen yet); wall time about
   * ceil(nodes / maxConcurrentReads) round trips once the process knows the tree (a
   * look-up and a read per level more the first time).
   */
  async readTree(
    prefix: readonly string[],
    read: (namespace: readonly string[]) => Promise<NamespaceLog | undefined> = (namespace) =>
      this.read(namespace),
  ): Promise<{ namespace: string[]; log: NamespaceLog }[]> {
    const logs = await boundedTreeRead(
      [...prefix],
      read,
      (namespace) => this.#views.get(JSON.stringify(namespace))?.log.children ?? [],
      this.options.maxConcurrentReads,
    );
    // What the fresh reads reach from the prefix: a child read because this process knew of it
    // counts only if its parent, as read now, still names it.
    const reached: { namespace: string[]; log: NamespaceLog }[] = [];
    const pending: string[][] = [[...prefix]];
    while (pending.length > 0) {
      const namespace = pending.shift()!;
      const log = logs.get(JSON.stringify(namespace));
      if (!log) continue;
      reached.push({ namespace, log });
      for (const label of log.children) pending.push([...namespace, label]);
    }
    return reached;
  }
}

/**
 * Reads `root` and every node under it, at most `limit` reads in flight: each node read queues
 * its children, and `known` (what was read before, no I/O) queues a node's children as soon as
 * the node itself is queued. Resolves to every log read, by the namespace's JSON; rejects with
 * the first error (reads under way finish on their own).
 */
function boundedTreeRead(
  root: string[],
  read: (namespace: readonly string[]) => Promise<NamespaceLog | undefined>,
  known: (namespace: readonly string[]) => readonly string[],
  limit: number,
): Promise<Map<string, NamespaceLog>> {
  const logs = new Map<string, NamespaceLog>();
  const queued = new Set<string>();
  const queue: string[][] = [];
  const enqueue = (namespace: string[]) => {
    const key = JSON.stringify(namespace);
    if (queued.has(key)) return;
    queued.add(key);
    queue.push(namespace);
    for (const label of known(namespace)) enqueue([...namespace, label]);
  };
  enqueue(root);
  return new Promise((resolve, reject) => {
    let active = 0;
    let failed = false;
    const pump = () => {
      if (failed) return;
      if (queue.length === 0 && active === 0) {
        resolve(logs);
        return;
      }
      while (active < limit && queue.length > 0) {
        const namespace = queue.shift()!;
        active += 1;
        read(namespace).then(
          (log) => {
            active -= 1;
            if (log) {
              logs.set(JSON.stringify(namespace), log);
              for (const label of log.children) enqueue([...namespace, label]);
            }
            pump();
          },
          (error: unknown) => {
            failed = true;
            reject(error);
          },
        );
      }
    };
    pump();
  });
}

function fresh(): NamespaceView {
  return {
    threadId: undefined,
    cursor: undefined,
    log: new NamespaceLog(),
    reads: new SerialQueue(),
  };
}

/** Starts the view over in place, keeping its queue so reads stay one after another. */
function restart(view: NamespaceView, threadId: string | undefined): void {
  view.threadId = threadId;
  view.cursor = undefined;
  view.log = new NamespaceLog();
}

function after(cursor: string | undefined): { after?: string } {
  return cursor === undefined ? {} : { after: cursor };
}

/** Says what of a stopped write is stored: messages are independent, each all or nothing. */
function writeError(
  namespace: readonly string[],
  what: string,
  count: number,
  split: boolean,
  error: unknown,
): unknown {
  if (!(error instanceof PartialWrite)) return error;
  const states = error.states(count);
  const stored = states.filter((state) => state === "stored").length;
  const unknown = states.filter((state) => state === "unknown").length;
  const outcome =
    count === 1
      ? states[0] === "unknown"
        ? "It may or may not be stored."
        : "It is not stored."
      : `Of its ${count} messages, ${stored} are stored, ${unknown} may or may not be, ` +
        `${count - stored - unknown} are not.${
          split
            ? " An item split over several messages " +
              "reads as stored only once all of them are; until then the key reads as it was."
            : ""
        }`;
  const thread = error.threadId === undefined ? "" : ` (thread ${error.threadId})`;
  return new StudioError(
    `Could not store ${what} in namespace ${show(namespace)}${thread}: ${error.message}. ` +
      `${outcome} Writing again is safe: the newest write of a key wins, and a write stored ` +
      "twice reads as once.",
    { cause: error.cause },
  );
}
