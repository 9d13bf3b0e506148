export * from "./api-types";
export * from "./assistants";
export {
  type DatasetConversation,
  type LoadDatasetConversationsInput,
  loadDatasetConversations,
  StudioChatMessageHistory,
  type StudioChatMessageHistoryInput,
  type StudioChatMessageHistoryOptions,
  StudioWriteNotConfirmedError,
} from "./chat_history";
export {
  isRetryableStatus,
  parseRetryAfter,
  type RetryClass,
  retryDelay,
  StudioClient,
  shouldRetry,
} from "./client";
export type { FetchLike, RequestOptions, StudioClientOptions } from "./client/types";
export {
  assistantToolName,
  convertAssistantToolToChatTool,
  convertToAssistantTool,
} from "./converters/assistant-tools";
export {
  decodeMessage,
  decodeMessages,
  type EncodedMessage,
  encodeMessage,
  encodeMessages,
  threadMessageClientId,
} from "./converters/thread-messages";
export * from "./errors";
export {
  StudioLLM,
  type StudioLLMCallOptions,
  type StudioLLMFields,
  type StudioLLMLsParams,
} from "./llms";
