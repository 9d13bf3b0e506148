/**
 * Reading a completion request: every field the spec lists is checked (each failure a 400 naming
 * the field), what OpenAI-compatible servers refuse is refused the same way (notes, "Errors"),
 * and the chat messages, tools and formats are turned into the scripted model's input.
 */
import type { Model } from "../api-types";
import { HttpError, invalid } from "./http-error";
import type {
  ChatScriptInput,
  ScriptMessage,
  ScriptTool,
  ScriptToolChoice,
} from "./scripted-model";
import {
  describe,
  isObject,
  type Json,
  MODEL_URI,
  optionalBoolean,
  optionalInteger,
  optionalNumber,
} from "./validate";

/** More choices than this is a typo, not a test; it would only burn the emulator's CPU. */
const MAX_N = 128;

export interface Sampling {
  model: string;
  n: number;
  maxTokens: number | undefined;
  stop: string[];
  stream: boolean;
  /** Streams end with a usage chunk only when asked, as servers of this family do. */
  includeUsage: boolean;
  echo: boolean;
  /** The model's window in tokens (`extra_args.max_model_len`); undefined when it declares none. */
  contextLength: number | undefined;
}

export function readSampling(body: Json, models: readonly Model[]): Sampling {
  const model = body.model;
  if (model === undefined || model === null) throw invalid("model", "is required", "missing_field");
  if (typeof model !== "string" || !MODEL_URI.test(model)) {
    throw invalid(
      "model",
      `must be a model uri shaped "<owner>/<model-name>" (got ${describe(model)})`,
    );
  }
  const entry = models.find((m) => m.uri === model);
  if (!entry) {
    throw new HttpError(
      404,
      `model ${JSON.stringify(model)} not found; list the models with ListPublicModels (e.g. ` +
        `"studio/echo-small")`,
      { code: "model_not_found", param: "model" },
    );
  }
  optionalNumber(body, "temperature", { min: 0, max: 2 });
  optionalNumber(body, "top_p", { min: 0, max: 1, minExclusive: true });
  optionalNumber(body, "presence_penalty");
  optionalNumber(body, "frequency_penalty");
  optionalNumber(body, "penalty");
  const logitBias = body.logit_bias;
  if (logitBias !== undefined && logitBias !== null) {
    if (!isObject(logitBias)) throw invalid("logit_bias", "must be an object of token to number");
    for (const [token, bias] of Object.entries(logitBias)) {
      if (typeof bias !== "number")
        throw invalid(`logit_bias.${token}`, `must be a number (got ${describe(bias)})`);
    }
  }
  const stream = optionalBoolean(body, "stream") ?? false;
  return {
    model,
    n: optionalInteger(body, "n", { min: 1, max: MAX_N }) ?? 1,
    maxTokens: optionalInteger(body, "max_tokens", { min: 1 }),
    stop: readStop(body.stop),
    stream,
    includeUsage: readIncludeUsage(body.stream_options, stream),
    echo: optionalBoolean(body, "echo") ?? false,
    contextLength: contextLengthOf(entry),
  };
}

function contextLengthOf(model: Model): number | undefined {
  const length = Number(model.meta?.metadata?.extra_args?.max_model_len);
  return Number.isInteger(length) && length > 0 ? length : undefined;
}

/** The 400 of a prompt over the model's window, in the words of OpenAI-compatible servers. */
export function checkContextLength(
  sampling: Sampling,
  promptTokens: number,
  what: "messages" | "prompt",
): void {
  const limit = sampling.contextLength;
  if (limit === undefined || promptTokens <= limit) return;
  throw new HttpError(
    400,
    `This model's maximum context length is ${limit} tokens. However, your ${what} resulted in ` +
      `${promptTokens} tokens. Please reduce the length of the ${what}.`,
    { code: "context_length_exceeded", param: what },
  );
}

function readIncludeUsage(value: unknown, stream: boolean): boolean {
  if (value === undefined || value === null) return false;
  if (!isObject(value))
    throw invalid("stream_options", `must be an object (got ${describe(value)})`);
  if (!stream) {
    // OpenAI's words; vLLM refuses it too ("Stream options can only be defined when stream=True").
    throw new HttpError(
      400,
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      { param: "stream_options", code: "invalid_value" },
    );
  }
  return optionalBoolean(value, "include_usage", "stream_options.include_usage") ?? false;
}

/** The spec says string[]; OpenAI clients may send one string, which is read as a list of one. */
function readStop(stop: unknown): string[] {
  if (stop === undefined || stop === null) return [];
  if (typeof stop === "string") return [stop];
  if (!Array.isArray(stop) || stop.some((s) => typeof s !== "string")) {
    throw invalid("stop", `must be an array of strings (got ${describe(stop)})`);
  }
  return stop as string[];
}

