/**
 * StudioChatMessageHistory: LangChain chat memory kept as a thread of the service.
 *
 * Nothing happens until the first write (no thread is created by constructing or reading). Writes
 * and reads of one instance run one after another in call order, so concurrent `addMessages`
 * calls land in the order they were made and a read sees every write made before it.
 */
import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import type { BaseMessage } from "@langchain/core/messages";
import type { ListThreadsQuery, Metadata, Thread, ThreadMessage } from "../api-types";
import { METADATA_LIMITS } from "../api-types";
import type { StudioClient } from "../client";
import { resolveClient, type StudioClientFields } from "../client/resolve";
import type { RequestOptions } from "../client/types";
import {
  decodeMessage,
  type EncodedMessage,
  encodeMessage,
  threadMessageClientId,
} from "../converters/thread-messages";
import { StudioNotFoundError, StudioValidationError } from "../errors";
import { validateMetadata } from "../validation";
import {
  appendConfirmed,
  completeBatch,
  createThreadConfirmed,
  findThreadsByKey,
  type MessageState,
  notConfirmedError,
  PartialWrite,
  recentClientIds,
  THREAD_KEY,
  type WritePolicy,
} from "./confirmed-writes";
import { StudioWriteNotConfirmedError } from "./errors";
import {
  checkSessionId,
  findSessionThread,
  forgetSessionThread,
  SESSION_RESERVED_KEYS,
  writeSessionThread,
} from "./session-threads";

export {
  type DatasetConversation,
  type LoadDatasetConversationsInput,
  loadDatasetConversations,
} from "./dataset";
export { StudioWriteNotConfirmedError, type WriteOutcome } from "./errors";
export {
  type CreateSessionThreadInit,
  createSessionThread,
  findSessionThread,
  forgetSessionThread,
  type SessionKind,
  type SessionScope,
  type SessionThread,
} from "./session-threads";

export interface StudioChatMessageHistoryInput extends StudioClientFields {
  /**
   * Your own id for the conversation (a user id, a chat id...): the history finds the thread
   * tagged with it, or creates that thread on the first write. Not together with `threadId`.
   */
  sessionId?: string;
  /** An existing thread. Without it (and without `sessionId`), the first write creates one. */
  threadId?: string;
  /** Title of the thread the history creates. */
  title?: string;
  /** Metadata of the thread the history creates (string values, at most 15 keys, 13 with `sessionId`). */
  metadata?: Metadata;
  /** Dataset the thread the history creates relates to (session look-ups stay within it). */
  datasetId?: string;
  /** Attempts per message when writes fail ambiguously, the first included (default 3). */
  maxWriteAttempts?: number;
  /** Pause before reading a thread back after an ambiguous failure, doubling (default 250 ms). */
  confirmDelayMs?: number;
  /** `getMessages()` returns only the newest `maxMessages` messages (read from the newest end). */
  maxMessages?: number;
}

export type StudioChatMessageHistoryOptions = Omit<StudioChatMessageHistoryInput, "threadId">;

/** Parallel deletes while clearing: enough to be quick, few enough not to flood the service. */
const CLEAR_CONCURRENCY = 4;
const PAGE = 100;
/** Longest pause accepted between a failed write and its read-back. */
const MAX_CONFIRM_DELAY_MS = 60_000;

function isNotFound(error: unknown): boolean {
  return error instanceof StudioNotFoundError;
}

function checkThreadMetadata(metadata: Metadata | undefined, reserved: readonly string[]): void {
  if (metadata === undefined) return;
  validateMetadata("metadata", metadata);
  for (const key of reserved) {
    if (Object.hasOwn(metadata, key)) {
      throw new StudioValidationError(`metadata.${key}`, "is reserved for the history");
    }
  }
  const room = METADATA_LIMITS.maxKeys - reserved.length;
  if (Object.keys(metadata).length > room) {
    throw new StudioValidationError(
      "metadata",
      `has ${Object.keys(metadata).length} keys; a history's thread takes at most ${room} (${reserved.map((k) => `"${k}"`).join(", ")} ${reserved.length === 1 ? "is" : "are"} the history's)`,
    );
  }
}

