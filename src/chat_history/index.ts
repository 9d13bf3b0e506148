/** What `listThreads` filters and pages by. */
const LIST_QUERY_KEYS = {
  owner: "listThreads query",
  known: ["datasetId", "limit", "order", "after", "before"],
};

/**
 * StudioChatMessageHistory: LangChain chat memory kept as a thread of the service.
 *
 * Nothing happens until the first write (no thread is created by constructing or reading). Writes
 * and reads of one instance run one after another in call order, so concurrent `addMessages`
 * calls land in the order they were made and a read sees every write made before it.
 *
 * With a `sessionId`, every operation asks the process's session directory for the session's
 * thread (no call once found), so a thread found deleted by one history (another process started
 * the session over) is looked up again by all of them.
 */
import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import type { BaseMessage } from "@langchain/core/messages";
import type { ListThreadsQuery, Metadata, Thread } from "../api-types";
import type { StudioClient } from "../client";
import { CLIENT_OPTION_NAMES, type RequestOptions } from "../client/options";
import { resolveClient, type StudioClientFields } from "../client/resolve";
import { decodeMessage, type EncodedMessage, encodeMessage } from "../converters/thread-messages";
import { StudioNotFoundError, StudioValidationError } from "../errors";
import type { WritePolicy } from "../threads/backoff";
import { callClientIds, keepCallsTogether } from "../threads/calls";
import { clearThread } from "../threads/clear-thread";
import {
  appendConfirmed,
  findThreadsByKey,
  notConfirmedError,
  PartialWrite,
  recentClientIds,
} from "../threads/confirmed-writes";
import { SerialQueue } from "../threads/serial-queue";
import { resolveSessionClient } from "../threads/service-identity";
import {
  findSessionThread,
  forgetSessionThread,
  writeSessionThread,
} from "../threads/session-threads";
import { type KnownWrite, planWrite, type WriteBatch } from "../threads/write-batch";
import { refuseUnknownKeys } from "../validation";
import {
  historySettings,
  type StudioChatMessageHistoryInput,
  type StudioChatMessageHistoryOptions,
} from "./fields";
import { createHistoryThread, creationUnknown, readAll, readNewest } from "./thread-io";
import { toolSafeWindow } from "./window";

export { StudioWriteNotConfirmedError, type WriteOutcome } from "../threads/errors";
export type { StudioChatMessageHistoryInput, StudioChatMessageHistoryOptions } from "./fields";

function isNotFound(error: unknown): boolean {
  return error instanceof StudioNotFoundError;
}

export class StudioChatMessageHistory extends BaseListChatMessageHistory {
  override lc_namespace = ["langchain", "stores", "message", "studio"];

  static override lc_name(): string {
    return "StudioChatMessageHistory";
  }

  override get lc_secrets(): Record<string, string> {
    return { apiKey: "STUDIO_API_KEY" };
  }

  /** The thread's id: undefined until it is known (found for the session, or created). */
  threadId: string | undefined;

  readonly sessionId: string | undefined;
  readonly title: string | undefined;
  readonly metadata: Metadata | undefined;
  readonly datasetId: string | undefined;
  readonly maxMessages: number | undefined;

  readonly #client: StudioClient;
  readonly #policy: WritePolicy;
  /** The instance's operations, in call order. */
  readonly #queue = new SerialQueue();
  /** The last message this instance knows is stored, and where: read-backs stop there. */
  #anchor: { threadId: string; clientId: string } | undefined;
  /** Client id and state of every message object given to this instance since the last clear. */
  #written = new WeakMap<BaseMessage, KnownWrite>();
  /** Key of a thread whose creation could not be confirmed: looked up before creating another. */
  #pendingKey: string | undefined;

  constructor(fields: StudioChatMessageHistoryInput = {}) {
    const { threadId, sessionId, title, metadata, datasetId } = fields;
    // Only these reach lc_kwargs: the key and the client are never part of what serializes.
    super({ threadId, sessionId, title, metadata, datasetId });
    const settings = historySettings(fields);
    this.threadId = settings.threadId;
    this.sessionId = settings.sessionId;
    this.title = settings.title;
    this.metadata = settings.metadata;
    this.datasetId = settings.datasetId;
    this.maxMessages = settings.maxMessages;
    this.#policy = settings.policy;
    this.#client = resolveSessionClient(fields);
  }

  /**
   * Opens an existing thread, checking that it exists.
   * @throws StudioNotFoundError naming the id when there is no such thread.
   */
  static async fromThreadId(
    threadId: string,
    options: StudioChatMessageHistoryOptions = {},
  ): Promise<StudioChatMessageHistory> {
    const history = new StudioChatMessageHistory({ ...options, threadId });
    try {
      await history.#client.getThread(threadId);
    } catch (error) {
      if (!(error instanceof StudioNotFoundError)) throw error;
      throw new StudioNotFoundError({
        status: error.status,
        method: error.method,
        path: error.path,
        serverMessage: `there is no thread "${threadId}"`,
        code: error.code,
        requestId: error.requestId,
        headers: error.headers,
        body: error.body,
      });
    }
    return history;
  }

