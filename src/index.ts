export * from "./api-types";
export * from "./assistants";
export type { FetchLike, RequestOptions, StudioClientOptions } from "./client/types";
export {
  assistantToolName,
  convertAssistantToolToChatTool,
  convertToAssistantTool,
} from "./converters/assistant-tools";
export * from "./errors";