function positiveInteger(field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new StudioValidationError(field, `must be an integer >= 1 (got ${String(value)})`);
  }
  return value;
}

function optionalString(field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") {
    throw new StudioValidationError(field, `must be a non-empty string (got ${typeof value})`);
  }
  return value;
}

function confirmDelay(value: unknown): number {
  if (value === undefined) return 250;
  if (
    typeof value !== "number" ||
    !Number.isFinite(value) ||
    value < 0 ||
    value > MAX_CONFIRM_DELAY_MS
  ) {
    throw new StudioValidationError(
      "confirmDelayMs",
      `must be a number of milliseconds between 0 and ${MAX_CONFIRM_DELAY_MS} (got ${String(value)})`,
    );
  }
  return value;
}

/** Drops the messages whose client id was already seen (a duplicate that landed late). */
function firstOfEachClientId(messages: readonly ThreadMessage[]): ThreadMessage[] {
  const seen = new Set<string>();
  return messages.filter((message) => {
    const id = threadMessageClientId(message);
    if (id === undefined) return true;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** What the history knows about a message object it was given. */
interface Written {
  clientId: string;
  state: MessageState;
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
  /** Tail of the instance's operation queue; never rejects. */
  #queue: Promise<unknown> = Promise.resolve();
  /** Client id of the last message this instance knows is stored, where checks may stop. */
  #lastClientId: string | undefined;
  /** Client id and state of every message object given to this instance since the last clear. */
  #written = new WeakMap<BaseMessage, Written>();
  /** Key of a thread whose creation could not be confirmed: looked up before creating another. */
  #pendingKey: string | undefined;

  constructor(fields: StudioChatMessageHistoryInput = {}) {
    const { threadId, sessionId, title, metadata, datasetId } = fields;
    // Only these reach lc_kwargs: the key and the client are never part of what serializes.
    super({ threadId, sessionId, title, metadata, datasetId });
    if (threadId !== undefined && sessionId !== undefined) {
      throw new StudioValidationError(
        "sessionId",
        "give either threadId (a thread of the service) or sessionId (your own id, resolved to its thread), not both",
      );
    }
    if (threadId !== undefined && (typeof threadId !== "string" || threadId === "")) {
      throw new StudioValidationError("threadId", "must be a non-empty string");
    }
    if (sessionId !== undefined) checkSessionId("sessionId", sessionId);
    if (title !== undefined && typeof title !== "string") {
      throw new StudioValidationError("title", `must be a string (got ${typeof title})`);
    }
    this.datasetId = optionalString("datasetId", datasetId);
    checkThreadMetadata(metadata, sessionId === undefined ? [THREAD_KEY] : SESSION_RESERVED_KEYS);
    this.threadId = threadId;
    this.sessionId = sessionId;
    this.title = title;
    this.metadata = metadata;
    this.maxMessages =
      fields.maxMessages === undefined
        ? undefined
        : positiveInteger("maxMessages", fields.maxMessages, 1);
    this.#policy = {
      maxAttempts: positiveInteger("maxWriteAttempts", fields.maxWriteAttempts, 3),
      confirmDelayMs: confirmDelay(fields.confirmDelayMs),
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
    options: StudioClientFields = {},
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
    return this.#enqueue(async () => {
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
   * The thread's messages, oldest first (the newest `maxMessages` when set). No message is
   * returned twice: a client id seen twice (a write that landed twice) shows once.
   */
  getMessages(): Promise<BaseMessage[]> {
    return this.#enqueue(async () => {
      const threadId = await this.#resolveThread();
      if (threadId === undefined) return [];
      const messages =
        this.maxMessages === undefined
          ? await this.#readAll(threadId)
          : await this.#readNewest(threadId, this.maxMessages);
      return messages.map(decodeMessage);
    });
  }

  async #readAll(threadId: string): Promise<ThreadMessage[]> {
    const messages: ThreadMessage[] = [];
    for await (const message of this.#client.iterateMessages(threadId, {
      order: "asc",
      limit: PAGE,
    })) {
      messages.push(message);
    }
    return firstOfEachClientId(messages);
  }

  /** The newest `count` messages, read from the newest end: one call when count <= 100. */
  async #readNewest(threadId: string, count: number): Promise<ThreadMessage[]> {
    const newestFirst: ThreadMessage[] = [];
    const seen = new Set<string>();
    const query = { order: "desc" as const, limit: Math.min(count, PAGE) };
    for await (const message of this.#client.iterateMessages(threadId, query)) {
      const id = threadMessageClientId(message);
      if (id !== undefined) {
        // Newest first, so the copy kept is the newest; the oldest of a duplicate pair is what
        // the full read keeps, and both hold the same message.
        if (seen.has(id)) continue;
        seen.add(id);
      }
      newestFirst.push(message);
      if (newestFirst.length >= count) break;
    }
    return newestFirst.reverse();
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
        `must be an array of LangChain messages (got ${messages === null ? "null" : typeof messages})`,
      );
    }
    // Checked now, so a bad batch is refused even if earlier writes are still queued.
    messages.forEach((message, index) => {
      encodeMessage(message, "check", `messages[${index}]`);
    });
    if (messages.length === 0) return;
    await this.#enqueue(() => this.#write(messages));
  }

  /**
   * Empties the conversation by deleting each of its messages. The thread itself (its id, title
   * and metadata) stays, so `threadId` is unchanged and the next write appends to the same thread.
   * Use `deleteThread()` to remove the thread itself.
   */
  override clear(): Promise<void> {
    return this.#enqueue(async () => {
      const threadId = await this.#resolveThread();
      if (threadId === undefined) return;
      const ids: string[] = [];
      // All ids first: deleting while paging could pull the `after` cursor out from under the list.
      for await (const message of this.#client.iterateMessages(threadId, {
        order: "asc",
        limit: PAGE,
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
      this.#written = new WeakMap();
    });
  }

  /**
   * Deletes the thread and forgets its id (`threadId` becomes undefined); the next write starts a
   * new thread (for a `sessionId`, a new thread of that session). Deleting a thread that is
   * already gone is not an error.
   */
  deleteThread(): Promise<void> {
    return this.#enqueue(async () => {
      const threadId = await this.#resolveThread();
      if (threadId === undefined) return;
      try {
        await this.#client.deleteThread(threadId);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      this.#forgetThread(threadId);
      this.#written = new WeakMap();
    });
  }

  #forgetThread(threadId: string): void {
    if (this.sessionId !== undefined) {
      forgetSessionThread(this.#client, this.sessionId, "history", this.#scope(), threadId);
    }
    this.threadId = undefined;
    this.#lastClientId = undefined;
  }

  #scope(): { datasetId?: string } {
    return this.datasetId === undefined ? {} : { datasetId: this.datasetId };
  }

  /**
   * The thread's id if it exists: the known one, the session's (looked up), or a thread whose
   * creation could not be confirmed and has since turned up. Undefined when there is none yet.
   */
  async #resolveThread(lookUpSession = true): Promise<string | undefined> {
    if (this.threadId !== undefined) return this.threadId;
    if (this.sessionId !== undefined && lookUpSession) {
      this.threadId = await findSessionThread(
        this.#client,
        this.sessionId,
        "history",
        this.#scope(),
      );
    }
    if (this.threadId === undefined && this.#pendingKey !== undefined) {
      const [found] = await findThreadsByKey(this.#client, this.#pendingKey, this.datasetId);
      if (found) this.threadId = found.id;
    }
    if (this.threadId !== undefined) this.#pendingKey = undefined;
    return this.threadId;
  }

  async #write(messages: readonly BaseMessage[]): Promise<void> {
    // Which messages need writing: objects already stored by this instance are skipped, objects
    // written before with an unknown outcome keep their client id and are checked first.
    const alreadyStored: number[] = [];
    const batch: EncodedMessage[] = [];
    const positions: number[] = [];
    const entries: Written[] = [];
    const inBatch = new Set<BaseMessage>();
    let settle = false;
    messages.forEach((message, index) => {
      const known = this.#written.get(message);
      if (known?.state === "stored" || inBatch.has(message)) {
        alreadyStored.push(index);
        return;
      }
      inBatch.add(message);
      const entry = known ?? { clientId: crypto.randomUUID(), state: "notStored" };
      if (entry.state === "unknown") settle = true;
      this.#written.set(message, entry);
      entries.push(entry);
      positions.push(index);
      batch.push({
        clientId: entry.clientId,
        input: encodeMessage(message, entry.clientId, `messages[${index}]`),
      });
    });
    if (batch.length === 0) return;

    let threadId: string | undefined;
    try {
      // A session's first write looks the session up itself (writeSessionThread), once.
      threadId = await this.#resolveThread(settle);
    } catch (error) {
      throw notConfirmedError(
        new PartialWrite({
          at: 0,
          state: "notStored",
          later: "notStored",
          attempts: 1,
          what: "find the history's thread",
          cause: error,
          threadId: undefined,
        }),
        positions,
        messages.length,
        alreadyStored,
      );
    }

    let toWrite = batch.map((_, i) => i);
    if (settle && threadId !== undefined) {
      // Some of these were written before without an answer: keep those that did land.
      let present: Set<string>;
      try {
        present = await recentClientIds(this.#client, threadId, undefined);
      } catch (error) {
        // Nothing was sent: what was unknown stays unknown, the rest is not stored.
        const unknown = positions.filter((_, i) => entries[i]!.state === "unknown");
        throw new StudioWriteNotConfirmedError({
          threadId,
          stored: alreadyStored,
          unknown,
          notStored: positions.filter((p) => !unknown.includes(p)),
          totalCount: messages.length,
          attempts: 1,
          what: `check which messages are already in thread ${threadId}`,
          cause: error,
        });
      }
      toWrite = toWrite.filter((i) => {
        if (!present.has(batch[i]!.clientId)) return true;
        entries[i]!.state = "stored";
        alreadyStored.push(positions[i]!);
        return false;
      });
    }
    const sending = toWrite.map((i) => batch[i]!);
    if (sending.length === 0) return;
    try {
      if (threadId === undefined) await this.#writeNew(sending);
      else await appendConfirmed(this.#client, this.#policy, threadId, sending, this.#lastClientId);
    } catch (error) {
      if (!(error instanceof PartialWrite)) throw error;
      const states = error.states(sending.length);
      toWrite.forEach((i, n) => {
        entries[i]!.state = states[n]!;
        if (states[n] === "stored") this.#lastClientId = batch[i]!.clientId;
      });
      if (error.threadId !== undefined) this.threadId = error.threadId;
      if (this.sessionId !== undefined && error.cause instanceof StudioNotFoundError && threadId) {
        // The session's thread was deleted elsewhere: the next write looks the session up again.
        this.#forgetThread(threadId);
      }
      throw notConfirmedError(
        error,
        toWrite.map((i) => positions[i]!),
        messages.length,
        alreadyStored,
      );
    }
    for (const i of toWrite) entries[i]!.state = "stored";
    this.#lastClientId = sending.at(-1)!.clientId;
  }

  /** Creates the thread (the session's, or a new one) with `batch` as its first messages. */
  async #writeNew(batch: readonly EncodedMessage[]): Promise<void> {
    const key = this.#pendingKey ?? crypto.randomUUID();
    try {
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
            threadKey: key,
          },
        );
        this.threadId = threadId;
      } else {
        const metadata: Record<string, string> = { ...this.metadata, [THREAD_KEY]: key };
        const { thread, foundAfterFailure } = await createThreadConfirmed(
          this.#client,
          this.#policy,
          {
            messages: batch.map((message) => message.input),
            metadata,
            ...(this.title === undefined ? {} : { title: this.title }),
            ...(this.datasetId === undefined ? {} : { datasetId: this.datasetId }),
          },
        );
        this.threadId = thread.id;
        if (foundAfterFailure) await completeBatch(this.#client, this.#policy, thread.id, batch);
      }
      this.#pendingKey = undefined;
    } catch (error) {
      // A creation that may have happened: the next call looks for this key before creating.
      if (
        error instanceof PartialWrite &&
        error.threadId === undefined &&
        error.state === "unknown"
      ) {
        this.#pendingKey = key;
      }
      throw error;
    }
  }
}
