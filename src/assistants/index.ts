/** Assistants stored on the service: create, fetch, list, delete. Running one is `../agents`. */
export { createAssistant, deleteAssistant, getAssistant, listAssistants } from "./resources";
export type {
  AssistantCallOptions,
  AssistantToolInput,
  CreateAssistantInput,
  ListAssistantsOptions,
} from "./types";
export { ASSISTANT_LIMITS } from "./validate";
