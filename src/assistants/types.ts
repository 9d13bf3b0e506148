import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableToolLike } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Assistant, CreateAssistantRequest, ListQuery } from "../api-types";
import type { StudioClient } from "../client";
import type { RequestOptions } from "../client/types";
import type { AssistantToolInput } from "../converters/assistant-tools";

export type { AssistantToolInput } from "../converters/assistant-tools";

/** Input of `createAssistant`: the create body, with tools as LangChain tools or Tool objects. */
export interface CreateAssistantInput extends Omit<CreateAssistantRequest, "tools"> {
  tools?: AssistantToolInput[];
}

/** Options of the assistant calls: a client (else one is made from the environment) + per-call options. */
export interface AssistantCallOptions extends RequestOptions {
  client?: StudioClient;
}

export interface ListAssistantsOptions extends AssistantCallOptions {
  /** Page size (1 to 100); every page is fetched either way. */
  limit?: ListQuery["limit"];
  /** Default `asc` (sent explicitly, see the interface notes). */
  order?: ListQuery["order"];
}

/** The parts of a chat message history the agent uses (`StudioChatMessageHistory` fits). */
export interface AgentMessageHistory {
  getMessages(): Promise<BaseMessage[]>;
  addMessages(messages: BaseMessage[]): Promise<void>;
}

/** A LangChain tool that implements one of the assistant's functions. */
export type AssistantToolImplementation = StructuredToolInterface | RunnableToolLike;

export interface LoadAssistantAgentParams {
  /** The assistant record; or pass `assistantId` to fetch it. */
  assistant?: Assistant;
  assistantId?: string;
  /** Implementations of the assistant's function tools, matched by name. */
  tools: AssistantToolImplementation[];
  /** Used to fetch the assistant, resolve model record ids and call the models. */
  client?: StudioClient;
  /** Earlier turns are loaded before each run, and each run's turn is appended after it. */
  history?: AgentMessageHistory;
  /** Most function-model calls in one run (default 15); reaching it with tool calls pending is an error. */
  maxIterations?: number;
}
