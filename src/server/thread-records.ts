/**
 * The server's thread list, kept in the service (the one I/O module of this room).
 *
 * A chat thread is a service thread of its own, filed under a dataset named after its owner
 * (`lc-chat-<32 hex of SHA-256("chat" NUL owner)>`) and tagged `lc_kind: "chat-thread"`,
 * `lc_owner: <that hash>`. Its id is the Agent Server `thread_id`. The service has no thread
 * update, so what changes (metadata, status, title, preview, `updated_at`) is one snapshot
 * message in that thread: a save appends the new snapshot, then deletes the older ones. The
 * first snapshot is written with the thread (format 2, `records/chat-thread.ts`) and stays: a
 * reader takes it only while the thread has no other. Costs:
 *   - create: one call (the thread with its first snapshot);
 *   - get: one call (its newest messages) once this process knows the thread's owner, two the
 *     first time (the thread, for its owner; then its messages), whatever the account holds;
 *     none for the first get of a thread created `heldForRead` (protocol v2's `run.start`);
 *   - owns: no call once the owner is known, one the first time;
 *   - save: two calls (append, delete the previous snapshot); one, the append, for the first
 *     save after the creation (the first snapshot stays);
 *   - list the owner's threads: one call per 100 threads of that owner (the dataset listing
 *     returns each thread with its messages, the snapshots), never the account's.
 * Two processes saving at once leave two snapshots; the newest `updated_at` wins on read and the
 * next save removes both.
 */
import type { ThreadMessage } from "../api-types";
import type { StudioClient } from "../client";
import { StudioAPIError, StudioValidationError } from "../errors";
import {
  chatThreadMetadata,
  firstSnapshotMessage,
  isChatThread,
  readSnapshot,
  snapshotMessage,
} from "../records/chat-thread";
import { RecentKeys } from "../threads/in-flight";
import { sha256Hex } from "../threads/service-identity";
import type { ThreadView } from "./thread-view";

const PAGE = 100;
/**
 * Threads whose owner this process remembers. A thread's owner never changes, so the owner read
 * once (at create, or a first get) is not read again: a run's owner check and the record's read
 * after it cost no call for it. A thread another process deleted is found gone by its messages.
 */
export const OWNERS_KEPT = 10_000;
/** Snapshots read per get: one normally, a few after concurrent saves. */
const SNAPSHOTS_READ = 5;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for an id shaped as a UUID (what clients mint for the threads they name). */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}

export interface StoredThread {
  view: ThreadView;
  /** The snapshot messages read, but the first (which stays): replaced by the next save. */
  snapshotIds: string[];
}

/**
 * The owner's hash. Under a tenant, the hashed text starts "chat-tenant" where the shared one
 * starts "chat", and a tenant has no NUL: no owner of one space hashes as an owner of another.
 */
async function ownerHash(owner: string, tenant?: string): Promise<string> {
  const text =
    tenant === undefined ? `chat\u0000${owner}` : `chat-tenant\u0000${tenant}\u0000${owner}`;
  return (await sha256Hex(text)).slice(0, 32);
}

/**
 * The newest of the thread's snapshots, by `updated_at` (concurrent saves may leave several);
 * the first, written with the thread, only when there is no other: it is older than any save,
 * whatever the clocks of the processes that wrote them say.
 * @throws StudioStoredFormatError for a snapshot of a newer format.
 */
function newest(threadId: string, messages: readonly ThreadMessage[]): StoredThread | undefined {
  let best: ThreadView | undefined;
  let first: ThreadView | undefined;
  const ids: string[] = [];
  for (const message of messages) {
    const snapshot = readSnapshot<ThreadView>(message, threadId);
    if (!snapshot) continue;
    const { view } = snapshot;
    if (snapshot.first) {
      first = view;
      continue;
    }
    ids.push(message.id);
    if (!best || view.updated_at > best.updated_at) best = view;
  }
  best ??= first;
  return best ? { view: best, snapshotIds: ids } : undefined;
}

function isMissing(error: unknown): boolean {
  return (
    error instanceof StudioValidationError ||
    (error instanceof StudioAPIError && (error.status === 404 || error.status === 400))
  );
}

export class ThreadRecords {
  readonly #client: StudioClient;
  readonly #tenant: string | undefined;
  /** Thread id to its owner's hash, for the threads this process has seen (`OWNERS_KEPT`). */
  readonly #owners = new RecentKeys<string>(OWNERS_KEPT);
  /** Owner to their hash: a SHA-256 on every read was a twentieth of a run's CPU. */
  readonly #hashes = new RecentKeys<Promise<string>>(OWNERS_KEPT);
  /** Whether a service thread id this process has seen was a UUID; undefined before the first. */
  #uuidIds: boolean | undefined;
  /** Records just created, answered to their next `get` once (`create`'s `heldForRead`). */
  readonly #held = new RecentKeys<StoredThread>(OWNERS_KEPT);

  /** `tenant` keeps these owners apart from the same ids of another tenant (or of none). */
  constructor(client: StudioClient, tenant?: string) {
    this.#client = client;
    this.#tenant = tenant;
  }

