/**
 * What a fine-tuning service refuses in a chat record (`{ messages, tools? }`, OpenAI's chat
 * fine-tuning format, which most services take): each problem with the path of the field at fault,
 * so a record read back from a JSONL file can be checked as well as one the export built.
 */
import * as z from "zod/v4/mini";
import { estimateTokens } from "../models/tokens";
import { described, integerAtLeast, parseFields } from "../validation";
import { useEnglishMessages } from "../zod-locale";

useEnglishMessages();

export type FineTuneProblemCode =
  /** The record is not an object. */
  | "not_an_object"
  /** `messages` is missing, not a list, or empty. */
  | "no_messages"
  /** A message is not an object. */
  | "invalid_message"
  /** A role other than system, user, assistant and tool. */
  | "unknown_role"
  /** A field the format does not have (the service refuses unknown keys). */
  | "unknown_field"
  /** A message without text (an assistant turn that only calls tools may have none). */
  | "empty_content"
  /** Content that is neither a string nor a list of text (and, for users, image) parts. */
  | "invalid_content"
  /** System messages after the conversation started, or a conversation not opened by the user. */
  | "role_order"
  /** The last message is not the assistant's: there is nothing to learn. */
  | "missing_final_assistant"
  /** A tool message that answers no earlier, unanswered tool call. */
  | "tool_result_without_call"
  /** A tool call with no tool message answering it before the next turn. */
  | "unanswered_tool_call"
  /** A tool call without an id, type "function", a name or JSON-object arguments. */
  | "invalid_tool_call"
  /** Two tool calls of the record share an id. */
  | "duplicate_tool_call_id"
  /** `tools` is not a list of function tools with unique names. */
  | "invalid_tools"
  /** A tool call names a tool that `tools` does not offer. */
  | "unknown_tool"
  /** An assistant message's `weight` other than 0 or 1. */
  | "invalid_weight"
  /** The record is over `maxTokens` (estimated). */
  | "too_large"
  /** The export could not turn a stored message into the format (an unsupported content block). */
  | "unsupported_message"
  /** The export could not read the thread back. */
  | "unreadable_thread";

export interface FineTuneRecordProblem {
  code: FineTuneProblemCode;
  /** Where: `messages[3].tool_calls[0].function.arguments`; "" for the record as a whole. */
  path: string;
  message: string;
}

export interface ValidateFineTuneRecordOptions {
  /**
   * Largest record, in tokens estimated as one per four characters of its JSON (default 65,536,
   * the per-example limit of OpenAI's current fine-tunable chat models). Set it to your model's.
   */
  maxTokens?: number;
}

export const DEFAULT_MAX_RECORD_TOKENS = 65_536;

const maxTokensSchema = z.object({
  maxTokens: z.optional(integerAtLeast(1, "must be an integer >= 1", described)),
});

/** `options.maxTokens`, or the default; a `StudioValidationError` when it is not a count. */
export function maxTokensOf(options: ValidateFineTuneRecordOptions): number {
  const { maxTokens } = parseFields(maxTokensSchema, { maxTokens: options.maxTokens ?? undefined });
  return maxTokens ?? DEFAULT_MAX_RECORD_TOKENS;
}

const RECORD_FIELDS = new Set(["messages", "tools", "parallel_tool_calls"]);

/** The fields each role may carry in OpenAI's chat fine-tuning format. */
const MESSAGE_FIELDS: Record<string, ReadonlySet<string>> = {
  system: new Set(["role", "content", "name"]),
  user: new Set(["role", "content", "name"]),
  assistant: new Set(["role", "content", "name", "tool_calls", "weight"]),
  tool: new Set(["role", "content", "tool_call_id"]),
};

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

function isJsonObjectText(text: string): boolean {
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
}

class Problems {
  readonly list: FineTuneRecordProblem[] = [];

  add(code: FineTuneProblemCode, path: string, message: string): void {
    this.list.push({ code, path, message });
  }
}

