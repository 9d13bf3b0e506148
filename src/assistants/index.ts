export type { AssistantAgent } from "./agent";
export { StudioMaxIterationsError, StudioMissingDependencyError } from "./errors";
export { DEFAULT_MAX_ITERATIONS, loadAssistantAgent } from "./load";
export { createAssistant, getAssistant, listAssistants } from "./resources";
export type {
  AgentMessageHistory,
  AssistantCallOptions,
  AssistantToolImplementation,
  AssistantToolInput,
  CreateAssistantInput,
  ListAssistantsOptions,
  LoadAssistantAgentParams,
} from "./types";
export { ASSISTANT_LIMITS } from "./validate";
