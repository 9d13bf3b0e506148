/**
 * The scripted model: deterministic replies so tests can predict every byte (rules in
 * INTERFACE-NOTES.md, last section). Pure functions only; HTTP lives in `completions.ts`.
 */

export interface ScriptMessage {
  role: string;
  text: string;
}

export interface ScriptTool {
  name: string;
  parameters: unknown;
}

export type ScriptToolChoice = "auto" | "none" | "required" | { name: string };

export interface ScriptToolCall {
  name: string;
  arguments: string;
}

export interface ScriptChoice {
  /** null when the choice is a tool call. */
  content: string | null;
  toolCalls: ScriptToolCall[];
  finishReason: "stop" | "length" | "tool_calls";
}

export interface ChatScriptInput {
  messages: ScriptMessage[];
  tools: ScriptTool[];
  toolChoice: ScriptToolChoice;
  maxTokens: number | undefined;
  stop: string[];
  responseFormat:
    | { type: "text" }
    | { type: "json_object" }
    | { type: "json_schema"; schema: unknown };
}

const SYSTEM_PREFIX_CHARS = 40;
const TOOL_WORDS = /\b(tool|call|use)\b/i;

/** A token is a word (run of non-whitespace) or a run of whitespace. */
export function tokenize(text: string): string[] {
  return text.match(/\s+|\S+/g) ?? [];
}

/** About one token per four characters, at least one. */
export function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

/** The untruncated reply text of a chat conversation. */
export function chatReplyText(messages: readonly ScriptMessage[]): string {
  const system = messages.find((m) => m.role === "system" || m.role === "developer");
  const prefix = system
    ? `[${Array.from(system.text).slice(0, SYSTEM_PREFIX_CHARS).join("")}] `
    : "";
  const last = messages[messages.length - 1];
  if (last?.role === "tool") {
    // Parallel tool calls come back as a run of tool messages; the reply quotes all of them.
    const results: string[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i]?.role === "tool"; i--) {
      results.unshift(messages[i]!.text);
    }
    return `${prefix}Tool said: ${results.join("; ")}`;
  }
  return `${prefix}You said: ${lastUserText(messages)}`;
}

export function lastUserText(messages: readonly ScriptMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user") return m.text;
  }
  return "";
}

/** Cuts at the first stop string, then at `maxTokens` tokens; says which limit ended it. */
export function applyLimits(
  text: string,
  maxTokens: number | undefined,
  stop: readonly string[],
): { text: string; finishReason: "stop" | "length" } {
  let cut = text;
  let at = -1;
  for (const s of stop) {
    if (!s) continue;
    const i = text.indexOf(s);
    if (i !== -1 && (at === -1 || i < at)) at = i;
  }
  if (at !== -1) cut = text.slice(0, at);
  if (maxTokens !== undefined) {
    const tokens = tokenize(cut);
    if (tokens.length > maxTokens) {
      return { text: tokens.slice(0, maxTokens).join(""), finishReason: "length" };
    }
  }
  return { text: cut, finishReason: "stop" };
}

/** The first balanced `{...}` in `text` that parses as a JSON object, exactly as written. */
export function findJsonObject(
  text: string,
): { raw: string; value: Record<string, unknown> } | undefined {
  for (let start = text.indexOf("{"); start !== -1; start = text.indexOf("{", start + 1)) {
    const end = matchingBrace(text, start);
    if (end === -1) continue;
    const raw = text.slice(start, end + 1);
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        return { raw, value: value as Record<string, unknown> };
      }
    } catch {
      // Not JSON after all (prose with braces); keep scanning.
    }
  }
  return undefined;
}