/** The names of `tools`, or undefined when the record offers none. */
function checkTools(tools: unknown, problems: Problems): Set<string> | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) {
    problems.add("invalid_tools", "tools", "must be a list of tools");
    return undefined;
  }
  const names = new Set<string>();
  tools.forEach((tool, i) => {
    const fn = isObject(tool) ? tool.function : undefined;
    if (!isObject(tool) || tool.type !== "function" || !isObject(fn)) {
      problems.add("invalid_tools", `tools[${i}]`, 'must be { type: "function", function: {...} }');
      return;
    }
    if (!isNonEmptyString(fn.name)) {
      problems.add("invalid_tools", `tools[${i}].function.name`, "must be a non-empty string");
      return;
    }
    if (fn.parameters !== undefined && !isObject(fn.parameters)) {
      problems.add("invalid_tools", `tools[${i}].function.parameters`, "must be a JSON schema");
    }
    if (names.has(fn.name)) {
      problems.add("invalid_tools", `tools[${i}].function.name`, `"${fn.name}" is offered twice`);
    }
    names.add(fn.name);
  });
  return names;
}

/** Whether `content` has something to read; problems for content of the wrong shape. */
function checkContent(role: string, content: unknown, path: string, problems: Problems): boolean {
  if (content === undefined || content === null) return false;
  if (typeof content === "string") return content.trim() !== "";
  if (!Array.isArray(content)) {
    problems.add("invalid_content", path, "must be a string or a list of content parts");
    return true;
  }
  let readable = false;
  content.forEach((part, j) => {
    const at = `${path}[${j}]`;
    if (isObject(part) && part.type === "text" && typeof part.text === "string") {
      readable ||= part.text.trim() !== "";
    } else if (
      role === "user" &&
      isObject(part) &&
      part.type === "image_url" &&
      isObject(part.image_url) &&
      isNonEmptyString(part.image_url.url)
    ) {
      readable = true;
    } else {
      const allowed = role === "user" ? "text and image_url parts" : "text parts";
      problems.add("invalid_content", at, `a ${role} message takes ${allowed} only`);
    }
  });
  return readable;
}

/** Checks an assistant's tool calls; returns their ids. */
function checkToolCalls(
  calls: unknown,
  path: string,
  offered: Set<string> | undefined,
  allIds: Set<string>,
  problems: Problems,
): string[] {
  if (!Array.isArray(calls)) {
    problems.add("invalid_tool_call", path, "must be a list of tool calls");
    return [];
  }
  const ids: string[] = [];
  calls.forEach((call, k) => {
    const at = `${path}[${k}]`;
    if (!isObject(call)) {
      problems.add("invalid_tool_call", at, "must be an object");
      return;
    }
    if (!isNonEmptyString(call.id)) {
      problems.add("invalid_tool_call", `${at}.id`, "must be a non-empty string");
    } else if (allIds.has(call.id)) {
      problems.add("duplicate_tool_call_id", `${at}.id`, `"${call.id}" is used by another call`);
    } else {
      allIds.add(call.id);
      ids.push(call.id);
    }
    if (call.type !== "function") {
      problems.add("invalid_tool_call", `${at}.type`, 'must be "function"');
    }
    const fn = call.function;
    if (!isObject(fn) || !isNonEmptyString(fn.name)) {
      problems.add("invalid_tool_call", `${at}.function.name`, "must be a non-empty string");
      return;
    }
    if (typeof fn.arguments !== "string" || !isJsonObjectText(fn.arguments)) {
      problems.add(
        "invalid_tool_call",
        `${at}.function.arguments`,
        "must be a JSON object written as a string",
      );
    }
    if (offered && !offered.has(fn.name)) {
      problems.add("unknown_tool", `${at}.function.name`, `"${fn.name}" is not among the tools`);
    }
  });
  return ids;
}

/**
 * The problems a fine-tuning service would refuse `record` for, in OpenAI's chat format
 * (`{ messages, tools? }`): role order, a missing final assistant turn, tool results without
 * calls and calls without results, empty content, unknown fields, size. Empty when valid.
 */
