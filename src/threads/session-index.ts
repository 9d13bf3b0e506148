/**
 * What a process has seen of the service's session threads, and the rule that picks a session's
 * thread among them: the tagged thread with the earliest `createdAt`, then the smallest id. Every
 * process applies the same rule to what it lists, so all of them agree on one thread per session.
 */
import type { Thread } from "../api-types";
import type { StudioClient } from "../client";
import type { RequestOptions } from "../client/options";
import { StudioAPIError } from "../errors";
import { KIND_KEY, SESSION_KEY } from "./metadata";
import { SerialQueue } from "./serial-queue";

const PAGE = 100;

/** What the index keeps of a thread: enough for the race rule. */
export type SeenThread = Pick<Thread, "id" | "createdAt">;

function timeOf(thread: SeenThread): number {
  const value = thread.createdAt;
  const ms = typeof value === "number" ? value : Date.parse(value ?? "");
  return Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY;
}

/** The session's thread of two: earliest createdAt, then smallest id. */
function older(a: SeenThread, b: SeenThread): SeenThread {
  const ta = timeOf(a);
  const tb = timeOf(b);
  if (ta !== tb) return ta < tb ? a : b;
  return a.id <= b.id ? a : b;
}

/** Key of a session in the index: a history session and a checkpoint thread never mix. */
export function sessionKey(kind: string, sessionId: string): string {
  return `${kind}\u0000${sessionId}`;
}

/**
 * The session threads seen so far, by session. With a `limit`, the sessions used least recently
 * beyond it are forgotten (for look-ups that can list a session again on its own).
 */
export class SessionIndex {
  readonly #threads = new Map<string, Map<string, SeenThread>>();
  #limit = Number.POSITIVE_INFINITY;

  /** Keeps at most `limit` sessions from now on. */
  bound(limit: number): void {
    this.#limit = limit;
    this.#evict();
  }

  /** The session's thread by the race rule, among those seen. */
  winner(key: string): SeenThread | undefined {
    const threads = this.#threads.get(key);
    if (!threads) return undefined;
    // Map order is use order: re-inserting marks the session recently used.
    this.#threads.delete(key);
    this.#threads.set(key, threads);
    let best: SeenThread | undefined;
    for (const thread of threads.values()) {
      best = best === undefined ? thread : older(best, thread);
    }
    return best;
  }

  /** Notes a thread if it is tagged as a session's. */
  note(thread: Thread): void {
    const session = thread.metadata?.[SESSION_KEY];
    const kind = thread.metadata?.[KIND_KEY];
    if (typeof session !== "string" || typeof kind !== "string") return;
    const key = sessionKey(kind, session);
    const threads = this.#threads.get(key) ?? new Map<string, SeenThread>();
    threads.set(thread.id, { id: thread.id, createdAt: thread.createdAt });
    this.#threads.delete(key);
    this.#threads.set(key, threads);
    this.#evict();
  }

  /** Forgets one thread of the session (its winner when `threadId` is undefined). */
  drop(key: string, threadId: string | undefined): void {
    const threads = this.#threads.get(key);
    if (!threads) return;
    const id = threadId ?? this.winner(key)?.id;
    if (id !== undefined) threads.delete(id);
    if (threads.size === 0) this.#threads.delete(key);
  }

  #evict(): void {
    while (this.#threads.size > this.#limit) {
      const oldest = this.#threads.keys().next().value;
      if (oldest === undefined) return;
      this.#threads.delete(oldest);
    }
  }
}

/**
 * Lists every thread of the account (or of one dataset), oldest first, into an index: all of them
 * the first time, then only those created since (`after` the newest seen). The cost of a cold
 * look-up grows with the threads listed (one call per 100), which is why sessions are filed under
 * datasets of their own when they can be (see `session-datasets.ts`).
 */
export class ThreadScan {
  readonly #datasetId: string | undefined;
  readonly #index: SessionIndex;
  readonly #accept: (thread: Thread) => boolean;
  /** Id of the newest thread listed so far: the next refresh lists only what follows it. */
  #cursor: string | undefined;
  /** Refreshes run one after another, so each one starts after the calls queued before it. */
  readonly #refreshes = new SerialQueue();

  /** `accept` says which of the listed threads the index takes. */
  constructor(
    datasetId: string | undefined,
    index: SessionIndex,
    accept: (thread: Thread) => boolean = () => true,
  ) {
    this.#datasetId = datasetId;
    this.#index = index;
    this.#accept = accept;
  }

  /** Lists the threads created since the last refresh (all of them the first time). */
  refresh(client: StudioClient, options?: RequestOptions): Promise<void> {
    return this.#refreshes.run(() => this.#scan(client, options));
  }

  async #scan(client: StudioClient, options: RequestOptions | undefined): Promise<void> {
    try {
      await this.#list(client, options);
    } catch (error) {
      // The cursor thread may be gone and the service may refuse it: list everything again.
      const cursorRefused =
        this.#cursor !== undefined &&
        error instanceof StudioAPIError &&
        (error.status === 400 || error.status === 404);
      if (!cursorRefused) throw error;
      this.#cursor = undefined;
      await this.#list(client, options);
    }
  }

  async #list(client: StudioClient, options: RequestOptions | undefined): Promise<void> {
    const query = {
      order: "asc" as const,
      limit: PAGE,
      ...(this.#datasetId === undefined ? {} : { datasetId: this.#datasetId }),
      ...(this.#cursor === undefined ? {} : { after: this.#cursor }),
    };
    for await (const thread of client.iterateThreads(query, options)) {
      if (this.#accept(thread)) this.#index.note(thread);
      this.#cursor = thread.id;
    }
  }
}

/** Notes in `index` every thread filed under `datasetId`. */
export async function listDataset(
  client: StudioClient,
  datasetId: string,
  index: SessionIndex,
): Promise<void> {
  for await (const thread of client.iterateThreads({ datasetId, order: "asc", limit: PAGE })) {
    index.note(thread);
  }
}
