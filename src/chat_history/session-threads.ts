/**
 * Session threads: a caller's own id (a chat session id, a LangGraph `thread_id`) resolved to the
 * service thread that holds it, for the history and the LangGraph checkpointer alike.
 *
 * The service has no lookup by metadata, so the thread a session creates is tagged in its metadata
 * (`lc_session: <id>`, `lc_kind: "history" | "checkpoint"`) and found by listing threads:
 *   - once per client (and dataset), every thread is listed, oldest first (1,000 threads: 10
 *     calls of 100); the session -> thread map is cached in a WeakMap keyed by the client;
 *   - after that, a session the cache does not know costs one call: only threads created after the
 *     last one seen are listed (`after` cursor); a session it knows costs nothing.
 * With `datasetId`, only that dataset's threads are listed (the service filters them), and the
 * same session id under another dataset (or none) is another session.
 *
 * Two processes can create a thread for the same new session at once. The rule that keeps one
 * conversation: the session's thread is the tagged thread with the earliest `createdAt` (then the
 * smallest id). After creating, a creator lists the new threads again; if an older one holds the
 * session, it appends its messages there, deletes its own thread and answers with the older one.
 * So both end up writing to one thread, and a creator that cannot move its messages raises an
 * error naming both threads.
 */
import type { Thread, ThreadMessageInput } from "../api-types";
import { METADATA_LIMITS } from "../api-types";
import type { StudioClient } from "../client";
import type { RequestOptions } from "../client/types";
import type { EncodedMessage } from "../converters/thread-messages";
import { CODEC_KEYS } from "../converters/thread-metadata";
import { StudioAPIError, StudioValidationError } from "../errors";
import { validateMetadata } from "../validation";
import {
  appendConfirmed,
  completeBatch,
  createThreadConfirmed,
  notConfirmedError,
  PartialWrite,
  THREAD_KEY,
  type WritePolicy,
} from "./confirmed-writes";

/** Thread metadata key holding the session id. */
export const SESSION_KEY = "lc_session";
/** Thread metadata key saying what the session thread holds. */
export const KIND_KEY = "lc_kind";
/** Metadata keys a session thread reserves (session, kind and the creation key). */
export const SESSION_RESERVED_KEYS = [SESSION_KEY, KIND_KEY, THREAD_KEY] as const;

export type SessionKind = "history" | "checkpoint";

export interface SessionScope {
  /** Look up and create the session's thread among this dataset's threads only. */
  datasetId?: string | undefined;
}

export interface CreateSessionThreadInit extends SessionScope {
  title?: string | undefined;
  /** Extra thread metadata (string values; at most 13 keys, three are the session's). */
  metadata?: Record<string, string> | undefined;
  /**
   * First messages, stored exactly once and in order. Each should carry a unique `lc_id` in its
   * metadata (it is what confirms an ambiguous write); one is added when missing.
   */
  messages?: readonly ThreadMessageInput[] | undefined;
  /** Attempts and pause for ambiguous failures (default 3 attempts, 250 ms). */
  policy?: WritePolicy | undefined;
}

export interface SessionThread {
  threadId: string;
  /** True when this call created the session's thread, false when it already existed. */
  created: boolean;
}

const DEFAULT_POLICY: WritePolicy = { maxAttempts: 3, confirmDelayMs: 250 };
const PAGE = 100;

/** Checks a session id as it will be stored (a metadata value). */
export function checkSessionId(field: string, sessionId: unknown): asserts sessionId is string {
  if (typeof sessionId !== "string" || sessionId === "") {
    throw new StudioValidationError(field, "must be a non-empty string");
  }
  if (sessionId.length > METADATA_LIMITS.maxValueLength) {
    throw new StudioValidationError(
      field,
      `is ${sessionId.length} characters; it is stored as thread metadata, which holds at most ${METADATA_LIMITS.maxValueLength}`,
    );
  }
}

/** Checks extra thread metadata: string values, none of the session's keys, room for them. */
export function checkSessionMetadata(metadata: Record<string, string> | undefined): void {
  if (metadata === undefined) return;
  validateMetadata("metadata", metadata);
  for (const key of SESSION_RESERVED_KEYS) {
    if (Object.hasOwn(metadata, key)) {
      throw new StudioValidationError(`metadata.${key}`, "is reserved for the session's thread");
    }
  }
  const room = METADATA_LIMITS.maxKeys - SESSION_RESERVED_KEYS.length;
  if (Object.keys(metadata).length > room) {
    throw new StudioValidationError(
      "metadata",
      `has ${Object.keys(metadata).length} keys; a session's thread takes at most ${room} besides its own ${SESSION_RESERVED_KEYS.join(", ")}`,
    );
  }
}

function timeOf(thread: Thread): number {
  const value = thread.createdAt;
  const ms = typeof value === "number" ? value : Date.parse(value ?? "");
  return Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY;
}

/** The deterministic winner among a session's threads: earliest createdAt, then smallest id. */
function older(a: Thread, b: Thread): Thread {
  const ta = timeOf(a);
  const tb = timeOf(b);
  if (ta !== tb) return ta < tb ? a : b;
  return a.id <= b.id ? a : b;
}

