/**
 * StudioClient: one typed method per call of the service interface (and of the calls the notes
 * add). Methods only shape requests; the request path (headers, retries, timeouts, validation,
 * streaming) lives in request.ts, the per-call facts in calls.ts.
 */
import {
  type Assistant,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  type CreateAssistantRequest,
  type CreateMessageRequest,
  type CreateThreadRequest,
  type DatasetThreadMessages,
  type Deleted,
  type ListDatasetThreadsMessagesRequest,
  type ListDatasetThreadsMessagesResponse,
  type ListPublicModelsResponse,
  type ListQuery,
  type ListResponse,
  type ListThreadsQuery,
  type Model,
  PATHS,
  type PageRequest,
  type TextCompletion,
  type TextCompletionChunk,
  type TextCompletionRequest,
  type Thread,
  type ThreadMessage,
} from "../api-types";
import { CALLS, listQueryString } from "./calls";
import { resolveConfig } from "./config";
import { checkCompletion, checkId, checkListQuery } from "./inputs";
import type { RequestOptions, StudioClientOptions } from "./options";
import {
  checkPageSize,
  type PagedCall,
  pageRequest,
  paginateList,
  paginateTokens,
} from "./pagination";
import { Requester } from "./request";
import { chatChunkReader, textChunkReader } from "./stream";

export type { FetchLike, RequestOptions, StudioClientOptions } from "./options";
export type { RetryClass } from "./retry";
export { abortReason, isRetryableStatus, parseRetryAfter, retryDelay, shouldRetry } from "./retry";
export {
  DONE,
  parsePayload,
  SKIP,
  SSEDecoder,
  type SSEEvent,
  SSELineParser,
  sseEvents,
} from "./sse";
export { VERSION } from "./version";

const DEFAULT_PAGE_SIZE = 20;

/** The listings walked page by page, named in the errors a broken paging raises. */
const PAGED = {
  iteratePublicModels: {
    name: "iteratePublicModels",
    method: "POST",
    path: PATHS.listPublicModels,
  },
  iterateThreads: { name: "iterateThreads", method: "GET", path: PATHS.threads },
  iterateAssistants: { name: "iterateAssistants", method: "GET", path: PATHS.assistants },
  iterateDatasetThreadsMessages: {
    name: "iterateDatasetThreadsMessages",
    method: "POST",
    path: PATHS.listDatasetThreadsMessages,
  },
} as const satisfies Record<string, PagedCall>;

/** The request body with `stream` forced to the value the method implies. */
function withStream<B extends { stream?: boolean }>(body: B, stream: boolean): B {
  return body.stream === stream || (!stream && body.stream === undefined)
    ? body
    : { ...body, stream };
}

export class StudioClient {
  readonly #requester: Requester;

  constructor(options: StudioClientOptions = {}) {
    this.#requester = new Requester(resolveConfig(options));
  }

  // --- models (no key) ---

  /** One page of public models. Needs `baseUrl` but no key; all four page fields are sent. */
  async listPublicModels(
    params?: { page?: Partial<PageRequest> },
    options?: RequestOptions,
  ): Promise<ListPublicModelsResponse> {
    checkPageSize("page.limit", params?.page?.limit);
    const body = { page: pageRequest(params?.page, DEFAULT_PAGE_SIZE) };
    return this.#requester.call(CALLS.listPublicModels, PATHS.listPublicModels, body, options);
  }

  /** Every public model, following page tokens. */
  async *iteratePublicModels(
    params?: { limit?: number },
    options?: RequestOptions,
  ): AsyncIterable<Model> {
    checkPageSize("limit", params?.limit);
    const limit = params?.limit ?? DEFAULT_PAGE_SIZE;
    yield* paginateTokens(async (nextPageToken) => {
      const res = await this.listPublicModels({ page: { limit, nextPageToken } }, options);
      return { items: res.models, page: res.page };
    }, PAGED.iteratePublicModels);
  }

  // --- completions (proxyUrl, Authorization) ---