function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** A value matching a JSON schema: numbers 1, strings "x", booleans true, the first enum value. */
export function fillFromSchema(schema: unknown, depth = 0): unknown {
  if (typeof schema !== "object" || schema === null || depth > 8) return {};
  const s = schema as Record<string, unknown>;
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const options = s[key];
    if (Array.isArray(options)) {
      const usable = options.find(
        (o) => !(typeof o === "object" && o !== null && (o as { type?: unknown }).type === "null"),
      );
      if (usable !== undefined) return fillFromSchema(usable, depth + 1);
    }
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "number":
    case "integer":
      return 1;
    case "string":
      return "x";
    case "boolean":
      return true;
    case "null":
      return null;
    case "array":
      return s.items === undefined ? [] : [fillFromSchema(s.items, depth + 1)];
    default: {
      const out: Record<string, unknown> = {};
      const properties = s.properties;
      if (typeof properties === "object" && properties !== null) {
        for (const [name, sub] of Object.entries(properties)) {
          out[name] = fillFromSchema(sub, depth + 1);
        }
      }
      return out;
    }
  }
}

/** Which tools to call, in order; empty for a text reply. */
export function chooseTools(input: ChatScriptInput): ScriptTool[] {
  const { tools, toolChoice, messages } = input;
  if (tools.length === 0 || toolChoice === "none") return [];
  if (typeof toolChoice === "object") {
    const named = tools.find((t) => t.name === toolChoice.name);
    return named ? [named] : [];
  }
  const lastRole = messages[messages.length - 1]?.role;
  // After tool results the model answers in text unless the caller forces a call; otherwise
  // an agent loop against the emulator would never end.
  if (lastRole === "tool" && toolChoice !== "required") return [];
  const text = lastUserText(messages);
  const named = tools
    .map((tool) => ({ tool, at: findName(text, tool.name) }))
    .filter((x) => x.at !== -1)
    .sort((a, b) => a.at - b.at)
    .map((x) => x.tool);
  if (named.length > 0) return named;
  if (toolChoice === "required" || TOOL_WORDS.test(text)) return tools.slice(0, 1);
  return [];
}

/** Position of `name` in `text` as a whole identifier (so `get` does not match `get_time`). */
function findName(text: string, name: string): number {
  if (!name) return -1;
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    const before = text[at - 1];
    const after = text[at + name.length];
    if (!isIdentChar(before) && !isIdentChar(after)) return at;
  }
  return -1;
}

function isIdentChar(c: string | undefined): boolean {
  return c !== undefined && /[\w-]/.test(c);
}

/** The reply of one chat choice (all n choices are identical: the model is deterministic). */
export function scriptChat(input: ChatScriptInput): ScriptChoice {
  const calls = chooseTools(input);
  if (calls.length > 0) {
    const found = findJsonObject(lastUserText(input.messages));
    return {
      content: null,
      toolCalls: calls.map((tool) => ({
        name: tool.name,
        arguments: JSON.stringify(found ? found.value : fillFromSchema(tool.parameters)),
      })),
      finishReason: "tool_calls",
    };
  }
  const reply = chatReplyText(input.messages);
  const format = input.responseFormat;
  if (format.type !== "text") {
    const found = findJsonObject(lastUserText(input.messages));
    const content = found
      ? found.raw
      : format.type === "json_schema"
        ? JSON.stringify(fillFromSchema(format.schema))
        : JSON.stringify({ text: reply });
    return { content, toolCalls: [], finishReason: "stop" };
  }
  const limited = applyLimits(reply, input.maxTokens, input.stop);
  return { content: limited.text, toolCalls: [], finishReason: limited.finishReason };
}

/** Text completion: `You said: <prompt>`, limited, with the prompt in front when echoing. */
export function scriptText(input: {
  prompt: string;
  maxTokens: number | undefined;
  stop: string[];
  echo: boolean;
}): { text: string; finishReason: "stop" | "length" } {
  const limited = applyLimits(`You said: ${input.prompt}`, input.maxTokens, input.stop);
  return {
    text: input.echo ? input.prompt + limited.text : limited.text,
    finishReason: limited.finishReason,
  };
}
