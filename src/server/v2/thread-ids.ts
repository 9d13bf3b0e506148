/**
 * Client-chosen thread ids (`POST /threads` with `thread_id`, a v2 `run.start` on a new id),
 * mapped to the service's chat threads the way the checkpointer maps LangGraph's `thread_id`:
 * the id is kept on a thread of its own (`records/chat-thread-id.ts`) filed under a dataset
 * named after the owner and the id, so one listing finds it in a fresh process.
 *
 * Per user: the dataset and the tags carry the owner's hash, so another user's id (or the same
 * id chosen by another user) never names this user's thread. The graph's checkpoints are kept
 * under the service thread's id, so two users choosing one id never share checkpoints either.
 *
 * Costs (service calls): `locate` of an id this process has seen, none; `find` of one, 1 (the
 * record's get); a UUID not seen, 2 (the id's listing, the record's get); another id not seen,
 * 3 (a failed get as a service id first); a new UUID found to be new, 2 (the listing, a failed
 * get as a service id); creating one, 3 (the record's 1, then the id thread naming it, then the
 * listing that checks for a concurrent creation; a loser deletes its 2 threads and reads the
 * winner's record). The look-up comes before the creation, not after it: one listing after the
 * creation could decide both, but then every first use of an id another process created would
 * make and delete 2 threads.
 * The cache is a hint: a thread it names that the service answers 404 for (`ThreadRecords`
 * forgets its owner then) or that no longer carries the id sends the look-up back to the service.
 */
import { chatThreadIdMetadata, chatThreadTarget } from "../../records/chat-thread-id";
import { RecentKeys } from "../../threads/in-flight";
import { sha256Hex } from "../../threads/service-identity";
import { isUuid, type StoredThread, type ThreadRecords } from "../thread-records";
import type { ThreadView } from "../thread-view";

/** Ids remembered per process (a hint: each is checked on use). */
const CACHED_IDS = 10_000;

async function idDataset(ownerHash: string, clientId: string): Promise<string> {
  const hash = await sha256Hex(`chat-id\u0000${ownerHash}\u0000${clientId}`);
  return `lc-chatid-${hash.slice(0, 32)}`;
}

