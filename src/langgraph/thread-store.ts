/**
 * The service side of the checkpointer: which service thread holds a LangGraph thread, reading its
 * records through a window of its newest messages (`thread-window.ts`), appending and deleting
 * records.
 *
 * A LangGraph `thread_id` is resolved like a history session id (`threads/session-threads.ts`, kind
 * "checkpoint"): the service thread is tagged with it, found by any process with its own client,
 * and created on the first write, titled and tagged so a person in the dashboard can tell it from
 * a conversation.
 *
 * Records are idempotent (a record written twice reads as once, see `checkpoint-log.ts`), so a
 * write whose outcome is unknown (timeout, reset, 5xx) is simply sent again, as many times and
 * after the same pauses as the history's writes; no read-back is needed to avoid duplicates.
 */
import type { ThreadMessage } from "../api-types";
import type { StudioClient } from "../client";
import {
  StudioError,
  StudioNotFoundError,
  StudioStoredFormatError,
  StudioThreadDeletedError,
} from "../errors";
import { DEFAULT_WRITE_POLICY, retried } from "../threads/backoff";
import { isAmbiguousWriteFailure } from "../threads/confirmed-writes";
import { KIND_KEY, SESSION_KEY } from "../threads/metadata";
import { SerialQueue } from "../threads/serial-queue";
import { mayHoldUnscopedSession } from "../threads/session-datasets";
import {
  createSessionThread,
  findSessionThread,
  forgetSessionThread,
} from "../threads/session-threads";
import type { RecordEntry } from "./checkpoint-log";
import type { RecordMessage, StoredRecord } from "./records";
import type { RecordCodec } from "./sealed-records";
import { PAGE, ThreadWindow } from "./thread-window";

export const CHECKPOINT_KIND = "checkpoint";
/** Thread metadata telling people (and tools) what the thread holds. */
export const THREAD_TAGS = { lc_memory: "langgraph-checkpoints" } as const;
const TITLE_CHARS = 200;
/** A LangGraph thread may have left duplicate service threads behind (a lost creation race). */
const MAX_THREADS_PER_SESSION = 10;
/** A read that finds its thread or cursor gone starts over this many times at most. */
const MAX_READ_RESTARTS = 3;

export function threadTitle(threadId: string): string {
  const title = `LangGraph checkpoints: ${threadId}`;
  return title.length <= TITLE_CHARS ? title : `${title.slice(0, TITLE_CHARS - 1)}…`;
}

/** What this process knows of one LangGraph thread. */
/**
 * When a write may create its checkpoint thread. `always`: a conversation's first checkpoint,
 * also after another process deleted the thread (a new conversation under the same id).
 * `unless-deleted`: a later checkpoint or a task's writes, which may create a thread this process
 * never wrote to (a copy, a restore, writes stored before their checkpoint) but not one it saw
 * deleted under it. `never`: read times and prune copies, which only add to records it read.
 */
export type ThreadCreation = "always" | "unless-deleted" | "never";

interface ThreadView {
  serviceThreadId: string | undefined;
  window: ThreadWindow | undefined;
  /** Reads run one after another, so no message is applied twice. */
  reads: SerialQueue;
  /** The first write's look-up or creation of the service thread, shared by concurrent writes. */
  resolving: Promise<string> | undefined;
}

/** A checkpoint thread of the account (or dataset), as `deleteThreads` weighs it. */
export interface CheckpointThreadInfo {
  threadId: string;
  serviceThreadId: string;
  /** When its newest message (else the thread) was created, in ms; undefined when not given. */
  lastActivity: number | undefined;
}

export class CheckpointThreads {
  readonly #views = new Map<string, ThreadView>();

  constructor(
    readonly client: StudioClient,
    private readonly datasetId: string | undefined,
    /** Threads whose windows stay in memory; the least recently used beyond it are read again. */
    private readonly maxCachedThreads: number,
    /** How records are stored (`sealed-records.ts`): windows open what they read with it. */
    private readonly codec: RecordCodec,
  ) {}

