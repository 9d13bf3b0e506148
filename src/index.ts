/**
 * The root entry: what users build with (the classes, the assistant and dataset functions, the
 * errors) and the types of their options and results. Internals (converters, stream decoding,
 * retry policy, wire schemas) stay private so they can change; test/unit/exports.test.ts pins
 * the list. Running an assistant as an agent needs the optional peer `langchain`, so it lives in
 * `langchain-studio/agents`; this entry never imports `langchain`.
 */
export type {
  Assistant,
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatMessageParam,
  ChatTool,
  CreateAssistantRequest,
  CreateMessageRequest,
  CreateThreadRequest,
  DatasetThreadMessages,
  Deleted,
  ListDatasetThreadsMessagesRequest,
  ListDatasetThreadsMessagesResponse,
  ListPublicModelsRequest,
  ListPublicModelsResponse,
  ListQuery,
  ListResponse,
  ListThreadsQuery,
  Metadata,
  Model,
  ModelSettings,
  TextCompletion,
  TextCompletionChunk,
  TextCompletionRequest,
  Thread,
  ThreadMessage,
  ThreadMessageInput,
  Tool,
  ToolCall,
  ToolChoice,
  Usage,
} from "./api-types";
export {
  type AssistantCallOptions,
  type AssistantToolInput,
  type CreateAssistantInput,
  createAssistant,
  deleteAssistant,
  getAssistant,
  type ListAssistantsOptions,
  listAssistants,
} from "./assistants";
export {
  StudioChatMessageHistory,
  type StudioChatMessageHistoryInput,
  type StudioChatMessageHistoryOptions,
} from "./chat_history";
export { ChatStudio, type ChatStudioCallOptions, type ChatStudioInput } from "./chat_models";
export { StudioClient } from "./client";
export type { FetchLike, RequestOptions, StudioClientOptions } from "./client/options";
export type { StudioClientFields } from "./client/resolve";
export {
  type DatasetConversation,
  type ExportFineTuneRecordsInput,
  exportFineTuneRecords,
  type FineTuneFormat,
  type FineTuneProblemCode,
  type FineTuneRecord,
  type FineTuneRecordProblem,
  type LangChainRecord,
  type LoadDatasetConversationsInput,
  loadDatasetConversations,
  type OpenAIChatRecord,
  type RedactMessages,
  type SkippedThread,
  StudioConversationRecorder,
  type StudioConversationRecorderInput,
  StudioInvalidRecordError,
  StudioRecordingError,
  type ValidateFineTuneRecordOptions,
  validateFineTuneRecord,
} from "./datasets";
export {
  StudioAPIError,
  StudioAuthenticationError,
  StudioBadRequestError,
  StudioConfigError,
  StudioConflictError,
  StudioConnectionError,
  StudioError,
  StudioNotFoundError,
  StudioPermissionDeniedError,
  StudioRateLimitError,
  StudioResponseError,
  StudioServerError,
  StudioStoredFormatError,
  StudioStreamError,
  StudioThreadDeletedError,
  StudioTimeoutError,
  StudioUnprocessableEntityError,
  StudioValidationError,
} from "./errors";
export { StudioLLM, type StudioLLMCallOptions, type StudioLLMFields } from "./llms";
export { StudioWriteNotConfirmedError } from "./threads/errors";