  /** The service client the records are kept with (for the client-chosen ids' threads). */
  get client(): StudioClient {
    return this.#client;
  }

  /** The hash the owner's threads are tagged and filed with. */
  ownerHash(owner: string): Promise<string> {
    let hash = this.#hashes.get(owner);
    if (hash === undefined) {
      hash = ownerHash(owner, this.#tenant);
      this.#hashes.set(owner, hash);
    }
    return hash;
  }

  /**
   * Whether the service's thread ids are UUIDs, as the ids this process has seen say (a service
   * has one shape of id); undefined before the first. While false, a UUID names no service thread.
   */
  get uuidIds(): boolean | undefined {
    return this.#uuidIds;
  }

  #seen(threadId: string): void {
    this.#uuidIds = this.#uuidIds === true || UUID.test(threadId);
  }

  /**
   * Creates the owner's thread with its first snapshot (one call). With `heldForRead`, the next
   * `get` of it is answered with this record, no call: for a thread made for a run that starts at
   * once (protocol v2's `run.start`), whose end reads the record nobody else has found yet.
   */
  async create(
    owner: string,
    view: Omit<ThreadView, "thread_id">,
    options: { heldForRead?: boolean } = {},
  ): Promise<StoredThread> {
    const hash = await this.ownerHash(owner);
    // The id is the service's: the first snapshot, written in the same call, has none.
    const thread = await this.#client.createThread({
      datasetId: `lc-chat-${hash}`,
      metadata: chatThreadMetadata(hash),
      messages: [firstSnapshotMessage(view)],
    });
    const full: ThreadView = { ...view, thread_id: thread.id };
    this.#owners.set(thread.id, hash);
    this.#seen(thread.id);
    // The first snapshot stays: the first save has nothing to delete.
    const stored = { view: full, snapshotIds: [] };
    if (options.heldForRead) this.#held.set(thread.id, stored);
    return stored;
  }

  /** Drops a record `create` held for a read that will not come (its run did not start). */
  release(threadId: string): void {
    this.#held.delete(threadId);
  }

  /** The owner's thread, or undefined when it does not exist or is someone else's. */
  async get(owner: string, threadId: string): Promise<StoredThread | undefined> {
    if (!(await this.owns(owner, threadId))) return undefined;
    const held = this.#held.get(threadId);
    if (held !== undefined) {
      this.#held.delete(threadId);
      return held;
    }
    let page: Awaited<ReturnType<StudioClient["listMessages"]>>;
    try {
      page = await this.#client.listMessages(threadId, { order: "desc", limit: SNAPSHOTS_READ });
    } catch (error) {
      if (!isMissing(error)) throw error;
      // Deleted by another process since its owner was read.
      this.#owners.delete(threadId);
      return undefined;
    }
    return newest(threadId, page.data);
  }

  /**
   * Whether the thread exists and is the owner's, as far as this process knows: a thread it has
   * seen is answered without a call (its owner cannot change), so one deleted by another process
   * since is still owned here; reading or saving its record then finds it gone.
   */
  async owns(owner: string, threadId: string): Promise<boolean> {
    const hash = await this.ownerHash(owner);
    const known = this.#owners.get(threadId);
    if (known !== undefined) return known === hash;
    let thread: Awaited<ReturnType<StudioClient["getThread"]>>;
    try {
      thread = await this.#client.getThread(threadId);
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    this.#seen(thread.id);
    if (!isChatThread(thread.metadata, hash)) return false;
    this.#owners.set(threadId, hash);
    return true;
  }

  /**
   * Whether this process knows the thread's owner (`owns` then costs no call); false again once
   * the service has answered 404 for the thread.
   */
  knows(threadId: string): boolean {
    return this.#owners.has(threadId);
  }

  /** Replaces the thread's snapshot: append the new one, then delete those it replaces. */
  async save(stored: StoredThread, view: ThreadView): Promise<StoredThread> {
    this.#held.delete(view.thread_id);
    const message = await this.#client.createMessage(view.thread_id, snapshotMessage(view));
    for (const id of stored.snapshotIds) {
      try {
        await this.#client.deleteMessage(view.thread_id, id);
      } catch (error) {
        // Already deleted by a concurrent save: the new snapshot is the newest either way.
        if (!isMissing(error)) throw error;
      }
    }
    return { view, snapshotIds: [message.id] };
  }

  async delete(threadId: string): Promise<void> {
    this.#owners.delete(threadId);
    this.#held.delete(threadId);
    try {
      await this.#client.deleteThread(threadId);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }

  /** Every thread of the owner, with its newest snapshot. */
  async list(owner: string): Promise<ThreadView[]> {
    const hash = await this.ownerHash(owner);
    const datasetId = `lc-chat-${hash}`;
    const views: ThreadView[] = [];
    for await (const entry of this.#client.iterateDatasetThreadsMessages({
      datasetId,
      pageSize: PAGE,
    })) {
      const found = newest(entry.threadId, entry.messages);
      if (!found) continue;
      // Filed under the owner's dataset: the owner's.
      this.#owners.set(found.view.thread_id, hash);
      this.#seen(found.view.thread_id);
      views.push(found.view);
    }
    return views;
  }
}
