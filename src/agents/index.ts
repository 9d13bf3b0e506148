/**
 * `langchain-studio/agents`: assistants run as LangChain agents. This subpath is the only one that
 * imports the optional peer `langchain` (its `createAgent` runs the agent), so apps that never run
 * an assistant never resolve it. Creating, fetching, listing and deleting assistants stays in the
 * root entry.
 */
export type { AssistantAgent } from "./agent";
export { StudioMaxIterationsError } from "./errors";
export { loadAssistantAgent } from "./load";
export type {
  AgentMessageHistory,
  AssistantToolImplementation,
  LoadAssistantAgentParams,
} from "./types";
