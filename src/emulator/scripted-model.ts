/**
 * The scripted model: deterministic replies so tests can predict every byte (rules in
 * INTERFACE-NOTES.md, last section). Pure functions only; HTTP lives in `completions.ts`.
 */

export interface ScriptMessage {
  role: string;
  text: string;
  /** Names of the tools an assistant message called. */
  toolCalls?: string[];
}

export interface ScriptTool {
  name: string;
  parameters: unknown;
}

/** `required` stands for every way of forcing some call (`required`, `any`). */
export type ScriptToolChoice = "auto" | "none" | "required" | { name: string };

export interface ScriptToolCall {
  name: string;
  arguments: string;
  /**
   * Only scripted replies name their ids; the scripted model's calls are numbered on the way out.
   */
  id?: string;
}

export interface ScriptChoice {
  /** null when the choice is a tool call or a refusal. */
  content: string | null;
  /** A scripted refusal: sent as `message.refusal` / `delta.refusal`, beside null content. */
  refusal?: string;
  toolCalls: ScriptToolCall[];
  /** "stop", "length" or "tool_calls"; a scripted reply may name any other. */
  finishReason: string;
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
  return findJsonObjects(text)[0];
}

/**
 * Every balanced `{...}` in `text` that parses as a JSON object, in order. An object found is
 * skipped whole, so the objects nested inside it are not offered again on their own.
 */
export function findJsonObjects(text: string): { raw: string; value: Record<string, unknown> }[] {
  const found: { raw: string; value: Record<string, unknown> }[] = [];
  let start = text.indexOf("{");
  while (start !== -1) {
    const end = matchingBrace(text, start);
    let next = start + 1;
    if (end !== -1) {
      const raw = text.slice(start, end + 1);
      try {
        const value: unknown = JSON.parse(raw);
        if (typeof value === "object" && value !== null && !Array.isArray(value)) {
          found.push({ raw, value: value as Record<string, unknown> });
          next = end + 1;
        }
      } catch {
        // Not JSON after all (prose with braces); keep scanning.
      }
    }
    start = text.indexOf("{", next);
  }
  return found;
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

type Schema = Record<string, unknown>;

function asSchema(value: unknown): Schema | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Schema)
    : undefined;
}

/** Follows a local `$ref` (`#/$defs/X`, `#/definitions/X`), which zod and pydantic schemas use. */
function resolveRef(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return schema;
  let target: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    target = asSchema(target)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return asSchema(target) ?? {};
}

/**
 * Whether a JSON object's keys fit an object schema: no key the schema does not declare, and every
 * required key present. A schema that declares no properties takes any object.
 */
export function fitsSchema(value: Record<string, unknown>, schema: unknown): boolean {
  const s = asSchema(schema);
  if (!s) return true;
  const resolved = resolveRef(s, s);
  const properties = asSchema(resolved.properties);
  if (properties) {
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(properties, key)) return false;
    }
  }
  const required = Array.isArray(resolved.required) ? resolved.required : [];
  return required.every((key) => typeof key === "string" && Object.hasOwn(value, key));
}

/**
 * A value matching a JSON schema: numbers 1, strings "x", booleans true, the first enum value;
 * objects get every declared property, arrays as many items as `minItems` asks (at least one).
 */
export function fillFromSchema(schema: unknown, root: unknown = schema, depth = 0): unknown {
  const raw = asSchema(schema);
  const rootSchema = asSchema(root) ?? {};
  if (!raw || depth > 8) return {};
  const s = resolveRef(raw, rootSchema);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const options = s[key];
    if (Array.isArray(options)) {
      const usable = options.find((o) => asSchema(o)?.type !== "null");
      if (usable !== undefined) return fillFromSchema(usable, root, depth + 1);
    }
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "number":
    case "integer":
      return numberWithin(s);
    case "string":
      return "x".repeat(Math.max(1, typeof s.minLength === "number" ? s.minLength : 1));
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      if (s.items === undefined) return [];
      const count = Math.max(1, typeof s.minItems === "number" ? s.minItems : 1);
      return Array.from({ length: count }, () => fillFromSchema(s.items, root, depth + 1));
    }
    default: {
      const out: Record<string, unknown> = {};
      const properties = asSchema(s.properties);
      if (properties) {
        for (const [name, sub] of Object.entries(properties)) {
          out[name] = fillFromSchema(sub, root, depth + 1);
        }
      }
      return out;
    }
  }
}

