/**
 * The service side of the checkpointer: which service thread holds a LangGraph thread, reading
 * its records (only the messages added since the last read), and appending records.
 *
 * A LangGraph `thread_id` is resolved like a history session id (`session-threads.ts`, kind
 * "checkpoint"): the service thread is tagged with it, found by any process with its own client,
 * and created on the first write, titled and tagged so a person in the dashboard can tell it from
 * a conversation.
 *
 * Records are idempotent (a record written twice reads as once, see `checkpoint-log.ts`), so a
 * write whose outcome is unknown (timeout, reset, 5xx) is simply sent again, a bounded number of
 * times; no read-back is needed to avoid duplicates.
 */
import { isAmbiguousWriteFailure } from "../chat_history/confirmed-writes";
import {
  createSessionThread,
  findSessionThread,
  forgetSessionThread,
  KIND_KEY,
  SESSION_KEY,
} from "../chat_history/session-threads";
import type { StudioClient } from "../client";
import { StudioError, StudioNotFoundError } from "../errors";
import { CheckpointLog } from "./checkpoint-log";
import { type RecordMessage, RecordReader } from "./records";

export const CHECKPOINT_KIND = "checkpoint";
/** Thread metadata telling people (and tools) what the thread holds. */
export const THREAD_TAGS = { lc_memory: "langgraph-checkpoints" } as const;
const TITLE_CHARS = 200;
const PAGE = 100;
const MAX_WRITE_ATTEMPTS = 3;
const RETRY_PAUSE_MS = 250;
/** A LangGraph thread may have left duplicate service threads behind (a lost creation race). */
const MAX_THREADS_PER_SESSION = 10;

export function threadTitle(threadId: string): string {
  const title = `LangGraph checkpoints: ${threadId}`;
  return title.length <= TITLE_CHARS ? title : `${title.slice(0, TITLE_CHARS - 1)}…`;
}

/** What this process knows of one LangGraph thread. */
interface ThreadView {
  serviceThreadId: string | undefined;
  /** The last message read: the next read lists only what follows it. */
  cursor: string | undefined;
  log: CheckpointLog;
  reader: RecordReader;
  /** Reads run one after another, so no message is applied twice. */
  reading: Promise<unknown>;
  /** The first write's look-up or creation of the service thread, shared by concurrent writes. */
  resolving: Promise<string> | undefined;
}

export class CheckpointThreads {
  readonly #views = new Map<string, ThreadView>();

