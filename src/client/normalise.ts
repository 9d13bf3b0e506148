/**
 * Completion answers: tolerant in, one normal shape out (the shapes are in api-types.ts).
 *
 * OpenAI-compatible servers differ in what they leave out and how they spell it. Each schema below
 * accepts every spelling seen from real servers and normalises it, so callers see one shape:
 * - `id`, `created`, `model` may be missing (or "" for id and model): left out.
 * - a choice without `index` takes its position; a missing or "" `finish_reason` is null.
 * - message `content` may be missing (null), a string, or an array of parts: text parts become the
 *   text, `thinking`/`reasoning` parts become `reasoning_content`, never text.
 * - `reasoning` and `reasoning_content` both become `reasoning_content`.
 * - tool calls: "" id/type/name count as absent; `arguments` sent as an object is re-serialised.
 *   Stream deltas without `index` get one in the stream stage (stream.ts), which has the state
 *   that takes (earlier fragments of the same choice).
 * - `usage` without `total_tokens` gets it computed; extra members are kept.
 * What would make the answer wrong or ambiguous (a wrong type, a negative count) is refused.
 */
import * as z from "zod/v4/mini";
import type {
  ChatCompletion,
  ChatCompletionChoice,
  ChatCompletionDelta,
  ChatCompletionMessage,
  CompletionHeader,
  TextCompletion,
  TextCompletionChoice,
  TextCompletionChunk,
  TextCompletionChunkChoice,
  ToolCall,
  ToolCallDelta,
  Usage,
} from "../api-types";
import { useEnglishMessages } from "../zod-locale";

useEnglishMessages();

const count = z.number().check(z.int(), z.nonnegative());

export const UsageSchema = z.pipe(
  z.looseObject({
    prompt_tokens: count,
    completion_tokens: count,
    total_tokens: z.nullish(count),
    // Cache writes: OpenRouter's `cache_write_tokens`, or Anthropic's member as gateways pass
    // it on.
    cache_creation_input_tokens: z.nullish(count),
    prompt_tokens_details: z.nullish(
      z.looseObject({ cached_tokens: z.nullish(count), cache_write_tokens: z.nullish(count) }),
    ),
    completion_tokens_details: z.nullish(z.looseObject({ reasoning_tokens: z.nullish(count) })),
  }),
  z.transform((usage): Usage => {
    const out = { ...usage } as Usage;
    out.total_tokens = usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens;
    return out;
  }),
);

/** `[{type:"text",text}]` or a string: the text of a thinking part (Magistral nests it). */
const ThinkingTextSchema = z.union([
  z.string(),
  z.array(z.union([z.string(), z.looseObject({ text: z.nullish(z.string()) })])),
]);

const ContentPartSchema = z.looseObject({
  type: z.string(),
  text: z.nullish(z.string()),
  thinking: z.nullish(ThinkingTextSchema),
  reasoning: z.nullish(ThinkingTextSchema),
});
type ContentPart = z.infer<typeof ContentPartSchema>;

const REASONING_PARTS = new Set(["thinking", "reasoning"]);

function thinkingText(value: z.infer<typeof ThinkingTextSchema> | null | undefined): string {
  if (value == null) return "";
  if (typeof value === "string") return value;
  return value.map((part) => (typeof part === "string" ? part : (part.text ?? ""))).join("");
}

/**
 * Parts -> text and reasoning. Parts of other types (references, images in an answer) carry no
 * text of the answer and are left out of both.
 */
function splitParts(parts: readonly ContentPart[]): { text?: string; reasoning: string } {
  let text: string | undefined;
  let reasoning = "";
  for (const part of parts) {
    if (part.type === "text") {
      text = (text ?? "") + (part.text ?? "");
    } else if (REASONING_PARTS.has(part.type)) {
      reasoning += thinkingText(part.thinking ?? part.reasoning ?? part.text);
    }
  }
  return text === undefined ? { reasoning } : { text, reasoning };
}

const ContentSchema = z.nullish(z.union([z.string(), z.array(ContentPartSchema)]));

/** The fields a message and a delta share, before `normaliseText`. */
const messageFields = {
  role: z.nullish(z.string()),
  content: ContentSchema,
  reasoning_content: z.nullish(z.string()),
};