  #window(threadId: string, serviceThreadId: string): ThreadWindow {
    return new ThreadWindow(this.client, serviceThreadId, (record) =>
      this.codec.open(threadId, record),
    );
  }

  #scope() {
    return this.datasetId === undefined ? undefined : { datasetId: this.datasetId };
  }

  #view(threadId: string): ThreadView {
    const view = this.#views.get(threadId) ?? fresh();
    // Map order is use order: re-inserting marks it recently used, the first key is the oldest.
    this.#views.delete(threadId);
    this.#views.set(threadId, view);
    if (this.#views.size > this.maxCachedThreads) {
      const oldest = this.#views.keys().next().value;
      if (oldest !== undefined) this.#views.delete(oldest);
    }
    return view;
  }

  /**
   * Runs `use` on the thread's window (after the reads queued before it); undefined when the
   * LangGraph thread has no service thread. A thread deleted by another process is looked up
   * again (a newer one may hold it now); a cursor the service no longer knows (its message was
   * deleted) starts the window over from the newest messages.
   */
  read<T>(threadId: string, use: (window: ThreadWindow) => Promise<T>): Promise<T | undefined> {
    const view = this.#view(threadId);
    return view.reads.run(async () => {
      for (let restart = 0; ; restart++) {
        view.serviceThreadId ??= await findSessionThread(
          this.client,
          threadId,
          CHECKPOINT_KIND,
          this.#scope(),
        );
        if (view.serviceThreadId === undefined) return undefined;
        view.window ??= this.#window(threadId, view.serviceThreadId);
        const window = view.window;
        const started = window.started;
        try {
          return await use(window);
        } catch (error) {
          if (error instanceof StudioStoredFormatError) {
            // A record of a newer format: the window has read past it, so it is dropped and the
            // next read starts over and meets the record again, never continuing from older state.
            view.window = undefined;
            throw error;
          }
          if (!(error instanceof StudioNotFoundError) || restart >= MAX_READ_RESTARTS) throw error;
          if (!started) this.#forget(threadId, window.serviceThreadId);
          view.window = undefined;
        }
      }
    });
  }

  /** A window over the whole thread, read now and kept by nobody (for `list` and `prune`). */
  async readAll(threadId: string): Promise<ThreadWindow | undefined> {
    return this.read(threadId, async (cached) => {
      const window = this.#window(threadId, cached.serviceThreadId);
      await window.extendDown(() => false);
      return window;
    });
  }

  /** The window this process already has (no call): for a write to learn what it extends. */
  cached(threadId: string): ThreadWindow | undefined {
    return this.#views.get(threadId)?.window;
  }

  /**
   * Appends one record's messages and adds the record to the thread's window. `creates` says
   * when the write may create the service thread (see `ThreadCreation`): a write that continues a
   * conversation whose thread was deleted is refused with `StudioThreadDeletedError`, nothing
   * stored, since recreating the thread would bring back what its user deleted.
   */
  async append(
    threadId: string,
    record: StoredRecord,
    messages: RecordMessage[],
    what: string,
    creates: ThreadCreation,
  ): Promise<RecordEntry | undefined> {
    let serviceThreadId = await this.#ensureThread(threadId, creates !== "never", what);
    let sent = await this.#sendAll(serviceThreadId, messages);
    if (sent.failedAt === 0 && sent.error instanceof StudioNotFoundError) {
      // The thread this process wrote to is gone: deleted since, unless another holds the session.
      this.#forget(threadId, serviceThreadId);
      serviceThreadId = await this.#ensureThread(threadId, creates === "always", what);
      sent = await this.#sendAll(serviceThreadId, messages);
    }
    if (sent.failedAt !== -1) {
      throw writeError(threadId, serviceThreadId, what, sent.failedAt, messages.length, sent.error);
    }
    const view = this.#view(threadId);
    if (view.serviceThreadId !== serviceThreadId) return undefined;
    view.window ??= this.#window(threadId, serviceThreadId);
    return view.window.appended(record, messages, sent.stored);
  }

  /** Sends the messages in order; says which one failed (-1: none) and why. */
  async #sendAll(
    serviceThreadId: string,
    messages: RecordMessage[],
  ): Promise<{ failedAt: number; error?: unknown; stored: ThreadMessage[] }> {
    const stored: ThreadMessage[] = [];
    for (const [i, message] of messages.entries()) {
      try {
        stored.push(
          await retried(
            DEFAULT_WRITE_POLICY,
            () => this.client.createMessage(serviceThreadId, message),
            isAmbiguousWriteFailure,
          ),
        );
      } catch (error) {
        return { failedAt: i, error, stored };
      }
    }
    return { failedAt: -1, stored };
  }

  async #ensureThread(threadId: string, mayCreate: boolean, what: string): Promise<string> {
    const view = this.#view(threadId);
    if (view.serviceThreadId) return view.serviceThreadId;
    // LangGraph saves a step's checkpoint and writes concurrently: one look-up serves them all.
    view.resolving ??= this.#findOrCreate(threadId, view, mayCreate, what).finally(() => {
      view.resolving = undefined;
    });
    try {
      return await view.resolving;
    } catch (error) {
      // The shared look-up was a write's that may not create: this one still may.
      if (!(mayCreate && error instanceof StudioThreadDeletedError)) throw error;
      return this.#ensureThread(threadId, mayCreate, what);
    }
  }

  async #findOrCreate(
    threadId: string,
    view: ThreadView,
    mayCreate: boolean,
    what: string,
  ): Promise<string> {
    const found = await findSessionThread(this.client, threadId, CHECKPOINT_KIND, this.#scope());
    if (found) {
      view.serviceThreadId = found;
      return found;
    }
    if (!mayCreate) throw new StudioThreadDeletedError(threadId, what);
    const created = await createSessionThread(this.client, threadId, CHECKPOINT_KIND, {
      ...this.#scope(),
      title: threadTitle(threadId),
      metadata: { ...THREAD_TAGS },
    });
    view.serviceThreadId = created.threadId;
    return created.threadId;
  }

  /**
   * Deletes the messages of `entries`, in the order given, and forgets them. A message already
   * gone counts as deleted.
   * @throws StudioError saying how many records were deleted before the failure.
   */
  async deleteRecords(
    threadId: string,
    serviceThreadId: string,
    entries: readonly RecordEntry[],
  ): Promise<void> {
    const window = this.cached(threadId);
    for (const [i, entry] of entries.entries()) {
      try {
        for (const messageId of entry.messageIds) {
          await this.client.deleteMessage(serviceThreadId, messageId).catch((error: unknown) => {
            if (!(error instanceof StudioNotFoundError)) throw error;
          });
        }
      } catch (error) {
        throw new StudioError(
          `Could not delete the records of LangGraph thread "${threadId}" in service thread ` +
            `${serviceThreadId}: ${(error as Error)?.message ?? String(error)}. ${i} of ` +
            `${entries.length} records were deleted (the oldest are deleted last, so every ` +
            "checkpoint left reads whole); calling it again deletes the rest.",
          { cause: error },
        );
      }
      if (window?.serviceThreadId === serviceThreadId) window.log.remove(new Set([entry]));
    }
  }

  /** Deletes every service thread holding `threadId`; deleting a missing one is no error. */
  async delete(threadId: string): Promise<void> {
    for (let i = 0; i < MAX_THREADS_PER_SESSION; i++) {
      const serviceThreadId = await findSessionThread(
        this.client,
        threadId,
        CHECKPOINT_KIND,
        this.#scope(),
      );
      if (serviceThreadId === undefined) break;
      await this.#deleteServiceThread(threadId, serviceThreadId);
    }
    this.#views.delete(threadId);
  }

  async #deleteServiceThread(threadId: string, serviceThreadId: string): Promise<void> {
    try {
      await this.client.deleteThread(serviceThreadId);
    } catch (error) {
      if (!(error instanceof StudioNotFoundError)) throw error;
    }
    this.#forget(threadId, serviceThreadId);
  }

  #forget(threadId: string, serviceThreadId: string): void {
    forgetSessionThread(this.client, threadId, CHECKPOINT_KIND, this.#scope(), serviceThreadId);
    const view = this.#views.get(threadId);
    if (view?.serviceThreadId !== serviceThreadId) return;
    view.serviceThreadId = undefined;
    view.window = undefined;
  }

  /**
   * Every checkpoint thread of this saver: of its dataset, or, without one, those a saver without
   * one files (in no dataset or in their session's own: a thread in another app's dataset is not
   * this saver's); with `scope` "account", every one of the account. All threads are listed,
   * 100 per call, and with `withActivity` one more call per checkpoint thread reads its newest
   * message's time.
   */
  async *checkpointThreads(
    withActivity = false,
    scope: "saver" | "account" = "saver",
  ): AsyncGenerator<CheckpointThreadInfo> {
    const own = scope === "saver";
    const query = { order: "asc" as const, limit: PAGE, ...(own ? this.#scope() : undefined) };
    for await (const thread of this.client.iterateThreads(query)) {
      if (own && this.datasetId === undefined && !mayHoldUnscopedSession(thread)) continue;
      const metadata = thread.metadata ?? {};
      const threadId = metadata[SESSION_KEY];
      if (metadata[KIND_KEY] !== CHECKPOINT_KIND || typeof threadId !== "string") continue;
      let lastActivity: number | undefined;
      if (withActivity) {
        lastActivity = (await this.newestMessageTime(thread.id)) ?? timeOf(thread.createdAt);
      }
      yield { threadId, serviceThreadId: thread.id, lastActivity };
    }
  }

  /**
   * When a service thread's newest message was stored (one call); undefined when it has none, or
   * when the thread is gone.
   */
  async newestMessageTime(serviceThreadId: string): Promise<number | undefined> {
    try {
      const newest = await this.client.listMessages(serviceThreadId, { order: "desc", limit: 1 });
      return timeOf(newest.data[0]?.createdAt);
    } catch (error) {
      if (error instanceof StudioNotFoundError) return undefined;
      throw error;
    }
  }

  /** Deletes one service thread of a LangGraph thread (a duplicate, or the only one). */
  async deleteServiceThread(threadId: string, serviceThreadId: string): Promise<void> {
    await this.#deleteServiceThread(threadId, serviceThreadId);
  }
}

/**
 * A service time in ms. Numbers below 10^11 are taken as seconds: servers of this family send
 * Unix seconds, and as milliseconds they would read as 1973, so a TTL would delete everything.
 */
function timeOf(value: string | number | undefined | null): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = typeof value === "number" ? (value < 1e11 ? value * 1000 : value) : Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Says exactly what of a record is stored after message `failedAt` of `count` failed. */
function writeError(
  threadId: string,
  serviceThreadId: string,
  what: string,
  failedAt: number,
  count: number,
  cause: unknown,
): StudioError {
  const failed = count === 1 ? "it" : `part ${failedAt + 1} of ${count}`;
  const state = isAmbiguousWriteFailure(cause) ? "may or may not be stored" : "is not stored";
  const before =
    count === 1
      ? ""
      : failedAt === 0
        ? " No part before it is stored."
        : ` Parts 1 to ${failedAt} are stored.`;
  const later = count > failedAt + 1 ? " Later parts were not sent." : "";
  const reading =
    count === 1
      ? "A record stored twice reads as once, so running the step again is safe."
      : "A record with a part missing is ignored when read, and running the step again is safe.";
  return new StudioError(
    `Could not save ${what} of LangGraph thread "${threadId}" in service thread ` +
      `${serviceThreadId}: ${(cause as Error)?.message ?? String(cause)}. ` +
      `${failed[0]!.toUpperCase()}${failed.slice(1)} ${state}.${before}${later} ${reading}`,
    { cause },
  );
}

function fresh(): ThreadView {
  return {
    serviceThreadId: undefined,
    window: undefined,
    reads: new SerialQueue(),
    resolving: undefined,
  };
}