function sessionKey(kind: string, sessionId: string): string {
  return `${kind}\u0000${sessionId}`;
}

/** The session threads of one client (and dataset), as far as they have been listed. */
class SessionIndex {
  readonly #client: StudioClient;
  readonly #datasetId: string | undefined;
  /** Id of the newest thread listed so far: the next refresh lists only what follows it. */
  #cursor: string | undefined;
  readonly #threads = new Map<string, Map<string, Thread>>();
  /** Refreshes run one after another, so each one starts after the calls queued before it. */
  #refreshing: Promise<void> = Promise.resolve();
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(client: StudioClient, datasetId: string | undefined) {
    this.#client = client;
    this.#datasetId = datasetId;
  }

  winner(key: string): Thread | undefined {
    let best: Thread | undefined;
    for (const thread of this.#threads.get(key)?.values() ?? []) {
      best = best === undefined ? thread : older(best, thread);
    }
    return best;
  }

  note(thread: Thread): void {
    const session = thread.metadata?.[SESSION_KEY];
    const kind = thread.metadata?.[KIND_KEY];
    if (typeof session !== "string" || typeof kind !== "string") return;
    const key = sessionKey(kind, session);
    const threads = this.#threads.get(key) ?? new Map<string, Thread>();
    threads.set(thread.id, thread);
    this.#threads.set(key, threads);
  }

  drop(key: string, threadId: string | undefined): void {
    const threads = this.#threads.get(key);
    if (!threads) return;
    if (threadId === undefined) {
      const winner = this.winner(key);
      if (winner) threads.delete(winner.id);
    } else {
      threads.delete(threadId);
    }
  }

  /** Lists the threads created since the last refresh (all of them the first time). */
  refresh(options?: RequestOptions): Promise<void> {
    const run = this.#refreshing.then(
      () => this.#scan(options),
      () => this.#scan(options),
    );
    this.#refreshing = run.catch(() => undefined);
    return run;
  }

  async #scan(options: RequestOptions | undefined): Promise<void> {
    try {
      await this.#list(options);
    } catch (error) {
      // The cursor thread may be gone and the service may refuse it: list everything again.
      const cursorRefused =
        this.#cursor !== undefined &&
        error instanceof StudioAPIError &&
        (error.status === 400 || error.status === 404);
      if (!cursorRefused) throw error;
      this.#cursor = undefined;
      this.#threads.clear();
      await this.#list(options);
    }
  }

  async #list(options: RequestOptions | undefined): Promise<void> {
    const query = {
      order: "asc" as const,
      limit: PAGE,
      ...(this.#datasetId === undefined ? {} : { datasetId: this.#datasetId }),
      ...(this.#cursor === undefined ? {} : { after: this.#cursor }),
    };
    for await (const thread of this.#client.iterateThreads(query, options)) {
      this.note(thread);
      this.#cursor = thread.id;
    }
  }

  /** Runs `task` after every task queued before it for the same session in this process. */
  withLock<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => undefined);
    this.#locks.set(key, tail);
    void tail.then(() => {
      if (this.#locks.get(key) === tail) this.#locks.delete(key);
    });
    return run;
  }
}

const indexes = new WeakMap<StudioClient, Map<string, SessionIndex>>();

function indexFor(client: StudioClient, scope: SessionScope | undefined): SessionIndex {
  const datasetId = scope?.datasetId;
  let byDataset = indexes.get(client);
  if (!byDataset) {
    byDataset = new Map();
    indexes.set(client, byDataset);
  }
  const name = datasetId === undefined ? "" : `dataset:${datasetId}`;
  let index = byDataset.get(name);
  if (!index) {
    index = new SessionIndex(client, datasetId);
    byDataset.set(name, index);
  }
  return index;
}

/**
 * The id of the thread holding `sessionId` (of this `kind`), or undefined when none exists yet.
 * A session this client has seen costs no call; otherwise the threads created since the last look
 * are listed (all threads on the client's first look: one call per 100 threads).
 */
export async function findSessionThread(
  client: StudioClient,
  sessionId: string,
  kind: SessionKind,
  scope?: SessionScope,
): Promise<string | undefined> {
  checkSessionId("sessionId", sessionId);
  const index = indexFor(client, scope);
  const key = sessionKey(kind, sessionId);
  const known = index.winner(key);
  if (known) return known.id;
  await index.refresh();
  return index.winner(key)?.id;
}

/**
 * Forgets the cached thread of a session (after deleting that thread): the next look-up lists
 * again. `threadId` names the deleted thread; without it, the cached one is forgotten.
 */
export function forgetSessionThread(
  client: StudioClient,
  sessionId: string,
  kind: SessionKind,
  scope?: SessionScope,
  threadId?: string,
): void {
  indexFor(client, scope).drop(sessionKey(kind, sessionId), threadId);
}

/** Adds `lc_id` to messages that lack one, so that every write can be confirmed. */
function encoded(messages: readonly ThreadMessageInput[]): EncodedMessage[] {
  return messages.map((input) => {
    const existing = input.metadata?.[CODEC_KEYS.clientId];
    if (typeof existing === "string" && existing !== "") return { clientId: existing, input };
    const clientId = crypto.randomUUID();
    return {
      clientId,
      input: { ...input, metadata: { ...input.metadata, [CODEC_KEYS.clientId]: clientId } },
    };
  });
}

