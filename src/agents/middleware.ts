/**
 * The middleware that makes `createAgent` behave like a Studio assistant. It is one middleware on
 * purpose: langchain wraps every error thrown through a `wrapModelCall` in a `MiddlewareError`,
 * once per middleware, so a second model-wrapping middleware would bury a model error two causes
 * deep.
 *
 * - beforeAgent: loads the earlier turns from `history` (once per run) and resets the call count.
 * - wrapModelCall: the function model decides tool calls, bound to the assistant's declared
 *   schemas (not the implementations' own). When it answers without tool calls and the response
 *   model is configured differently, the response model writes the final answer over the whole
 *   exchange, without tools. Earlier turns are put in front of the messages for both calls.
 * - afterModel: stops with `StudioMaxIterationsError` when the last allowed call still asks for
 *   tools. langchain's `modelCallLimitMiddleware` is not used because it only fails before the next
 *   model call, after running (and then dropping) the last round of tools, names neither the option
 *   to raise nor the pending calls, and adds public counters to the agent's output.
 * - afterAgent: appends the run's messages to `history` in one `addMessages` call.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { type createAgent, createMiddleware } from "langchain";
import { z } from "zod/v4";
import type { ChatTool } from "../api-types";
import { StudioMaxIterationsError } from "./errors";
import type { AgentMessageHistory } from "./types";

export type ChatModelLike = Exclude<Parameters<typeof createAgent>[0]["model"], string>;

export interface AssistantMiddlewareOptions {
  /** The assistant's tool schemas, as bound to the function model. */
  tools: ChatTool[];
  /** Set only when it differs from the function model (the agent's own model). */
  responseModel?: ChatModelLike | undefined;
  history?: AgentMessageHistory | undefined;
  maxIterations: number;
}

// Private (underscore) fields stay out of the agent's input and output state. Classic zod, unlike
// the rest of the portable code (see zod-locale.ts): langchain calls methods such as `.optional()`
// on a middleware's state fields, which mini schemas do not have, and it loads classic zod anyway.
const stateSchema = z.object({
  _studioHistory: z.array(z.custom<BaseMessage>()).optional(),
  _studioModelCalls: z.number().optional(),
});

export const ASSISTANT_MIDDLEWARE_NAME = "StudioAssistant";

export function assistantMiddleware(options: AssistantMiddlewareOptions) {
  const { responseModel, history, maxIterations } = options;
  const boundTools = options.tools.map(
    (tool): Record<string, unknown> => ({ type: tool.type, function: tool.function }),
  );
  return createMiddleware({
    name: ASSISTANT_MIDDLEWARE_NAME,
    stateSchema,
    beforeAgent: async () => ({
      _studioModelCalls: 0,
      _studioHistory: history ? await history.getMessages() : [],
    }),
    wrapModelCall: async (request, handler) => {
      const messages = [...(request.state._studioHistory ?? []), ...request.messages];
      const decision = await handler({ ...request, messages, tools: boundTools });
      if (responseModel === undefined || hasToolCalls(decision)) return decision;
      return handler({ ...request, messages, model: responseModel, tools: [] });
    },
    afterModel: (state) => {
      const calls = (state._studioModelCalls ?? 0) + 1;
      const last = state.messages.at(-1);
      if (calls >= maxIterations && hasToolCalls(last)) {
        throw new StudioMaxIterationsError(
          maxIterations,
          last.tool_calls.map((call) => call.name),
          state.messages,
        );
      }
      return { _studioModelCalls: calls };
    },
    afterAgent: async (state) => {
      if (history && state.messages.length > 0) await history.addMessages(state.messages);
    },
  });
}

function hasToolCalls(
  message: unknown,
): message is AIMessage & { tool_calls: NonNullable<AIMessage["tool_calls"]> } {
  return AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0;
}