  /**
   * Every thread of the account (or of `query.datasetId`), all pages, oldest first unless
   * `query.order` says otherwise.
   */
  static async *listThreads(
    query: ListThreadsQuery = {},
    options: StudioClientFields = {},
    requestOptions?: RequestOptions,
  ): AsyncGenerator<Thread> {
    refuseUnknownKeys(query, LIST_QUERY_KEYS);
    refuseUnknownKeys(options, { owner: "client", known: [...CLIENT_OPTION_NAMES, "client"] });
    const client = resolveClient(options);
    yield* client.iterateThreads({ order: "asc", limit: 100, ...query }, requestOptions);
  }

  /** The thread's id, creating an empty thread first if there is none yet. */
  getThreadId(): Promise<string> {
    return this.#queue.run(async () => {
      const known = await this.#resolveThread();
      if (known !== undefined) return known;
      try {
        await this.#writeNew([]);
      } catch (error) {
        throw error instanceof PartialWrite ? notConfirmedError(error, [], 0) : error;
      }
      return this.threadId!;
    });
  }

  /**
   * The thread's messages, oldest first. With `maxMessages`, at most the newest `maxMessages`,
   * starting on a human message so that no tool result comes without its call (`window.ts`). No
   * message is returned twice: a client id seen twice (a write that landed twice) shows once. The
   * messages of one `addMessages` call come back together, even when another process's writes
   * landed between them (see `calls.ts`).
   */
  getMessages(): Promise<BaseMessage[]> {
    return this.#queue.run(async () => {
      const messages = await this.#onThread(
        (threadId) =>
          this.maxMessages === undefined
            ? readAll(this.#client, threadId)
            : readNewest(this.#client, threadId, this.maxMessages),
        [],
      );
      const decoded = keepCallsTogether(messages).map(decodeMessage);
      return this.maxMessages === undefined ? decoded : toolSafeWindow(decoded);
    });
  }

  addMessage(message: BaseMessage): Promise<void> {
    return this.addMessages([message]);
  }

  /**
   * Appends messages in order, each stored exactly once. The whole batch is validated before
   * anything is written; each message is confirmed before the next one is sent. Message objects
   * this history already stored are not stored again, so calling again with the same objects
   * after an error writes only what is missing.
   * @throws StudioValidationError (field `messages` or `messages[i]`) before anything is sent.
   * @throws StudioWriteNotConfirmedError saying which messages are stored, which are not and which
   * are unknown, and in which thread, when the write did not complete.
   */
  override async addMessages(messages: BaseMessage[]): Promise<void> {
    if (!Array.isArray(messages)) {
      throw new StudioValidationError(
        "messages",
        "must be an array of LangChain messages (got " +
          `${messages === null ? "null" : typeof messages})`,
      );
    }
    // Checked now, so a bad batch is refused even if earlier writes are still queued.
    messages.forEach((message, index) => {
      encodeMessage(message, "check", `messages[${index}]`);
    });
    if (messages.length === 0) return;
    await this.#queue.run(() => this.#write(messages));
  }

  /**
   * Empties the conversation by deleting each of its messages. The thread itself (its id, title
   * and metadata) stays, so `threadId` is unchanged and the next write appends to the same thread.
   * Use `deleteThread()` to remove the thread itself. On a service that cannot delete messages,
   * the thread is deleted instead (with a warning, once): the next write starts a new thread.
   */
  override clear(): Promise<void> {
    return this.#queue.run(async () => {
      const cleared = await this.#onThread(
        async (threadId) => ({
          threadId,
          outcome: await clearThread(this.#client, threadId, this.sessionId),
        }),
        undefined,
      );
      if (cleared !== undefined && cleared.outcome !== "emptied") {
        this.#forgetThread(cleared.threadId);
      }
      this.#anchor = undefined;
      this.#written = new WeakMap();
    });
  }

  /**
   * Deletes the thread and forgets its id (`threadId` becomes undefined); the next write starts a
   * new thread (for a `sessionId`, a new thread of that session). Deleting a thread that is
   * already gone is not an error; for a `sessionId`, a newer thread of the session is then deleted.
   */
  deleteThread(): Promise<void> {
    return this.#queue.run(async () => {
      const deleted = await this.#onThread(async (threadId) => {
        try {
          await this.#client.deleteThread(threadId);
        } catch (error) {
          // A session's thread found gone: `#onThread` looks for a newer one to delete.
          if (!isNotFound(error) || this.sessionId !== undefined) throw error;
        }
        return threadId;
      }, undefined);
      if (deleted !== undefined) this.#forgetThread(deleted);
      this.#written = new WeakMap();
    });
  }

  /**
   * Runs `operation` on the thread (`none` when there is none yet). A session's thread found
   * deleted (another process started the session over) is forgotten by every history of the
   * process, and the session looked up again: the operation then runs on its thread as it is now.
   */
  async #onThread<T>(operation: (threadId: string) => Promise<T>, none: T): Promise<T> {
    const threadId = await this.#resolveThread();
    if (threadId === undefined) return none;
    try {
      return await operation(threadId);
    } catch (error) {
      if (this.sessionId === undefined || !isNotFound(error)) throw error;
      this.#forgetThread(threadId);
    }
    const current = await this.#resolveThread();
    return current === undefined ? none : operation(current);
  }

  #forgetThread(threadId: string): void {
    if (this.sessionId !== undefined) {
      forgetSessionThread(this.#client, this.sessionId, "history", this.#scope(), threadId);
    }
    if (this.threadId === threadId) this.threadId = undefined;
    if (this.#anchor?.threadId === threadId) this.#anchor = undefined;
  }

  #scope(): { datasetId?: string } {
    return this.datasetId === undefined ? {} : { datasetId: this.datasetId };
  }

  /**
   * The thread's id if it exists: the session's (as the process last found it, else looked up),
   * the known one, or a thread whose creation could not be confirmed and has since turned up.
   * Undefined when there is none yet.
   */
  async #resolveThread(): Promise<string | undefined> {
    if (this.sessionId !== undefined) {
      this.threadId = await findSessionThread(
        this.#client,
        this.sessionId,
        "history",
        this.#scope(),
      );
      return this.threadId;
    }
    if (this.threadId === undefined && this.#pendingKey !== undefined) {
      const [found] = await findThreadsByKey(this.#client, this.#pendingKey, this.datasetId);
      if (found) this.threadId = found.id;
    }
    if (this.threadId !== undefined) this.#pendingKey = undefined;
    return this.threadId;
  }

  async #write(messages: readonly BaseMessage[]): Promise<void> {
    const batch = planWrite(messages, this.#written, callClientIds(messages.length), (m, id, i) =>
      encodeMessage(m, id, `messages[${i}]`),
    );
    if (batch.needsCheck) await this.#settle(batch);
    if (batch.entries.length === 0) return;
    let threadId: string;
    try {
      threadId = await this.#send(batch.sending);
    } catch (error) {
      if (!(error instanceof PartialWrite)) throw error;
      // A session's thread is only ever the one its look-up gives (the race rule): a thread named
      // by a failed write may be a younger one that lost the race.
      if (this.sessionId === undefined && error.threadId !== undefined) {
        this.threadId = error.threadId;
      }
      throw batch.failed(error);
    }
    this.threadId = threadId;
    this.#anchor = { threadId, clientId: batch.succeeded()! };
  }

  /**
   * Messages of the batch written before without an answer: those the thread holds are stored and
   * not sent again.
   * @throws StudioWriteNotConfirmedError when the thread cannot be read (nothing is sent).
   */
  async #settle(batch: WriteBatch): Promise<void> {
    let present: Set<string>;
    try {
      present = await this.#onThread(
        (threadId) => recentClientIds(this.#client, threadId, undefined),
        new Set<string>(),
      );
    } catch (error) {
      throw batch.uncheckedError(this.threadId, error);
    }
    batch.settle(present);
  }

  /**
   * Sends `batch` to the history's thread: the session's (which looks it up, or creates it), the
   * known one, or a new one. Resolves to the thread written to.
   * @throws PartialWrite (positions in `batch`).
   */
  async #send(batch: readonly EncodedMessage[]): Promise<string> {
    if (this.sessionId !== undefined) return this.#writeNew(batch);
    let threadId: string | undefined;
    try {
      threadId = await this.#resolveThread();
    } catch (error) {
      throw new PartialWrite({
        at: 0,
        state: "notStored",
        later: "notStored",
        attempts: 1,
        what: "find the history's thread",
        cause: error,
        threadId: undefined,
      });
    }
    if (threadId === undefined) return this.#writeNew(batch);
    const anchor = this.#anchor?.threadId === threadId ? this.#anchor.clientId : undefined;
    await appendConfirmed(this.#client, this.#policy, threadId, batch, anchor);
    return threadId;
  }

  /**
   * Writes `batch` to the session's thread (found, or created with it), or creates the history's
   * thread with it. Resolves to the thread written to.
   */
  async #writeNew(batch: readonly EncodedMessage[]): Promise<string> {
    if (this.sessionId !== undefined) {
      const { threadId } = await writeSessionThread(
        this.#client,
        this.sessionId,
        "history",
        batch,
        {
          ...this.#scope(),
          title: this.title,
          metadata: this.metadata,
          policy: this.#policy,
          anchor: this.#anchor,
        },
      );
      this.threadId = threadId;
      return threadId;
    }
    const key = this.#pendingKey ?? crypto.randomUUID();
    try {
      this.threadId = await createHistoryThread(this.#client, this.#policy, batch, {
        key,
        title: this.title,
        metadata: this.metadata,
        datasetId: this.datasetId,
      });
      this.#pendingKey = undefined;
      return this.threadId;
    } catch (error) {
      // A creation that may have happened: the next call looks for this key before creating.
      if (creationUnknown(error)) this.#pendingKey = key;
      throw error;
    }
  }
}
