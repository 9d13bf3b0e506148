/**
 * Pure conversions of the tools a user binds, and of the tool choice, to the wire's OpenAI-style
 * `tools` and `tool_choice`.
 */
import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import { convertToOpenAITool, isLangChainTool } from "@langchain/core/utils/function_calling";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { isInteropZodSchema } from "@langchain/core/utils/types";
import type { ChatTool, ToolChoice } from "../api-types";
import { StudioValidationError } from "../errors";

/** The spec's tool shape always has an object schema; a tool without parameters takes none. */
const NO_PARAMETERS = { type: "object", properties: {} } as const;

/**
 * Tools in any form LangChain users bind them (`tool()`, `StructuredTool`, `{ name, schema }`
 * with a zod v3/v4 or JSON schema, OpenAI tool objects, OpenAI function definitions, runnable
 * tool-likes, and bare schemas that carry a title) to the wire's `tools`. Anything else, or two
 * tools with one name, is a `StudioValidationError` naming `tools[i]`.
 */
export function convertToolsToStudio(tools: readonly BindToolsInput[]): ChatTool[] {
  if (!Array.isArray(tools)) {
    throw new StudioValidationError("tools", "must be an array of tools");
  }
  const seen = new Set<string>();
  return tools.map((tool, i) => {
    const converted = convertToolToStudio(tool, i);
    const name = converted.function.name;
    if (seen.has(name)) {
      throw new StudioValidationError(
        `tools[${i}].name`,
        `"${name}" is bound twice; tool names must be unique`,
      );
    }
    seen.add(name);
    return converted;
  });
}

/** One tool to the wire shape; `i` is its position, used in error fields. */
export function convertToolToStudio(tool: BindToolsInput, i: number): ChatTool {
  const field = `tools[${i}]`;
  if (tool === null || typeof tool !== "object") {
    throw new StudioValidationError(
      field,
      `must be a tool or a tool definition object (got ${tool === null ? "null" : typeof tool})`,
    );
  }
  if (isLangChainTool(tool)) {
    return normalize(convertToOpenAITool(tool) as ChatTool, field);
  }
  const record = tool as Record<string, unknown>;
  if (record.type === "function" && record.function && typeof record.function === "object") {
    return normalize(record as unknown as ChatTool, field);
  }
  if (typeof record.name === "string" && !("schema" in record)) {
    // An OpenAI function definition without the `{ type: "function" }` wrapper.
    return normalize(
      { type: "function", function: record as unknown as ChatTool["function"] },
      field,
    );
  }
  if (isInteropZodSchema(tool) || typeof record.title === "string") {
    return fromTitledSchema(tool, field);
  }
  throw new StudioValidationError(
    field,
    "is not a tool: pass a LangChain tool, { name, description, schema }, an OpenAI tool { " +
      'type: "function", function: { name, parameters } }, or a schema with a title',
  );
}

/** A bare zod or JSON schema names its tool through its title (as `.meta({ title })` sets). */
function fromTitledSchema(schema: unknown, field: string): ChatTool {
  const json = toJsonSchema(schema as Parameters<typeof toJsonSchema>[0]) as Record<
    string,
    unknown
  >;
  const { title, description, ...parameters } = json;
  if (typeof title !== "string" || !title) {
    throw new StudioValidationError(
      field,
      "a bare schema needs a title to name the tool; wrap it as { name, description, schema }",
    );
  }
  return normalize(
    {
      type: "function",
      function: {
        name: title,
        ...(typeof description === "string" && { description }),
        parameters,
      },
    },
    field,
  );
}

/**
 * The tool names OpenAI's chat API accepts; OpenAI-compatible servers (and the emulator) refuse
 * others with a 400, while LangChain's `tool()` accepts any string.
 */