/** 1, unless the schema's bounds exclude it. */
function numberWithin(s: Schema): number {
  const min = typeof s.minimum === "number" ? s.minimum : undefined;
  const max = typeof s.maximum === "number" ? s.maximum : undefined;
  if (min !== undefined && min > 1) return s.type === "integer" ? Math.ceil(min) : min;
  if (max !== undefined && max < 1) return s.type === "integer" ? Math.floor(max) : max;
  return 1;
}

/** The first JSON object in `text` that fits `schema`, else one filled from the schema. */
export function argumentsFor(text: string, schema: unknown): { raw: string; value: unknown } {
  const found = findJsonObjects(text).find((o) => fitsSchema(o.value, schema));
  if (found) return found;
  const value = fillFromSchema(schema);
  return { raw: JSON.stringify(value), value };
}

/**
 * Which tools to call, in order; empty for a text reply. The turn is what follows the last user
 * message: before any tool result, the tools named there (else the forced one); after results,
 * one tool named there and not yet called, else (when a call is forced, as `responseFormat`
 * agents force their structured-output tool) the first tool not yet called, else an answer.
 */
export function chooseTools(input: ChatScriptInput): ScriptTool[] {
  const { tools, toolChoice, messages } = input;
  if (tools.length === 0 || toolChoice === "none") return [];
  const lastUser = lastIndexOfRole(messages, "user");
  const turn = messages.slice(lastUser + 1);
  const text = lastUserText(messages);
  const named = tools
    .map((tool) => ({ tool, at: findName(text, tool.name) }))
    .filter((x) => x.at !== -1)
    .sort((a, b) => a.at - b.at)
    .map((x) => x.tool);

  if (!turn.some((m) => m.role === "tool")) {
    if (named.length > 0) return named;
    if (typeof toolChoice === "object") {
      const forced = tools.find((t) => t.name === toolChoice.name);
      return forced ? [forced] : [];
    }
    if (toolChoice === "required" || TOOL_WORDS.test(text)) return tools.slice(0, 1);
    return [];
  }
  // Each tool at most once per turn, so an agent loop against the emulator always ends.
  const called = new Set(turn.flatMap((m) => m.toolCalls ?? []));
  const next = named.find((t) => !called.has(t.name));
  if (next) return [next];
  if (toolChoice !== "auto") {
    const first = tools.find((t) => !called.has(t.name));
    if (first) return [first];
  }
  return [];
}

function lastIndexOfRole(messages: readonly ScriptMessage[], role: string): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === role) return i;
  }
  return -1;
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
  const text = lastUserText(input.messages);
  const calls = chooseTools(input);
  if (calls.length > 0) {
    return {
      content: null,
      toolCalls: calls.map((tool) => ({
        name: tool.name,
        arguments: JSON.stringify(argumentsFor(text, tool.parameters).value),
      })),
      finishReason: "tool_calls",
    };
  }
  const format = input.responseFormat;
  if (format.type === "json_object") {
    return { content: findJsonObject(text)?.raw ?? "{}", toolCalls: [], finishReason: "stop" };
  }
  if (format.type === "json_schema") {
    return { content: argumentsFor(text, format.schema).raw, toolCalls: [], finishReason: "stop" };
  }
  const limited = applyLimits(chatReplyText(input.messages), input.maxTokens, input.stop);
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