/**
 * The session's thread with `messages` appended: an existing thread of the session when there is
 * one, else a new thread created with them (tagged so any process finds it). Serialised per
 * session within the process; across processes the race rule in this module's comment holds.
 * @throws StudioWriteNotConfirmedError saying which messages are stored, which not, which unknown.
 */
export async function createSessionThread(
  client: StudioClient,
  sessionId: string,
  kind: SessionKind,
  init: CreateSessionThreadInit = {},
): Promise<SessionThread> {
  checkSessionId("sessionId", sessionId);
  checkSessionMetadata(init.metadata);
  const batch = encoded(init.messages ?? []);
  try {
    return await writeSessionThread(client, sessionId, kind, batch, init);
  } catch (error) {
    if (!(error instanceof PartialWrite)) throw error;
    throw notConfirmedError(
      error,
      batch.map((_, i) => i),
      batch.length,
    );
  }
}

/**
 * `createSessionThread` on encoded messages, for the history.
 * @throws PartialWrite (positions in `batch`) when the write stops.
 */
export async function writeSessionThread(
  client: StudioClient,
  sessionId: string,
  kind: SessionKind,
  batch: readonly EncodedMessage[],
  init: Omit<CreateSessionThreadInit, "messages"> & { threadKey?: string } = {},
): Promise<SessionThread> {
  const policy = init.policy ?? DEFAULT_POLICY;
  const index = indexFor(client, init);
  const key = sessionKey(kind, sessionId);
  return index.withLock(key, async () => {
    const nothingWritten = (what: string, cause: unknown) =>
      new PartialWrite({
        at: 0,
        state: "notStored",
        later: "notStored",
        attempts: 1,
        what,
        cause,
        threadId: undefined,
      });
    // A thread already seen for the session stays its thread (any other one is younger).
    if (index.winner(key) === undefined) {
      try {
        await index.refresh();
      } catch (error) {
        throw nothingWritten(`look up the thread of session "${sessionId}"`, error);
      }
    }
    const existing = index.winner(key);
    if (existing) {
      await appendConfirmed(client, policy, existing.id, batch, undefined);
      return { threadId: existing.id, created: false };
    }

    const metadata: Record<string, string> = {
      ...init.metadata,
      [SESSION_KEY]: sessionId,
      [KIND_KEY]: kind,
      [THREAD_KEY]: init.threadKey ?? crypto.randomUUID(),
    };
    const { thread, foundAfterFailure } = await createThreadConfirmed(client, policy, {
      messages: batch.map((message) => message.input),
      metadata,
      ...(init.title === undefined ? {} : { title: init.title }),
      ...(init.datasetId === undefined ? {} : { datasetId: init.datasetId }),
    });
    if (foundAfterFailure) await completeBatch(client, policy, thread.id, batch);

    // Not noted before this listing: until it succeeds, the index must not take this thread for
    // the session's, since an older one may exist that it has not listed yet.
    await refreshAfterCreate(index, policy, thread.id, batch.length);
    const winner = index.winner(key);
    if (winner === undefined || winner.id === thread.id) {
      // (A listing that lags behind the create does not show it yet.)
      index.note(thread);
      return { threadId: thread.id, created: true };
    }

    // Another process created the session's thread first: move this call's messages there.
    try {
      await appendConfirmed(client, policy, winner.id, batch, undefined);
    } catch (error) {
      if (!(error instanceof PartialWrite)) throw error;
      throw error.shifted(
        0,
        winner.id,
        `Another process created session "${sessionId}"'s thread ${winner.id} at the same time; this call's messages are all in thread ${thread.id}, which was not deleted: copy what is missing to ${winner.id}, then delete ${thread.id}.`,
      );
    }
    try {
      await client.deleteThread(thread.id);
    } catch {
      // Harmless if it stays (look-ups always pick the older thread), and gone already is fine.
    }
    index.drop(key, thread.id);
    return { threadId: winner.id, created: false };
  });
}

/**
 * Lists the threads created since the last look, to see whether an older thread of the session
 * appeared meanwhile. Without it a lost race would go unnoticed, so it is retried, and if it still
 * fails the caller hears that its messages are stored but maybe not in the session's thread.
 */
async function refreshAfterCreate(
  index: SessionIndex,
  policy: WritePolicy,
  threadId: string,
  count: number,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await index.refresh();
      return;
    } catch (error) {
      if (attempt >= policy.maxAttempts) {
        throw new PartialWrite({
          at: count,
          state: "notStored",
          attempts: attempt,
          what: `check that no other process created the same session's thread (thread ${threadId} was created and holds the messages)`,
          cause: error,
          threadId,
          note: `If another process created the session's thread at the same moment, the older thread is the session's and thread ${threadId} should be merged into it.`,
        });
      }
      await new Promise((resolve) =>
        setTimeout(resolve, policy.confirmDelayMs * 2 ** (attempt - 1)),
      );
    }
  }
}