export function validateFineTuneRecord(
  record: unknown,
  options: ValidateFineTuneRecordOptions = {},
): FineTuneRecordProblem[] {
  const maxTokens = maxTokensOf(options);
  const problems = new Problems();
  if (!isObject(record)) {
    problems.add("not_an_object", "", "a record must be an object { messages, tools? }");
    return problems.list;
  }
  for (const key of Object.keys(record)) {
    if (!RECORD_FIELDS.has(key)) problems.add("unknown_field", key, "is not a field of a record");
  }
  const offered = checkTools(record.tools, problems);
  const messages = record.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    problems.add("no_messages", "messages", "must be a non-empty list of messages");
    return problems.list;
  }

  const allIds = new Set<string>();
  // Calls of the latest assistant turn still waiting for their tool message.
  let waiting: { ids: Set<string>; path: string } | undefined;
  let started = false;
  const closeTurn = () => {
    if (waiting && waiting.ids.size > 0) {
      problems.add(
        "unanswered_tool_call",
        `${waiting.path}.tool_calls`,
        `no tool message answers ${[...waiting.ids].join(", ")} before the next turn`,
      );
    }
    waiting = undefined;
  };

  messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    if (!isObject(message)) {
      problems.add("invalid_message", path, "must be an object { role, content }");
      return;
    }
    const role = message.role;
    const fields = typeof role === "string" ? MESSAGE_FIELDS[role] : undefined;
    if (fields === undefined) {
      problems.add(
        "unknown_role",
        `${path}.role`,
        `must be "system", "user", "assistant" or "tool" (got ${JSON.stringify(role)})`,
      );
      return;
    }
    for (const key of Object.keys(message)) {
      if (!fields.has(key)) {
        problems.add("unknown_field", `${path}.${key}`, `is not a field of a ${role} message`);
      }
    }
    if (role === "system" && started) {
      problems.add("role_order", path, "system messages must come before the conversation");
    } else if (role !== "system" && !started) {
      started = true;
      if (role !== "user") {
        problems.add("role_order", path, "the conversation must open with a user message");
      }
    }
    if (role !== "tool") closeTurn();

    const hasText = checkContent(role as string, message.content, `${path}.content`, problems);
    const calls = role === "assistant" ? message.tool_calls : undefined;
    const callsSomething = Array.isArray(calls) && calls.length > 0;
    // A tool that returned nothing is a result all the same (issue 29): the chat API takes an
    // empty string, and the model learns from the turn that follows it. Only a missing one is not.
    const toolAnswered =
      role === "tool" && message.content !== undefined && message.content !== null;
    if (!hasText && !callsSomething && !toolAnswered) {
      problems.add("empty_content", `${path}.content`, "must not be empty");
    }
    if (calls !== undefined) {
      const ids = checkToolCalls(calls, `${path}.tool_calls`, offered, allIds, problems);
      waiting = { ids: new Set(ids), path };
    }
    if (message.weight !== undefined && message.weight !== 0 && message.weight !== 1) {
      problems.add("invalid_weight", `${path}.weight`, "must be 0 or 1");
    }
    if (role === "tool") {
      const id = message.tool_call_id;
      if (!isNonEmptyString(id)) {
        problems.add("tool_result_without_call", `${path}.tool_call_id`, "is required");
      } else if (!waiting?.ids.delete(id)) {
        problems.add(
          "tool_result_without_call",
          `${path}.tool_call_id`,
          `"${id}" answers no unanswered tool call of the assistant turn before it`,
        );
      }
    }
  });

  const last = messages.at(-1);
  if (!isObject(last) || last.role !== "assistant") {
    problems.add(
      "missing_final_assistant",
      `messages[${messages.length - 1}]`,
      "the last message must be the assistant's",
    );
    closeTurn();
  }
  // A final assistant turn may end on tool calls: the record teaches the model to make them.

  let json: string;
  try {
    json = JSON.stringify(record);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    problems.add("invalid_message", "", `the record cannot be written as JSON (${reason})`);
    return problems.list;
  }
  const tokens = estimateTokens(json);
  if (tokens > maxTokens) {
    problems.add("too_large", "", `about ${tokens} tokens, over the limit of ${maxTokens}`);
  }
  return problems.list;
}
