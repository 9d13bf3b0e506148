/**
 * Tools between LangChain and the assistant resource, both ways:
 * - `convertToAssistantTool`: a LangChain tool (or a raw Tool) to the spec's Tool shape, as sent
 *   by `createAssistant`.
 * - `convertAssistantToolToChatTool`: an assistant's Tool to the OpenAI-style function schema a
 *   chat model binds. The spec keeps `function.required` beside `function.parameters`, while a
 *   bound schema carries `required` inside the JSON schema, so the two lists are merged here.
 */

import type { RunnableToolLike } from "@langchain/core/runnables";
import type { StructuredToolInterface, StructuredToolParams } from "@langchain/core/tools";
import { convertToOpenAITool, isLangChainTool } from "@langchain/core/utils/function_calling";
import { type ChatTool, type Tool, ToolSchema } from "../api-types";
import { StudioValidationError } from "../errors";

/** What `createAssistant` accepts as a tool: a LangChain tool, or a Tool object sent as given. */
export type AssistantToolInput =
  | StructuredToolInterface
  | RunnableToolLike
  | StructuredToolParams
  | Tool;

/** The function name of an assistant tool (the spec carries it in `function.name` and `name`). */
export function assistantToolName(tool: Tool): string | undefined {
  return tool.function?.name ?? tool.name;
}

/**
 * Converts a LangChain tool to the spec's Tool (`name`, `type: "function"`, `function` with
 * `name`, `description`, `parameters`, `required`); a Tool object is checked and passed through.
 * Zod v3 and v4 schemas and JSON schemas all work: core's `convertToOpenAITool` does the schema.
 *
 * @param field where the tool sits in the caller's input, used in error messages.
 */
export function convertToAssistantTool(tool: AssistantToolInput, field = "tool"): Tool {
  if (isLangChainTool(tool)) {
    const { function: fn } = convertToOpenAITool(tool);
    const { $schema: _ignored, ...parameters } = asRecord(fn.parameters) ?? {};
    return {
      name: fn.name,
      type: "function",
      function: {
        name: fn.name,
        description: fn.description ?? "",
        parameters,
        required: stringList(parameters.required),
      },
    };
  }
  const parsed = ToolSchema.safeParse(tool);
  if (!parsed.success) {
    throw new StudioValidationError(
      field,
      'must be a LangChain tool (e.g. from tool() in "@langchain/core/tools") or a Tool object ' +
        '{ type: "function", function: { name, description, parameters, required } }',
    );
  }
  if (parsed.data.type === "function" && !parsed.data.function?.name) {
    throw new StudioValidationError(`${field}.function.name`, "is required for a function tool");
  }
  return parsed.data;
}

/**
 * Converts an assistant's Tool to the schema a chat model binds, with `function.required` merged
 * into `parameters.required`. Only function tools can be bound.
 */
export function convertAssistantToolToChatTool(tool: Tool): ChatTool {
  const fn = tool.function;
  if (!fn?.name) {
    throw new StudioValidationError(
      `tools.${tool.name ?? tool.type}`,
      `is a "${tool.type}" tool without a function definition; only function tools can be bound`,
    );
  }
  const parameters: Record<string, unknown> = { ...(fn.parameters ?? {}) };
  if (parameters.type === undefined) parameters.type = "object";
  if (parameters.type === "object" && parameters.properties === undefined) {
    parameters.properties = {};
  }
  const required = [...new Set([...stringList(parameters.required), ...(fn.required ?? [])])];
  if (required.length > 0) parameters.required = required;
  return {
    type: "function",
    function: {
      name: fn.name,
      ...(fn.description ? { description: fn.description } : {}),
      parameters,
    },
  };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === "string")
    : [];
}