  constructor(
    readonly client: StudioClient,
    private readonly datasetId: string | undefined,
    /** Threads whose records stay in memory; the least recently used beyond it are re-read. */
    private readonly maxCachedThreads: number,
  ) {}

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
   * The thread's records, brought up to date (one call when nothing is new; the first read of a
   * thread lists all its messages, 100 per call). Undefined when the thread has no service thread.
   */
  read(threadId: string): Promise<CheckpointLog | undefined> {
    const view = this.#view(threadId);
    const run = view.reading.then(
      () => this.#catchUp(threadId, view),
      () => this.#catchUp(threadId, view),
    );
    view.reading = run.catch(() => undefined);
    return run;
  }

  async #catchUp(threadId: string, view: ThreadView): Promise<CheckpointLog | undefined> {
    view.serviceThreadId ??= await findSessionThread(
      this.client,
      threadId,
      CHECKPOINT_KIND,
      this.#scope(),
    );
    const serviceThreadId = view.serviceThreadId;
    if (serviceThreadId === undefined) return undefined;
    try {
      const query = { order: "asc" as const, limit: PAGE, ...cursor(view.cursor) };
      for await (const message of this.client.iterateMessages(serviceThreadId, query)) {
        const record = view.reader.read(message);
        if (record) view.log.add(record);
        view.cursor = message.id;
      }
    } catch (error) {
      if (!(error instanceof StudioNotFoundError)) throw error;
      // Deleted by another process: forget it, and look again (a newer thread may hold it now).
      this.#forget(threadId, serviceThreadId);
      return this.#catchUp(threadId, this.#view(threadId));
    }
    return view.log;
  }

  /**
   * Appends one record's messages, creating the service thread on the first write. A thread that
   * another process deleted is replaced by a new one, as a first write would create it.
   */
  async append(threadId: string, messages: RecordMessage[], what: string): Promise<void> {
    let serviceThreadId = await this.#ensureThread(threadId);
    let sent = await this.#sendAll(serviceThreadId, messages);
    if (sent.failedAt === 0 && sent.error instanceof StudioNotFoundError) {
      this.#forget(threadId, serviceThreadId);
      serviceThreadId = await this.#ensureThread(threadId);
      sent = await this.#sendAll(serviceThreadId, messages);
    }
    if (sent.failedAt !== -1) {
      throw writeError(threadId, serviceThreadId, what, sent.failedAt, messages.length, sent.error);
    }
  }

  /** Sends the messages in order; says which one failed (-1: none) and why. */
  async #sendAll(
    serviceThreadId: string,
    messages: RecordMessage[],
  ): Promise<{ failedAt: number; error?: unknown }> {
    for (const [i, message] of messages.entries()) {
      try {
        await this.#send(serviceThreadId, message);
      } catch (error) {
        return { failedAt: i, error };
      }
    }
    return { failedAt: -1 };
  }

  async #send(serviceThreadId: string, message: RecordMessage): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.createMessage(serviceThreadId, message);
        return;
      } catch (error) {
        if (attempt >= MAX_WRITE_ATTEMPTS || !isAmbiguousWriteFailure(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS * attempt));
      }
    }
  }

  #ensureThread(threadId: string): Promise<string> {
    const view = this.#view(threadId);
    if (view.serviceThreadId) return Promise.resolve(view.serviceThreadId);
    // LangGraph saves a step's checkpoint and writes concurrently: one look-up serves them all.
    view.resolving ??= this.#findOrCreate(threadId, view).finally(() => {
      view.resolving = undefined;
    });
    return view.resolving;
  }

  async #findOrCreate(threadId: string, view: ThreadView): Promise<string> {
    const found = await findSessionThread(this.client, threadId, CHECKPOINT_KIND, this.#scope());
    if (found) {
      view.serviceThreadId = found;
      return found;
    }
    const created = await createSessionThread(this.client, threadId, CHECKPOINT_KIND, {
      ...this.#scope(),
      title: threadTitle(threadId),
      metadata: { ...THREAD_TAGS },
    });
    view.serviceThreadId = created.threadId;
    return created.threadId;
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
      try {
        await this.client.deleteThread(serviceThreadId);
      } catch (error) {
        if (!(error instanceof StudioNotFoundError)) throw error;
      }
      this.#forget(threadId, serviceThreadId);
    }
    this.#views.delete(threadId);
  }

  #forget(threadId: string, serviceThreadId: string): void {
    forgetSessionThread(this.client, threadId, CHECKPOINT_KIND, this.#scope(), serviceThreadId);
    this.#views.set(threadId, fresh());
  }

  /**
   * Every LangGraph thread id that has a checkpoint thread, for `list()` without a `thread_id`:
   * all threads of the account (or dataset) are listed, 100 per call.
   */
  async *threadIds(): AsyncGenerator<string> {
    const seen = new Set<string>();
    const query = { order: "asc" as const, limit: PAGE, ...this.#scope() };
    for await (const thread of this.client.iterateThreads(query)) {
      const metadata = thread.metadata ?? {};
      const id = metadata[SESSION_KEY];
      if (metadata[KIND_KEY] !== CHECKPOINT_KIND || typeof id !== "string" || seen.has(id)) {
        continue;
      }
      seen.add(id);
      yield id;
    }
  }
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
    `Could not save ${what} of LangGraph thread "${threadId}" in service thread ${serviceThreadId}: ${(cause as Error)?.message ?? String(cause)}. ${failed[0]!.toUpperCase()}${failed.slice(1)} ${state}.${before}${later} ${reading}`,
    { cause },
  );
}

function fresh(): ThreadView {
  return {
    serviceThreadId: undefined,
    cursor: undefined,
    log: new CheckpointLog(),
    reader: new RecordReader(),
    reading: Promise.resolve(),
    resolving: undefined,
  };
}

function cursor(after: string | undefined): { after?: string } {
  return after === undefined ? {} : { after };
}
