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
  ChatStudio,
  type ChatStudioCallOptions,
  type ChatStudioInput,
  type ChatStudioInvocationParams,
  type StructuredOutputSchema,
} from "./chat_models";
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
  convertCompletionToChatGenerations,
  convertMessagesToStudioParams,
} from "./converters/messages";
export {
  decodeMessage,
  decodeMessages,
  type EncodedMessage,
  encodeMessage,
  encodeMessages,
  threadMessageClientId,
} from "./converters/thread-messages";
export { convertToolChoiceToStudio, convertToolsToStudio } from "./converters/tools";
export { convertUsage } from "./converters/usage";
export * from "./errors";
export type { StudioModelFields, StudioSamplingCallOptions } from "./language_models/common";
export {
  StudioLLM,
  type StudioLLMCallOptions,
  type StudioLLMFields,
  type StudioLLMLsParams,
} from "./llms";