/** `strictToolMessages`: refuse tool calls and tool results that do not pair up, as servers do. */
export function readChatInput(
  body: Json,
  sampling: Sampling,
  strictToolMessages: boolean,
): ChatScriptInput {
  const raw = body.messages;
  if (raw === undefined || raw === null) throw invalid("messages", "is required", "missing_field");
  if (!Array.isArray(raw) || raw.length === 0)
    throw invalid("messages", "must be a non-empty array");
  const messages = raw.map((m, i) => readChatMessage(m, `messages[${i}]`));
  if (strictToolMessages) checkToolResponses(raw as Json[]);
  const tools = readTools(body.tools);
  return {
    messages,
    tools,
    toolChoice: readToolChoice(body.tool_choice, tools),
    maxTokens: sampling.maxTokens,
    stop: sampling.stop,
    responseFormat: readResponseFormat(body.response_format),
  };
}

/** The roles OpenAI's chat completions take, in the order its 400 lists them. */
const ROLES = ["system", "assistant", "user", "function", "tool", "developer"];
/** OpenAI's rule for function (tool) names. */
const TOOL_NAME = /^[a-zA-Z0-9_-]+$/;
const TOOL_NAME_MAX = 64;

const quote = (text: string) => `'${text}'`;

function readChatMessage(value: unknown, path: string): ScriptMessage {
  if (!isObject(value)) throw invalid(path, `must be an object (got ${describe(value)})`);
  const role = value.role;
  if (typeof role !== "string" || role === "")
    throw invalid(`${path}.role`, "is required and must be a string");
  if (!ROLES.includes(role)) {
    throw new HttpError(
      400,
      `Invalid value: ${quote(role)}. Supported values are: ` +
        `${ROLES.slice(0, -1).map(quote).join(", ")}, and ${quote(ROLES.at(-1)!)}.`,
      { param: `${path}.role`, code: "invalid_value" },
    );
  }
  const toolCalls = readCalledNames(value.tool_calls, `${path}.tool_calls`);
  const content = value.content;
  if (typeof content === "string") return { role, text: content, toolCalls };
  if (content === undefined || content === null) {
    // Assistant turns that only call tools (or only refuse) carry no content; any other
    // assistant turn must, as OpenAI says in these words.
    if (role === "assistant") {
      if (
        toolCalls.length > 0 ||
        isObject(value.function_call) ||
        typeof value.refusal === "string"
      )
        return { role, text: "", toolCalls };
      throw new HttpError(400, "Invalid value for 'content': expected a string, got null.", {
        param: `${path}.content`,
        code: "invalid_value",
      });
    }
    throw invalid(`${path}.content`, "is required", "missing_field");
  }
  if (!Array.isArray(content)) {
    throw invalid(
      `${path}.content`,
      `must be a string or an array of content parts (got ${describe(content)})`,
    );
  }
  const texts: string[] = [];
  content.forEach((part, j) => {
    if (!isObject(part) || typeof part.type !== "string") {
      throw invalid(`${path}.content[${j}].type`, "is required and must be a string");
    }
    if (part.type === "text") {
      if (typeof part.text !== "string")
        throw invalid(`${path}.content[${j}].text`, "must be a string");
      texts.push(part.text);
    }
  });
  return { role, text: texts.join(" "), toolCalls };
}

/**
 * Every tool call of an assistant message must be answered by the tool messages right after it,
 * and every tool message must answer a call of that run: OpenAI-compatible servers refuse
 * anything else with these exact words (LangChain's human-in-the-loop "reject" of one call among
 * auto-approved ones sends such a conversation). The messages' shapes are already checked.
 */
function checkToolResponses(messages: readonly Json[]): void {
  let unanswered: string[] = [];
  let opener = -1;
  const refuseUnanswered = () =>
    new HttpError(
      400,
      "An assistant message with 'tool_calls' must be followed by tool messages responding to " +
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: " +
        `${unanswered.join(", ")}`,
      { param: `messages[${opener}].tool_calls` },
    );
  messages.forEach((message, i) => {
    if (message.role === "tool") {
      const id = message.tool_call_id;
      const at = typeof id === "string" ? unanswered.indexOf(id) : -1;
      if (at === -1) {
        throw new HttpError(
          400,
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding " +
            "message with 'tool_calls'.",
          { param: `messages[${i}].tool_call_id` },
        );
      }
      unanswered.splice(at, 1);
      return;
    }
    if (unanswered.length > 0) throw refuseUnanswered();
    const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Json[]) : [];
    unanswered = calls.map((call, j) => {
      if (typeof call.id !== "string" || call.id === "")
        throw invalid(`messages[${i}].tool_calls[${j}].id`, "is required and must be a string");
      return call.id;
    });
    opener = i;
  });
  if (unanswered.length > 0) throw refuseUnanswered();
}