const WIRE_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function normalize(tool: ChatTool, field: string): ChatTool {
  const fn = tool.function;
  if (!fn || typeof fn.name !== "string" || fn.name.trim() === "") {
    throw new StudioValidationError(`${field}.name`, "a tool needs a non-empty name");
  }
  if (!WIRE_TOOL_NAME.test(fn.name)) {
    throw new StudioValidationError(
      `${field}.name`,
      `${JSON.stringify(fn.name)} is not a tool name the chat API accepts: use 1 to 64 letters, ` +
        `digits, "_" or "-" (e.g. ${JSON.stringify(suggestedName(fn.name))})`,
    );
  }
  if (
    fn.parameters !== undefined &&
    (fn.parameters === null || typeof fn.parameters !== "object")
  ) {
    throw new StudioValidationError(`${field}.parameters`, "must be a JSON schema object");
  }
  const out: ChatTool = {
    type: "function",
    function: {
      name: fn.name,
      ...(typeof fn.description === "string" &&
        fn.description !== "" && { description: fn.description }),
      parameters: fn.parameters ?? { ...NO_PARAMETERS },
    },
  };
  if (fn.strict !== undefined) out.function.strict = fn.strict;
  return out;
}

/** A name the wire accepts, for the error's example: "get weather" -> "get_weather". */
function suggestedName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]+/g, "_").slice(0, 64) || "my_tool";
}

/** The tool names in wire tools, for checking a named tool choice. */
export function toolNames(tools: readonly ChatTool[] | undefined): string[] {
  return tools ? tools.map((tool) => tool.function.name) : [];
}

/**
 * A LangChain tool choice to the wire's: "auto", "none", "required" (also from "any"), or a
 * tool name / `{ type: "function", function: { name } }` forcing that tool. Anthropic's object
 * forms (`{ type: "tool", name }`, `{ type: "auto" | "any" | "none" }`) are read the same way, so
 * agent code written for ChatAnthropic runs unchanged. A name that is not among the bound tools,
 * or a forcing choice without tools, is a `StudioValidationError`. "auto" and "none" without
 * tools mean nothing and are left out.
 */
export function convertToolChoiceToStudio(
  toolChoice: unknown,
  tools: readonly ChatTool[] | undefined,
): ToolChoice | undefined {
  if (toolChoice === undefined || toolChoice === null) return undefined;
  const choice = readToolChoice(toolChoice);
  const hasTools = tools !== undefined && tools.length > 0;
  if (choice === "auto" || choice === "none") return hasTools ? choice : undefined;
  if (choice === "required" || choice === "any") {
    if (!hasTools) {
      throw new StudioValidationError("tool_choice", `"${choice}" needs tools bound (bindTools)`);
    }
    return "required";
  }
  const name = choice.tool;
  const names = toolNames(tools);
  if (!names.includes(name)) {
    throw new StudioValidationError(
      "tool_choice",
      names.length === 0
        ? `names the tool "${name}" but no tools are bound (bindTools)`
        : `names the tool "${name}", which is not among the bound tools (${names.join(", ")})`,
    );
  }
  return { type: "function", function: { name } };
}

/** Every accepted spelling of a tool choice: a keyword, or the one tool it forces. */
function readToolChoice(
  toolChoice: unknown,
): "auto" | "none" | "required" | "any" | { tool: string } {
  if (typeof toolChoice === "string") {
    return toolChoice === "auto" ||
      toolChoice === "none" ||
      toolChoice === "required" ||
      toolChoice === "any"
      ? toolChoice
      : { tool: toolChoice };
  }
  const {
    type,
    name,
    function: fn,
  } = (toolChoice ?? {}) as {
    type?: unknown;
    name?: unknown;
    function?: { name?: unknown };
  };
  if (type === "function" && typeof fn?.name === "string") return { tool: fn.name };
  if (type === "tool" && typeof name === "string") return { tool: name };
  if (type === "auto" || type === "none" || type === "any") return type;
  throw new StudioValidationError(
    "tool_choice",
    'must be "auto", "none", "required", "any", a tool name, { type: "function", function: { ' +
      'name } } or { type: "tool", name }',
  );
}