/**
 * The text, reasoning and extra fields of a message or delta, normalised. `reasoning` (Ollama,
 * OpenRouter, Groq) is renamed `reasoning_content` (DeepSeek, xAI); when both are sent (some
 * servers send the same text twice) `reasoning_content` wins.
 */
function normaliseText(value: {
  content?: z.infer<typeof ContentSchema>;
  reasoning_content?: string | null | undefined;
  reasoning?: unknown;
  [extra: string]: unknown;
}): { rest: Record<string, unknown>; content: string | null | undefined; reasoning?: string } {
  const { content, reasoning_content, reasoning, ...rest } = value;
  // A `reasoning` that is not text (an object some servers send) is kept as it came.
  if (reasoning != null && typeof reasoning !== "string") rest.reasoning = reasoning;
  let text: string | null | undefined;
  let fromParts = "";
  if (Array.isArray(content)) {
    const split = splitParts(content);
    text = split.text;
    fromParts = split.reasoning;
  } else {
    text = content;
  }
  const named = reasoning_content || (typeof reasoning === "string" ? reasoning : "");
  const all = named + fromParts;
  return all === "" ? { rest, content: text } : { rest, content: text, reasoning: all };
}

/** Arguments as sent: a JSON string, or (some servers) the object itself. */
const ArgumentsSchema = z.union([z.string(), z.record(z.string(), z.unknown())]);

function argumentsText(value: z.infer<typeof ArgumentsSchema>): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** "" counts as absent (servers send empty ids, types and names on continuation fragments). */
function present(value: string | null | undefined): string | undefined {
  return value ? value : undefined;
}

const ToolCallSchema = z.pipe(
  z.looseObject({
    id: z.nullish(z.string()),
    type: z.nullish(z.string()),
    function: z.looseObject({ name: z.string(), arguments: ArgumentsSchema }),
  }),
  z.transform((call): ToolCall & Record<string, unknown> => {
    const { id, type, function: fn, ...rest } = call;
    // An empty id stays "": the model converter decides what a call without an id becomes.
    return {
      ...rest,
      id: id ?? "",
      type: (type || "function") as "function",
      function: { ...fn, name: fn.name, arguments: argumentsText(fn.arguments) },
    } as ToolCall & Record<string, unknown>;
  }),
);

const ChatCompletionMessageSchema = z.pipe(
  z.looseObject({ ...messageFields, tool_calls: z.nullish(z.array(ToolCallSchema)) }),
  z.transform((message): ChatCompletionMessage => {
    const { role, tool_calls, ...textual } = message;
    const { rest, content, reasoning } = normaliseText(textual);
    const out: ChatCompletionMessage = {
      ...rest,
      role: role || "assistant",
      content: content ?? null,
    };
    if (reasoning !== undefined) out.reasoning_content = reasoning;
    if (tool_calls !== undefined) out.tool_calls = tool_calls;
    return out;
  }),
);

/** A missing or "" finish reason is null: the choice did not say why it ended. */
const FinishReasonSchema = z.pipe(
  z.nullish(z.string()),
  z.transform((reason) => reason || null),
);

/** A choice's `index`, or its position in `choices` when the server left it out. */
function withIndexes<C extends { index?: number | undefined }>(
  choices: readonly C[] | null | undefined,
): (C & { index: number })[] {
  return (choices ?? []).map((choice, position) => ({
    ...choice,
    index: choice.index ?? position,
  }));
}

/** `choices` of an answer or chunk: `index` and `finish_reason` (both tolerant) plus `fields`. */
function choicesSchema<S extends z.core.$ZodShape>(fields: S) {
  return z.array(
    z.looseObject({
      index: z.optional(count),
      finish_reason: FinishReasonSchema,
      ...fields,
    }),
  );
}

/** The fields every answer and chunk share, normalised: absent or "" is left out. */
const headerFields = {
  id: z.nullish(z.string()),
  object: z.nullish(z.string()),
  created: z.nullish(z.number()),
  model: z.nullish(z.string()),
  usage: z.nullish(UsageSchema),
};

/**
 * The shared fields normalised: an empty id or model, and a null `object`, `created` or `usage`,
 * become undefined, so callers test one "absent" value. Assigned rather than deleted: a delete
 * would leave every chunk of a `usage: null` server in V8's slow dictionary mode.
 */