/**
 * The names of the tools an assistant message called (the scripted model calls each once a turn).
 */
function readCalledNames(value: unknown, path: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid(path, `must be an array (got ${describe(value)})`);
  return value.map((call, i) => {
    if (!isObject(call) || !isObject(call.function) || typeof call.function.name !== "string") {
      throw invalid(`${path}[${i}].function.name`, "is required and must be a string");
    }
    return call.function.name;
  });
}

function readTools(value: unknown): ScriptTool[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid("tools", `must be an array (got ${describe(value)})`);
  const firstAt = new Map<string, number>();
  return value.map((tool, i) => {
    if (!isObject(tool) || !isObject(tool.function) || typeof tool.function.name !== "string") {
      throw invalid(`tools[${i}].function.name`, "is required and must be a string");
    }
    if (tool.type !== undefined && tool.type !== "function") {
      throw invalid(`tools[${i}].type`, `must be "function" (got ${describe(tool.type)})`);
    }
    const name = tool.function.name;
    checkToolName(name, `tools[${i}].function.name`);
    const earlier = firstAt.get(name);
    if (earlier !== undefined) {
      // Anthropic ("Tool names must be unique") and Gemini refuse this, also behind
      // OpenAI-compatible gateways; a model could not say which of the two it called.
      throw new HttpError(
        400,
        `Invalid 'tools': tool names must be unique; ${quote(name)} is declared at ` +
          `tools[${earlier}] and tools[${i}].`,
        { param: `tools[${i}].function.name`, code: "invalid_value" },
      );
    }
    firstAt.set(name, i);
    return { name, parameters: tool.function.parameters };
  });
}

/** OpenAI's 400s for a function name, in its words (pattern, then length). */
function checkToolName(name: string, param: string): void {
  if (name.length > TOOL_NAME_MAX) {
    throw new HttpError(
      400,
      `Invalid ${quote(param)}: string too long. Expected a string with maximum length ` +
        `${TOOL_NAME_MAX}, but got a string with length ${name.length} instead.`,
      { param, code: "string_above_max_length" },
    );
  }
  if (!TOOL_NAME.test(name)) {
    throw new HttpError(
      400,
      `Invalid ${quote(param)}: string does not match pattern. Expected a string that matches ` +
        "the pattern '^[a-zA-Z0-9_-]+$'.",
      { param, code: "invalid_value" },
    );
  }
}

function readToolChoice(value: unknown, tools: ScriptTool[]): ScriptToolChoice {
  if (value === undefined || value === null || value === "auto") return "auto";
  if (value === "none") return value;
  const forcing = value === "required" || value === "any" || isObject(value);
  if (forcing && tools.length === 0) {
    // OpenAI's words; vLLM refuses it too. "auto" and "none" without tools stay accepted.
    throw new HttpError(
      400,
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      { param: "tool_choice", code: "invalid_value" },
    );
  }
  // LangChain's `responseFormat` agents send "any", the Anthropic spelling of "required".
  if (value === "required" || value === "any") return "required";
  if (isObject(value) && isObject(value.function) && typeof value.function.name === "string") {
    const name = value.function.name;
    if (!tools.some((t) => t.name === name)) {
      throw invalid(
        "tool_choice.function.name",
        `names ${JSON.stringify(name)}, which is not among tools`,
      );
    }
    return { name };
  }
  throw invalid(
    "tool_choice",
    `must be "auto", "none", "required", "any" or {type: "function", function: {name}} (got ` +
      `${describe(value)})`,
  );
}

function readResponseFormat(value: unknown): ChatScriptInput["responseFormat"] {
  if (value === undefined || value === null) return { type: "text" };
  if (!isObject(value))
    throw invalid("response_format", `must be an object (got ${describe(value)})`);
  if (value.type === "text" || value.type === "json_object") return { type: value.type };
  if (value.type === "json_schema") {
    const spec = value.json_schema;
    if (!isObject(spec)) {
      throw invalid(
        "response_format.json_schema",
        `is required with type "json_schema" and must be an object {name, schema, strict?} (got ` +
          `${describe(spec)})`,
      );
    }
    const name = spec.name;
    if (typeof name !== "string" || name === "")
      throw invalid("response_format.json_schema.name", "is required and must be a string");
    if (spec.schema !== undefined && !isObject(spec.schema)) {
      throw invalid(
        "response_format.json_schema.schema",
        `must be a JSON schema object (got ${describe(spec.schema)})`,
      );
    }
    optionalBoolean(spec, "strict", "response_format.json_schema.strict");
    return { type: "json_schema", schema: spec.schema };
  }
  throw invalid(
    "response_format.type",
    `must be "text", "json_object" or "json_schema" (got ${describe(value.type)})`,
  );
}
