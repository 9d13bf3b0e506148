/**
 * StudioChatMessageHistory: LangChain chat memory kept as a thread of the service.
 *
 * Nothing happens until the first write (no thread is created by constructing or reading). Writes
 * and reads of one instance run one after another in call order, so concurrent `addMessages`
 * calls land in the order they were made and a read sees every write made before it.
 */
import { randomUUID } from "node:crypto";
import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import type { BaseMessage } from "@langchain/core/messages";
import type { ListThreadsQuery, Metadata, Thread } from "../api-types";
import { METADATA_LIMITS } from "../api-types";
import type { StudioClient } from "../client";
import type { RequestOptions, StudioClientOptions } from "../client/types";
import { decodeMessage, type EncodedMessage, encodeMessages } from "../converters/thread-messages";
import { StudioNotFoundError, StudioValidationError } from "../errors";
import { validateMetadata } from "../validation";
import { resolveClient } from "../client/resolve";
import {
  appendConfirmed,
  completeBatch,
  createThreadConfirmed,
  THREAD_KEY,
  type WritePolicy,
} from "./confirmed-writes";

export {
  type DatasetConversation,
  type LoadDatasetConversationsInput,
  loadDatasetConversations,
} from "./dataset";
export { StudioWriteNotConfirmedError } from "./errors";

export interface StudioChatMessageHistoryInput extends StudioClientOptions {
  /** An existing thread. Without it, the first write creates one. */
  threadId?: string;
  /** Title of the thread the history creates. */
  title?: string;
  /** Metadata of the thread the history creates (string values, at most 15 keys). */
  metadata?: Metadata;
  /** Dataset the thread the history creates relates to. */
  datasetId?: string;
  /** A client to share; instead of it, pass the client options (`apiKey`, `baseUrl`...). */
  client?: StudioClient;
  /** Attempts per message when writes fail ambiguously, the first included (default 3). */
  maxWriteAttempts?: number;
  /** Pause before reading a thread back after an ambiguous failure, doubling (default 250 ms). */
  confirmDelayMs?: number;
}

export type StudioChatMessageHistoryOptions = Omit<StudioChatMessageHistoryInput, "threadId">;

/** Parallel deletes while clearing: enough to be quick, few enough not to flood the service. */
const CLEAR_CONCURRENCY = 4;

function isNotFound(error: unknown): boolean {
  return error instanceof StudioNotFoundError;
}

function checkThreadMetadata(metadata: Metadata | undefined): void {
  if (metadata === undefined) return;
  validateMetadata("metadata", metadata);
  if (THREAD_KEY in metadata) {
    throw new StudioValidationError(`metadata.${THREAD_KEY}`, "is reserved for the history");
  }
  if (Object.keys(metadata).length >= METADATA_LIMITS.maxKeys) {
    throw new StudioValidationError(
      "metadata",
      `has ${Object.keys(metadata).length} keys; a history's thread takes at most ${METADATA_LIMITS.maxKeys - 1} (one is used for "${THREAD_KEY}")`,
    );
  }
}

function positiveInteger(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new StudioValidationError(field, `must be an integer >= 1 (got ${value})`);
  }
  return value;
}

export class StudioChatMessageHistory extends BaseListChatMessageHistory {
  override lc_namespace = ["langchain", "stores", "message", "studio"];

  static override lc_name(): string {
    return "StudioChatMessageHistory";
  }

  override get lc_secrets(): Record<string, string> {
    return { apiKey: "STUDIO_API_KEY" };
  }

  /** The thread's id: undefined until the first write (or `getThreadId()`) creates the thread. */
  threadId: string | undefined;

  readonly title: string | undefined;
  readonly metadata: Metadata | undefined;
  readonly datasetId: string | undefined;

  readonly #client: StudioClient;
  readonly #policy: WritePolicy;
  /** Tail of the instance's operation queue; never rejects. */
  #queue: Promise<unknown> = Promise.resolve();
  /** Client id of the last message this instance knows is stored, where checks may stop. */
  #lastClientId: string | undefined;