function normaliseHeader<T extends Record<string, unknown>>(value: T): CompletionHeader {
  const out: CompletionHeader = { ...value };
  if (out.id === "" || out.id === null) out.id = undefined;
  if (out.object === null) out.object = undefined;
  if (out.created === null) out.created = undefined;
  if (out.model === "" || out.model === null) out.model = undefined;
  if (out.usage === null) out.usage = undefined;
  return out;
}

export const ChatCompletionSchema = z.pipe(
  z.looseObject({
    ...headerFields,
    choices: choicesSchema({ message: ChatCompletionMessageSchema }),
  }),
  z.transform(
    (completion): ChatCompletion => ({
      ...normaliseHeader(completion),
      choices: withIndexes(completion.choices) as ChatCompletionChoice[],
    }),
  ),
);

export const TextCompletionSchema = z.pipe(
  z.looseObject({
    ...headerFields,
    choices: choicesSchema({ text: z.string() }),
  }),
  z.transform(
    (completion): TextCompletion => ({
      ...normaliseHeader(completion),
      choices: withIndexes(completion.choices) as TextCompletionChoice[],
    }),
  ),
);

/** A tool-call fragment as parsed, before the stream stage has given it its `index`. */
export interface ParsedToolCallDelta {
  index?: number;
  id?: string;
  type?: string;
  function: { name?: string; arguments?: string };
  [extra: string]: unknown;
}

const ToolCallDeltaSchema = z.pipe(
  z.looseObject({
    index: z.nullish(count),
    id: z.nullish(z.string()),
    type: z.nullish(z.string()),
    function: z.nullish(
      z.looseObject({ name: z.nullish(z.string()), arguments: z.nullish(ArgumentsSchema) }),
    ),
  }),
  z.transform((call): ParsedToolCallDelta => {
    const { index, id, type, function: fn, ...rest } = call;
    const outFn: ToolCallDelta["function"] = {};
    if (fn) {
      const { name, arguments: args, ...fnRest } = fn;
      Object.assign(outFn, fnRest);
      if (present(name)) outFn.name = name!;
      if (args != null) outFn.arguments = argumentsText(args);
    }
    const out: ParsedToolCallDelta = { ...rest, function: outFn };
    if (index != null) out.index = index;
    if (present(id)) out.id = id!;
    if (present(type)) out.type = type!;
    return out;
  }),
);

const ChatCompletionDeltaSchema = z.pipe(
  z.looseObject({ ...messageFields, tool_calls: z.nullish(z.array(ToolCallDeltaSchema)) }),
  z.transform((delta) => {
    const { role, tool_calls, ...textual } = delta;
    const { rest, content, reasoning } = normaliseText(textual);
    const out: Omit<ChatCompletionDelta, "tool_calls"> & { tool_calls?: ParsedToolCallDelta[] } = {
      ...rest,
    };
    if (role) out.role = role;
    if (content !== undefined) out.content = content;
    if (reasoning !== undefined) out.reasoning_content = reasoning;
    if (tool_calls && tool_calls.length > 0) out.tool_calls = tool_calls;
    return out;
  }),
);

/**
 * A chat chunk as parsed, before the stream stage gives tool-call fragments their index; the
 * client hands out `ChatCompletionChunk` only.
 */
export const ChatCompletionChunkSchema = z.pipe(
  z.looseObject({
    ...headerFields,
    choices: z.nullish(choicesSchema({ delta: z.nullish(ChatCompletionDeltaSchema) })),
  }),
  z.transform((chunk) => ({
    ...normaliseHeader(chunk),
    choices: withIndexes(chunk.choices).map((choice) => ({ ...choice, delta: choice.delta ?? {} })),
  })),
);
export type ParsedChatCompletionChunk = z.output<typeof ChatCompletionChunkSchema>;

export const TextCompletionChunkSchema = z.pipe(
  z.looseObject({
    ...headerFields,
    choices: z.nullish(choicesSchema({ text: z.nullish(z.string()) })),
  }),
  z.transform(
    (chunk): TextCompletionChunk => ({
      ...normaliseHeader(chunk),
      choices: withIndexes(chunk.choices).map(({ text, ...choice }) =>
        text == null ? choice : { ...choice, text },
      ) as TextCompletionChunkChoice[],
    }),
  ),
);
