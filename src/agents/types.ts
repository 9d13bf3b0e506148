import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableToolLike } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Assistant } from "../api-types";
import type { StudioClientFields } from "../client/resolve";

/** The parts of a chat message history the agent uses (`StudioChatMessageHistory` fits). */
export interface AgentMessageHistory {
  getMessages(): Promise<BaseMessage[]>;
  addMessages(messages: BaseMessage[]): Promise<void>;
}

/** A LangChain tool that implements one of the assistant's functions. */
export type AssistantToolImplementation = StructuredToolInterface | RunnableToolLike;

/**
 * What `loadAssistantAgent` takes: the assistant (or its id), the tool implementations, and a
 * `client` or the client options (used to fetch the assistant, resolve model record ids and call
 * the models).
 */
export interface LoadAssistantAgentParams extends StudioClientFields {
  /** The assistant record; or pass `assistantId` to fetch it. */
  assistant?: Assistant;
  assistantId?: string;
  /** Implementations of the assistant's function tools, matched by name (default: none). */
  tools?: AssistantToolImplementation[];
  /** Earlier turns are loaded before each run, and each run's turn is appended after it. */
  history?: AgentMessageHistory;
  /**
   * Most function-model calls in one run (default 15); reaching it with tool calls pending is an
   * error.
   */
  maxIterations?: number;
}