  async chatCompletion(
    body: ChatCompletionRequest,
    options?: RequestOptions,
  ): Promise<ChatCompletion> {
    checkCompletion(body, "messages", body?.messages);
    return this.#requester.call(
      CALLS.chatCompletion,
      PATHS.chatCompletions,
      withStream(body, false),
      options,
    );
  }

  /** Lazy: the request starts on the first `next()`; breaking out of the loop cancels it. */
  streamChatCompletion(
    body: ChatCompletionRequest,
    options?: RequestOptions,
  ): AsyncIterable<ChatCompletionChunk> {
    // The check runs inside the generator, on the first `next()`, so the call stays lazy.
    return this.#requester.stream(
      CALLS.chatCompletion,
      chatChunkReader,
      PATHS.chatCompletions,
      () => withStream(checkCompletion(body, "messages", body?.messages), true),
      options,
    );
  }

  async textCompletion(
    body: TextCompletionRequest,
    options?: RequestOptions,
  ): Promise<TextCompletion> {
    checkCompletion(body, "prompt", body?.prompt);
    return this.#requester.call(
      CALLS.textCompletion,
      PATHS.textCompletions,
      withStream(body, false),
      options,
    );
  }

  /** Lazy: the request starts on the first `next()`; breaking out of the loop cancels it. */
  streamTextCompletion(
    body: TextCompletionRequest,
    options?: RequestOptions,
  ): AsyncIterable<TextCompletionChunk> {
    return this.#requester.stream(
      CALLS.textCompletion,
      textChunkReader,
      PATHS.textCompletions,
      () => withStream(checkCompletion(body, "prompt", body?.prompt), true),
      options,
    );
  }

  // --- threads (baseUrl, X-Service-Key) ---

  createThread(body: CreateThreadRequest, options?: RequestOptions): Promise<Thread> {
    return this.#requester.call(CALLS.createThread, PATHS.threads, body ?? {}, options);
  }

  async getThread(threadId: string, options?: RequestOptions): Promise<Thread> {
    checkId("threadId", threadId);
    return this.#requester.call(CALLS.getThread, PATHS.thread(threadId), undefined, options);
  }

  async deleteThread(threadId: string, options?: RequestOptions): Promise<Deleted> {
    checkId("threadId", threadId);
    return this.#requester.call(CALLS.deleteThread, PATHS.thread(threadId), undefined, options);
  }

  async listThreads(
    query?: ListThreadsQuery,
    options?: RequestOptions,
  ): Promise<ListResponse<Thread>> {
    checkListQuery(query);
    const path = PATHS.threads + listQueryString(query ?? {});
    return this.#requester.call(CALLS.listThreads, path, undefined, options);
  }

  /** Every thread, oldest first unless `order` says otherwise, across all pages. */
  async *iterateThreads(query?: ListThreadsQuery, options?: RequestOptions): AsyncIterable<Thread> {
    checkListQuery(query);
    const q = { ...query, order: query?.order ?? "asc" };
    yield* paginateList(
      (after) => this.listThreads({ ...q, after }, options),
      q.after,
      PAGED.iterateThreads,
    );
  }

  // --- messages ---

  async createMessage(
    threadId: string,
    body: CreateMessageRequest,
    options?: RequestOptions,
  ): Promise<ThreadMessage> {
    checkId("threadId", threadId);
    return this.#requester.call(CALLS.createMessage, PATHS.messages(threadId), body, options);
  }

  async listMessages(
    threadId: string,
    query?: ListQuery,
    options?: RequestOptions,
  ): Promise<ListResponse<ThreadMessage>> {
    checkId("threadId", threadId);
    checkListQuery(query);
    const path = PATHS.messages(threadId) + listQueryString(query ?? {});
    return this.#requester.call(CALLS.listMessages, path, undefined, options);
  }

  /** Every message of a thread, oldest first unless `order` says otherwise, across all pages. */
  async *iterateMessages(
    threadId: string,
    query?: ListQuery,
    options?: RequestOptions,
  ): AsyncIterable<ThreadMessage> {
    checkId("threadId", threadId);
    checkListQuery(query);
    const q = { ...query, order: query?.order ?? "asc" };
    yield* paginateList((after) => this.listMessages(threadId, { ...q, after }, options), q.after, {
      name: "iterateMessages",
      method: "GET",
      path: PATHS.messages(threadId),
    });
  }

  async deleteMessage(
    threadId: string,
    messageId: string,
    options?: RequestOptions,
  ): Promise<Deleted> {
    checkId("threadId", threadId);
    checkId("messageId", messageId);
    const path = PATHS.message(threadId, messageId);
    return this.#requester.call(CALLS.deleteMessage, path, undefined, options);
  }

  // --- assistants ---

  createAssistant(body: CreateAssistantRequest, options?: RequestOptions): Promise<Assistant> {
    return this.#requester.call(CALLS.createAssistant, PATHS.assistants, body, options);
  }

  async getAssistant(assistantId: string, options?: RequestOptions): Promise<Assistant> {
    checkId("assistantId", assistantId);
    const path = PATHS.assistant(assistantId);
    return this.#requester.call(CALLS.getAssistant, path, undefined, options);
  }

  /** `DELETE /v1/assistants/{id}`; answers `{id, object: "assistant.deleted", deleted: true}`. */
  async deleteAssistant(assistantId: string, options?: RequestOptions): Promise<Deleted> {
    checkId("assistantId", assistantId);
    const path = PATHS.assistant(assistantId);
    return this.#requester.call(CALLS.deleteAssistant, path, undefined, options);
  }

  async listAssistants(
    query?: ListQuery,
    options?: RequestOptions,
  ): Promise<ListResponse<Assistant>> {
    checkListQuery(query);
    const path = PATHS.assistants + listQueryString(query ?? {});
    return this.#requester.call(CALLS.listAssistants, path, undefined, options);
  }

  /** Every assistant, oldest first unless `order` says otherwise, across all pages. */
  async *iterateAssistants(query?: ListQuery, options?: RequestOptions): AsyncIterable<Assistant> {
    checkListQuery(query);
    const q = { ...query, order: query?.order ?? "asc" };
    yield* paginateList(
      (after) => this.listAssistants({ ...q, after }, options),
      q.after,
      PAGED.iterateAssistants,
    );
  }

  // --- thread datasets ---

  /**
   * One page of a dataset's threads with their messages; missing page fields are filled. The
   * configured organization goes in `auth.organization` unless the caller passes its own `auth`.
   */
  async listDatasetThreadsMessages(
    body: Omit<ListDatasetThreadsMessagesRequest, "page"> & { page?: Partial<PageRequest> },
    options?: RequestOptions,
  ): Promise<ListDatasetThreadsMessagesResponse> {
    checkId("datasetId", body?.datasetId);
    checkPageSize("page.limit", body.page?.limit);
    const { orgId } = this.#requester.config;
    const request: ListDatasetThreadsMessagesRequest = {
      ...body,
      ...(body.auth === undefined && orgId !== undefined ? { auth: { organization: orgId } } : {}),
      page: pageRequest(body.page, DEFAULT_PAGE_SIZE),
    };
    return this.#requester.call(
      CALLS.listDatasetThreadsMessages,
      PATHS.listDatasetThreadsMessages,
      request,
      options,
    );
  }

  /** Every thread of a dataset with its messages, following page tokens. */
  async *iterateDatasetThreadsMessages(
    body: Omit<ListDatasetThreadsMessagesRequest, "page"> & { pageSize?: number },
    options?: RequestOptions,
  ): AsyncIterable<DatasetThreadMessages> {
    checkId("datasetId", body?.datasetId);
    checkPageSize("pageSize", body.pageSize);
    const { pageSize = DEFAULT_PAGE_SIZE, ...rest } = body;
    yield* paginateTokens(async (nextPageToken) => {
      const res = await this.listDatasetThreadsMessages(
        { ...rest, page: { limit: pageSize, nextPageToken } },
        options,
      );
      return { items: res.threadsMessages, page: res.page };
    }, PAGED.iterateDatasetThreadsMessages);
  }

  /**
   * Releases pooled sockets (calls still in flight fail). Idempotent. The client cannot be used
   * afterwards. A `dispatcher` passed in the options is left open for its owner to close.
   */
  close(): Promise<void> {
    return this.#requester.close();
  }

  /** Safe to log: addresses and settings, never the key. */
  toJSON(): Record<string, unknown> {
    const c = this.#requester.config;
    return {
      baseUrl: c.studio ? c.studio.origin + c.studio.prefix : undefined,
      proxyUrl: c.proxy ? c.proxy.origin + c.proxy.prefix : undefined,
      orgId: c.orgId,
      apiKey: c.apiKey === undefined ? undefined : "[REDACTED]",
      serviceKeyHeader: c.serviceKeyHeader,
      rpcPathPrefix: c.rpcPathPrefix,
      timeout: c.timeout,
      streamIdleTimeout: c.streamIdleTimeout,
      streamTimeout: c.streamTimeout,
      maxRetries: c.maxRetries,
      maxResponseBytes: c.maxResponseBytes,
      transport: this.#requester.transport.engine.name,
      closed: this.#requester.closed,
    };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `StudioClient ${JSON.stringify(this.toJSON())}`;
  }
}
