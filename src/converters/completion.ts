/**
 * Pure conversion of a whole chat completion to LangChain: one `AIMessage` per choice, with its
 * text, reasoning, refusal, tool calls (parsed strictly), usage and response metadata.
 */
import { AIMessage, type InvalidToolCall, type ToolCall } from "@langchain/core/messages";
import { makeInvalidToolCall, parseToolCall } from "@langchain/core/output_parsers/openai_tools";
import type { ChatGeneration } from "@langchain/core/outputs";
import type { ChatCompletion, Usage } from "../api-types";
import { convertUsage } from "./usage";

export const MODEL_PROVIDER = "studio";

type Choice = ChatCompletion["choices"][number];

/**
 * The refusal an OpenAI-compatible server reports in `message.refusal` (streamed as
 * `delta.refusal`), when it is text. Kept in `additional_kwargs.refusal`, where core's OpenAI
 * translator reads it: the standard `refusal` content block and `ModelRefusalError` come from it.
 */
export function refusalText(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A tool call as the wire carries it once complete (an `id` may be missing on some servers). */
export interface CompleteToolCall {
  id?: string | undefined;
  function: { name: string; arguments: string };
}

/**
 * Parses complete tool calls strictly: arguments that are not a JSON object go to
 * `invalid_tool_calls`, never guessed. Empty arguments mean none (`{}`): servers send `""` for a
 * tool without parameters. The one rule for every final message, streamed or not.
 */
export function parseStudioToolCalls(raw: readonly CompleteToolCall[] | null | undefined): {
  toolCalls: ToolCall[];
  invalidToolCalls: InvalidToolCall[];
} {
  const toolCalls: ToolCall[] = [];
  const invalidToolCalls: InvalidToolCall[] = [];
  if (!raw) return { toolCalls, invalidToolCalls };
  for (const call of raw) {
    const text = call.function.arguments;
    const openAICall = {
      id: call.id,
      type: "function" as const,
      function: { name: call.function.name, arguments: text.trim() === "" ? "{}" : text },
    };
    try {
      const parsed = parseToolCall(openAICall, { returnId: true });
      // Core's parser accepts any JSON; a tool's arguments must be an object, or the tool would
      // be handed a string, an array or null.
      const args: unknown = parsed?.args;
      if (typeof args !== "object" || args === null || Array.isArray(args)) {
        throw new Error(
          `Function "${call.function.name}" arguments are valid JSON but not an object: ` +
            `${text.slice(0, 200)}`,
        );
      }
      if (parsed) toolCalls.push(parsed);
    } catch (error) {
      invalidToolCalls.push(
        makeInvalidToolCall(
          { ...openAICall, function: { ...openAICall.function, arguments: text } },
          error instanceof Error ? error.message : String(error),
        ),
      );
    }
  }
  return { toolCalls, invalidToolCalls };
}

/**
 * The response metadata of a finished message, the same streamed or not. `usage` is the server's
 * usage as sent, every member kept (as ChatOpenAI does): members LangChain's `usage_metadata` has
 * no place for, such as a gateway's `cost`, are read there.
 */
export function finalResponseMetadata(fields: {
  model: string;
  finishReason: string | null | undefined;
  id: string | undefined;
  created: number | undefined;
  usage?: Usage | undefined;
}): Record<string, unknown> {
  const metadata: Record<string, unknown> = {
    model_provider: MODEL_PROVIDER,
    model: fields.model,
    model_name: fields.model,
  };
  if (fields.finishReason != null) metadata.finish_reason = fields.finishReason;
  if (fields.id) metadata.id = fields.id;
  if (fields.created !== undefined) metadata.created = fields.created;
  if (fields.usage !== undefined) metadata.usage = fields.usage;
  return metadata;
}

/**
 * One choice of a completion to an `AIMessage`: text, reasoning, tool calls, usage, metadata.
 * `requestedModel` names the model when the server's answer does not.
 */
export function convertChoiceToAIMessage(
  choice: Choice,
  completion: ChatCompletion,
  requestedModel = "",
): AIMessage {
  const message = choice.message;
  const { toolCalls, invalidToolCalls } = parseStudioToolCalls(message.tool_calls);
  const reasoning = message.reasoning_content;
  const refusal = refusalText(message.refusal);
  const additionalKwargs: Record<string, unknown> = {};
  if (typeof reasoning === "string" && reasoning !== "") {
    additionalKwargs.reasoning_content = reasoning;
  }
  if (refusal !== undefined) additionalKwargs.refusal = refusal;
  return new AIMessage({
    id: completion.id,
    content: message.content ?? "",
    additional_kwargs: additionalKwargs,
    tool_calls: toolCalls,
    invalid_tool_calls: invalidToolCalls,
    usage_metadata: convertUsage(completion.usage),
    response_metadata: finalResponseMetadata({
      model: completion.model ?? requestedModel,
      finishReason: choice.finish_reason,
      id: completion.id,
      created: completion.created,
      usage: completion.usage,
    }),
  });
}

/** A whole completion to one generation per choice, in choice order (`n > 1` gives n). */
export function convertCompletionToChatGenerations(
  completion: ChatCompletion,
  requestedModel = "",
): ChatGeneration[] {
  return [...completion.choices]
    .sort((a, b) => a.index - b.index)
    .map((choice) => ({
      text: choice.message.content ?? "",
      message: convertChoiceToAIMessage(choice, completion, requestedModel),
    }));
}