  constructor(fields: StudioChatMessageHistoryInput = {}) {
    const { threadId, title, metadata, datasetId } = fields;
    // Only these reach lc_kwargs: the key and the client are never part of what serializes.
    super({ threadId, title, metadata, datasetId });
    if (threadId !== undefined && (typeof threadId !== "string" || threadId === "")) {
      throw new StudioValidationError("threadId", "must be a non-empty string");
    }
    checkThreadMetadata(metadata);
    this.threadId = threadId;
    this.title = title;
    this.metadata = metadata;
    this.datasetId = datasetId;
    this.#policy = {
      maxAttempts: positiveInteger("maxWriteAttempts", fields.maxWriteAttempts, 3),
      confirmDelayMs: fields.confirmDelayMs ?? 250,
    };
    this.#client = resolveClient(fields);
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
    options: StudioClientOptions & { client?: StudioClient } = {},
    requestOptions?: RequestOptions,
  ): AsyncGenerator<Thread> {
    const client = resolveClient(options);
    yield* client.iterateThreads({ order: "asc", limit: 100, ...query }, requestOptions);
  }

  /** Runs `task` after every operation queued before it, whatever their outcome. */
  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** The thread's id, creating an empty thread first if there is none yet. */
  getThreadId(): Promise<string> {
    return this.#enqueue(async () => this.threadId ?? (await this.#createThread([])));
  }

  /** All messages of the thread, oldest first. No request is made before the thread exists. */
  getMessages(): Promise<BaseMessage[]> {
    return this.#enqueue(async () => {
      const threadId = this.threadId;
      if (threadId === undefined) return [];
      const messages: BaseMessage[] = [];
      for await (const message of this.#client.iterateMessages(threadId, {
        order: "asc",
        limit: 100,
      })) {
        messages.push(decodeMessage(message));
      }
      return messages;
    });
  }

  addMessage(message: BaseMessage): Promise<void> {
    return this.addMessages([message]);
  }

  /**
   * Appends messages in order. The whole batch is validated before anything is written; each
   * message is confirmed before the next one is sent.
   * @throws StudioValidationError (field `messages[i]`) when a message cannot be stored losslessly.
   * @throws StudioWriteNotConfirmedError when an ambiguous failure could not be settled.
   */
  override async addMessages(messages: BaseMessage[]): Promise<void> {
    const batch = encodeMessages(messages);
    if (batch.length === 0) return;
    await this.#enqueue(() => this.#write(batch));
  }

  /**
   * Empties the conversation by deleting each of its messages. The thread itself (its id, title
   * and metadata) stays, so `threadId` is unchanged and the next write appends to the same thread.
   * Use `deleteThread()` to remove the thread itself.
   */
  override clear(): Promise<void> {
    return this.#enqueue(async () => {
      const threadId = this.threadId;
      if (threadId === undefined) return;
      const ids: string[] = [];
      // All ids first: deleting while paging could pull the `after` cursor out from under the list.
      for await (const message of this.#client.iterateMessages(threadId, {
        order: "asc",
        limit: 100,
      })) {
        ids.push(message.id);
      }
      let next = 0;
      const worker = async () => {
        while (next < ids.length) {
          const id = ids[next++]!;
          try {
            await this.#client.deleteMessage(threadId, id);
          } catch (error) {
            if (!isNotFound(error)) throw error;
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(CLEAR_CONCURRENCY, ids.length) }, worker));
      this.#lastClientId = undefined;
    });
  }

  /**
   * Deletes the thread and forgets its id (`threadId` becomes undefined); the next write starts a
   * new thread. Deleting a thread that is already gone is not an error.
   */
  deleteThread(): Promise<void> {
    return this.#enqueue(async () => {
      const threadId = this.threadId;
      if (threadId === undefined) return;
      try {
        await this.#client.deleteThread(threadId);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      this.threadId = undefined;
      this.#lastClientId = undefined;
    });
  }

  async #write(batch: EncodedMessage[]): Promise<void> {
    const threadId = this.threadId;
    if (threadId === undefined) {
      await this.#createThread(batch);
    } else {
      await appendConfirmed(this.#client, this.#policy, threadId, batch, this.#lastClientId);
    }
    this.#lastClientId = batch.at(-1)?.clientId ?? this.#lastClientId;
  }

  /** Creates the thread carrying `batch` as its first messages; sets and returns its id. */
  async #createThread(batch: EncodedMessage[]): Promise<string> {
    const metadata: Record<string, string> = { ...this.metadata, [THREAD_KEY]: randomUUID() };
    const { thread, foundAfterFailure } = await createThreadConfirmed(this.#client, this.#policy, {
      messages: batch.map((message) => message.input),
      metadata,
      ...(this.title === undefined ? {} : { title: this.title }),
      ...(this.datasetId === undefined ? {} : { datasetId: this.datasetId }),
    });
    this.threadId = thread.id;
    if (foundAfterFailure) await completeBatch(this.#client, this.#policy, thread.id, batch);
    return thread.id;
  }
}
