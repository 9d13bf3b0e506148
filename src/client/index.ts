// CONTRACT SKELETON: the method signatures below are fixed (other modules code against them);
// the client helper replaces the bodies and may split the implementation into modules.
import type {
  Assistant,
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  CreateAssistantRequest,
  CreateMessageRequest,
  CreateThreadRequest,
  DatasetThreadMessages,
  Deleted,
  ListDatasetThreadsMessagesRequest,
  ListDatasetThreadsMessagesResponse,
  ListPublicModelsResponse,
  ListQuery,
  ListResponse,
  ListThreadsQuery,
  Model,
  PageRequest,
  TextCompletion,
  TextCompletionChunk,
  TextCompletionRequest,
  Thread,
  ThreadMessage,
} from "../api-types";
import type { RequestOptions, StudioClientOptions } from "./types";

export type { FetchLike, RequestOptions, StudioClientOptions } from "./types";

function notImplemented(): never {
  throw new Error("not implemented yet");
}

export class StudioClient {
  constructor(_options: StudioClientOptions = {}) {}

  // --- models (no key) ---
  listPublicModels(
    _params?: { page?: Partial<PageRequest> },
    _options?: RequestOptions,
  ): Promise<ListPublicModelsResponse> {
    notImplemented();
  }
  iteratePublicModels(
    _params?: { limit?: number },
    _options?: RequestOptions,
  ): AsyncIterable<Model> {
    notImplemented();
  }

  // --- completions (proxyUrl, Authorization) ---
  chatCompletion(_body: ChatCompletionRequest, _options?: RequestOptions): Promise<ChatCompletion> {
    notImplemented();
  }
  /** Lazy: the request starts on the first `next()`; breaking out of the loop cancels it. */
  streamChatCompletion(
    _body: ChatCompletionRequest,
    _options?: RequestOptions,
  ): AsyncIterable<ChatCompletionChunk> {
    notImplemented();
  }
  textCompletion(_body: TextCompletionRequest, _options?: RequestOptions): Promise<TextCompletion> {
    notImplemented();
  }
  streamTextCompletion(
    _body: TextCompletionRequest,
    _options?: RequestOptions,
  ): AsyncIterable<TextCompletionChunk> {
    notImplemented();
  }

  // --- threads (baseUrl, X-Service-Key) ---
  createThread(_body: CreateThreadRequest, _options?: RequestOptions): Promise<Thread> {
    notImplemented();
  }
  getThread(_threadId: string, _options?: RequestOptions): Promise<Thread> {
    notImplemented();
  }
  deleteThread(_threadId: string, _options?: RequestOptions): Promise<Deleted> {
    notImplemented();
  }
  listThreads(_query?: ListThreadsQuery, _options?: RequestOptions): Promise<ListResponse<Thread>> {
    notImplemented();
  }
  iterateThreads(_query?: ListThreadsQuery, _options?: RequestOptions): AsyncIterable<Thread> {
    notImplemented();
  }

  // --- messages ---
  createMessage(
    _threadId: string,
    _body: CreateMessageRequest,
    _options?: RequestOptions,
  ): Promise<ThreadMessage> {
    notImplemented();
  }
  listMessages(
    _threadId: string,
    _query?: ListQuery,
    _options?: RequestOptions,
  ): Promise<ListResponse<ThreadMessage>> {
    notImplemented();
  }
  iterateMessages(
    _threadId: string,
    _query?: ListQuery,
    _options?: RequestOptions,
  ): AsyncIterable<ThreadMessage> {
    notImplemented();
  }
  deleteMessage(
    _threadId: string,
    _messageId: string,
    _options?: RequestOptions,
  ): Promise<Deleted> {
    notImplemented();
  }

  // --- assistants ---
  createAssistant(_body: CreateAssistantRequest, _options?: RequestOptions): Promise<Assistant> {
    notImplemented();
  }
  getAssistant(_assistantId: string, _options?: RequestOptions): Promise<Assistant> {
    notImplemented();
  }
  listAssistants(_query?: ListQuery, _options?: RequestOptions): Promise<ListResponse<Assistant>> {
    notImplemented();
  }
  iterateAssistants(_query?: ListQuery, _options?: RequestOptions): AsyncIterable<Assistant> {
    notImplemented();
  }

  // --- thread datasets ---
  listDatasetThreadsMessages(
    _body: Omit<ListDatasetThreadsMessagesRequest, "page"> & { page?: Partial<PageRequest> },
    _options?: RequestOptions,
  ): Promise<ListDatasetThreadsMessagesResponse> {
    notImplemented();
  }
  iterateDatasetThreadsMessages(
    _body: Omit<ListDatasetThreadsMessagesRequest, "page"> & { pageSize?: number },
    _options?: RequestOptions,
  ): AsyncIterable<DatasetThreadMessages> {
    notImplemented();
  }

  /** Releases pooled sockets. The client cannot be used afterwards. */
  close(): Promise<void> {
    notImplemented();
  }
}