function createdOrder(a: { createdAt?: unknown; id: string }, b: typeof a): number {
  const x = String(a.createdAt ?? "");
  const y = String(b.createdAt ?? "");
  if (x !== y) return x < y ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A thread `locate` found: its service id, and its record when the look-up read it. */
export interface Located {
  serviceId: string;
  stored?: StoredThread | undefined;
}

export class ClientThreadIds {
  readonly #records: ThreadRecords;
  /** `<owner hash> NUL <id>` to the service thread id last found for it. */
  readonly #cache = new Map<string, string>();
  /** `<owner hash> NUL <id>` to the id's dataset. */
  readonly #datasets = new RecentKeys<Promise<string>>(CACHED_IDS);

  constructor(records: ThreadRecords) {
    this.#records = records;
  }

  /** The owner's thread named `id` (a service id or a client id), or undefined. */
  async find(owner: string, id: string): Promise<StoredThread | undefined> {
    const hash = await this.#records.ownerHash(owner);
    const key = `${hash}\u0000${id}`;
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      const stored = await this.#records.get(owner, cached);
      if (stored && (cached === id || stored.view.client_thread_id === id)) return stored;
      this.#cache.delete(key);
    }
    const asService = () => this.#records.get(owner, id);
    const asClient = () => this.#holder(owner, hash, id);
    const [first, second] = isUuid(id) ? [asClient, asService] : [asService, asClient];
    const stored = (await first()) ?? (await second());
    if (stored) this.#remember(key, stored.view.thread_id);
    return stored;
  }

  /**
   * The service id of the owner's thread named `id`, and its record when the look-up read it;
   * undefined when the owner has none. An id seen before costs no call while the thread's owner
   * is known (`ThreadRecords#owns`); once the service has answered 404 for it, the look-up goes
   * back to the service.
   */
  async locate(owner: string, id: string): Promise<Located | undefined> {
    const hash = await this.#records.ownerHash(owner);
    const key = `${hash}\u0000${id}`;
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      if (this.#records.knows(cached) && (await this.#records.owns(owner, cached))) {
        return { serviceId: cached };
      }
      const stored = await this.#records.get(owner, cached);
      if (stored && (cached === id || stored.view.client_thread_id === id)) {
        return { serviceId: cached, stored };
      }
      this.#cache.delete(key);
    }
    const asService = async (): Promise<Located | undefined> => {
      // A service whose ids are not UUIDs has no thread named by one: no call for a new one.
      if (isUuid(id) && this.#records.uuidIds === false) return undefined;
      return (await this.#records.owns(owner, id)) ? { serviceId: id } : undefined;
    };
    const asClient = async (): Promise<Located | undefined> => {
      const stored = await this.#holder(owner, hash, id);
      return stored && { serviceId: stored.view.thread_id, stored };
    };
    const [first, second] = isUuid(id) ? [asClient, asService] : [asService, asClient];
    const found = (await first()) ?? (await second());
    if (found) this.#remember(key, found.serviceId);
    return found;
  }

  /**
   * The service thread id `id` stands for, for a route whose own read checks the owner: a
   * cached id at no cost; a UUID not cached is looked up (`find`); anything else is taken as
   * the service's own id.
   */
  async serviceIdOf(owner: string, id: string): Promise<string> {
    const hash = await this.#records.ownerHash(owner);
    const cached = this.#cache.get(`${hash}\u0000${id}`);
    if (cached !== undefined) return cached;
    if (!isUuid(id)) return id;
    return (await this.find(owner, id))?.view.thread_id ?? id;
  }

  /**
   * Creates the owner's thread under the client's `clientId`. When another creation of the
   * same id won a race, this one's threads are deleted and the winner returned, `created: false`.
   * `heldForRead`: for a run that starts at once (`ThreadRecords#create`).
   */
  async create(
    owner: string,
    clientId: string,
    view: Omit<ThreadView, "thread_id">,
    options: { heldForRead?: boolean } = {},
  ): Promise<{ stored: StoredThread; created: boolean }> {
    const hash = await this.#records.ownerHash(owner);
    const datasetId = await this.#idDataset(hash, clientId);
    const stored = await this.#records.create(
      owner,
      { ...view, client_thread_id: clientId },
      options,
    );
    const serviceId = stored.view.thread_id;
    const mine = await this.#records.client.createThread({
      datasetId,
      metadata: chatThreadIdMetadata(hash, serviceId),
    });
    const winner = await this.#holder(owner, hash, clientId, stored);
    const key = `${hash}\u0000${clientId}`;
    if (winner === undefined || winner.view.thread_id === serviceId) {
      this.#remember(key, serviceId);
      return { stored, created: true };
    }
    await this.#records.delete(serviceId);
    await this.#records.delete(mine.id);
    this.#remember(key, winner.view.thread_id);
    return { stored: winner, created: false };
  }

  /** Deletes the id threads of the owner's `clientId` (the chat thread is deleted). */
  async forget(owner: string, clientId: string): Promise<void> {
    const hash = await this.#records.ownerHash(owner);
    this.#cache.delete(`${hash}\u0000${clientId}`);
    const datasetId = await this.#idDataset(hash, clientId);
    for await (const thread of this.#records.client.iterateThreads({ datasetId })) {
      if (chatThreadTarget(thread.metadata, hash) !== undefined) {
        await this.#records.delete(thread.id);
      }
    }
  }

  /**
   * The chat thread the earliest id thread of `clientId` names (one listing, then its record,
   * unless it is `known`, a record just written); an id thread whose chat thread is gone (a
   * delete cut short) is passed over.
   */
  async #holder(owner: string, hash: string, clientId: string, known?: StoredThread) {
    const datasetId = await this.#idDataset(hash, clientId);
    const page = await this.#records.client.listThreads({ datasetId, order: "asc", limit: 20 });
    const targets = page.data
      .filter((thread) => chatThreadTarget(thread.metadata, hash) !== undefined)
      .sort(createdOrder)
      .map((thread) => chatThreadTarget(thread.metadata, hash)!);
    for (const target of targets) {
      if (target === known?.view.thread_id) return known;
      const stored = await this.#records.get(owner, target);
      if (stored) return stored;
    }
    return undefined;
  }

  /**
   * The id's dataset, hashed once per id: a creation names it three times (the look-up, the id
   * thread, the check), and Web Crypto's digest was a tenth of a v2 run's time.
   */
  #idDataset(hash: string, clientId: string): Promise<string> {
    const key = `${hash}\u0000${clientId}`;
    let dataset = this.#datasets.get(key);
    if (dataset === undefined) {
      dataset = idDataset(hash, clientId);
      this.#datasets.set(key, dataset);
    }
    return dataset;
  }

  #remember(key: string, serviceId: string): void {
    this.#cache.delete(key);
    this.#cache.set(key, serviceId);
    if (this.#cache.size > CACHED_IDS) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
  }
}
