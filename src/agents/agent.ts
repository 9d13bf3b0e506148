/**
 * Assembles the agent from parts already resolved: langchain's `createAgent` runs the loop
 * (parallel tool execution, streaming, callbacks, signals), the assistant middleware adds what is
 * specific to assistants, and langchain's `toolErrorMiddleware` turns a throwing tool into an
 * error ToolMessage the model can react to.
 */
import { createAgent, type ReactAgent, toolErrorMiddleware } from "langchain";
import type { ChatTool } from "../api-types";
import { redactText } from "../errors/redact";
import { assistantMiddleware, type ChatModelLike } from "./middleware";
import type { AgentMessageHistory, AssistantToolImplementation } from "./types";

/** The agent `loadAssistantAgent` resolves to: langchain's `ReactAgent`. */
export type AssistantAgent = ReactAgent;

export interface AssistantAgentParts {
  /** Decides tool calls; unbound (the agent binds `declaredTools` to it). */
  functionModel: ChatModelLike;
  /** Writes the final answer; leave out when it is configured like the function model. */
  responseModel?: ChatModelLike | undefined;
  /** The assistant's tool schemas, as bound to the function model. */
  declaredTools: ChatTool[];
  /** The implementations, by the same names. */
  tools: AssistantToolImplementation[];
  instructions?: string | null | undefined;
  history?: AgentMessageHistory | undefined;
  maxIterations: number;
}

/** Longest tool error text handed back to the model. */
const MAX_TOOL_ERROR_LENGTH = 2_000;

export function buildAssistantAgent(parts: AssistantAgentParts): AssistantAgent {
  const agent = createAgent({
    model: parts.functionModel,
    tools: parts.tools,
    ...(parts.instructions ? { systemPrompt: parts.instructions } : {}),
    middleware: [
      assistantMiddleware({
        tools: parts.declaredTools,
        responseModel: parts.responseModel,
        history: parts.history,
        maxIterations: parts.maxIterations,
      }),
      toolErrorMiddleware({ onError: describeToolError }),
    ],
  });
  // Each iteration takes three graph steps (model, after-model hook, tools); langgraph's default
  // limit of 25 would cut a run short of `maxIterations`.
  return agent.withConfig({ recursionLimit: parts.maxIterations * 3 + 10 });
}

/**
 * What the model sees when a tool throws (the message, not the stack; secrets scrubbed). A
 * cancelled run is not the tool's failure: returning nothing lets the abort propagate.
 */
function describeToolError(
  error: unknown,
  request: { toolCall: { name: string }; runtime?: { signal?: AbortSignal | undefined } },
): string | undefined {
  if (request.runtime?.signal?.aborted) return undefined;
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const clipped =
    text.length > MAX_TOOL_ERROR_LENGTH ? `${text.slice(0, MAX_TOOL_ERROR_LENGTH)}...` : text;
  return redactText(`Tool "${request.toolCall.name}" failed: ${clipped}`);
}
