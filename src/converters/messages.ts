/**
 * Pure conversions between LangChain messages and the chat completions wire shapes:
 * LangChain messages -> request `messages`, a completion -> `AIMessage`s, a streamed chunk ->
 * `AIMessageChunk`s. No I/O; every function is tested on small input/output cases.
 */
import {
  AIMessage,
  AIMessageChunk,
  type AIMessageChunkFields,
  type BaseMessage,
  ChatMessage,
  FunctionMessage,
  type InvalidToolCall,
  type MessageContent,
  type ToolCall,
  type ToolCallChunk,
  ToolMessage,
  type UsageMetadata,
} from "@langchain/core/messages";
import {
  convertLangChainToolCallToOpenAI,
  makeInvalidToolCall,
  parseToolCall,
} from "@langchain/core/output_parsers/openai_tools";
import type { ChatGeneration } from "@langchain/core/outputs";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatContentPart,
  ChatMessageParam,
  Usage,
  ToolCall as WireToolCall,
} from "../api-types";
import { StudioValidationError } from "../errors";
import { convertUsage } from "./usage";

export const MODEL_PROVIDER = "studio";

type Choice = ChatCompletion["choices"][number];

// ---------------------------------------------------------------------------------------------
// LangChain -> request
// ---------------------------------------------------------------------------------------------

/**
 * Block types of an AI message that are sent another way: tool calls as `tool_calls`, the
 * model's reasoning as `reasoning_content`; never as text.
 */
const AI_BLOCKS_SENT_ELSEWHERE = new Set([
  "tool_call",
  "tool_call_chunk",
  "invalid_tool_call",
  "tool_use",
  "reasoning",
  "reasoning_content",
  "thinking",
]);

/**
 * LangChain messages to the request's `messages`. Throws `StudioValidationError` naming the
 * message (and block) for anything the service cannot take, instead of silently dropping it.
 */
export function convertMessagesToStudioParams(
  messages: readonly BaseMessage[],
): ChatMessageParam[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new StudioValidationError("messages", "must contain at least one message");
  }
  const params: ChatMessageParam[] = new Array(messages.length);
  for (let i = 0; i < messages.length; i++) {
    params[i] = convertMessageToStudioParam(messages[i] as BaseMessage, i);
  }
  return params;
}

/** One LangChain message to one wire message; `i` is its position, used in error fields. */
export function convertMessageToStudioParam(message: BaseMessage, i: number): ChatMessageParam {
  const where = `messages[${i}]`;
  const type = message?.type;
  switch (type) {
    case "human":
      return withName({ role: "user", content: userContent(message.content, where) }, message);
    case "system":
    case "developer":
      return withName({ role: "system", content: textContent(message.content, where) }, message);
    case "ai":
      return convertAIMessage(message, where);
    case "tool": {
      if (!ToolMessage.isInstance(message) || !message.tool_call_id) {
        throw new StudioValidationError(
          `${where}.tool_call_id`,
          "a tool message needs the id of the tool call it answers",
        );
      }
      return {
        role: "tool",
        tool_call_id: message.tool_call_id,
        content: textContent(message.content, where),
      };
    }
    case "function": {
      const name = FunctionMessage.isInstance(message) ? message.name : undefined;
      if (!name) {
        throw new StudioValidationError(
          `${where}.name`,
          "a function message needs the function name",
        );
      }
      return { role: "function", name, content: textContent(message.content, where) };
    }
    case "generic": {
      if (!ChatMessage.isInstance(message)) break;
      const role = GENERIC_ROLES[message.role] ?? message.role;
      const content =
        role === "user" ? userContent(message.content, where) : textContent(message.content, where);
      return withName({ role, content }, message);
    }
  }
  throw new StudioValidationError(
    where,
    `message type "${String(type)}" cannot be sent to the service; use system, human, ai, tool, function or generic chat messages`,
  );
}

/** LangChain's role names for generic messages, mapped to the wire's. */
const GENERIC_ROLES: Record<string, string> = { human: "user", ai: "assistant" };

function withName<T extends ChatMessageParam>(param: T, message: BaseMessage): T {
  if (message.name) (param as { name?: string }).name = message.name;
  return param;
}

function convertAIMessage(message: BaseMessage, where: string): ChatMessageParam {
  const ai = message as AIMessage;
  const toolCalls: WireToolCall[] = [];
  const calls = ai.tool_calls ?? [];
  for (let k = 0; k < calls.length; k++) {
    const call = calls[k] as ToolCall;
    if (!call.id) {
      throw new StudioValidationError(
        `${where}.tool_calls[${k}].id`,
        "every tool call sent back needs its id (the tool message answering it refers to it)",
      );
    }
    try {
      toolCalls.push(convertLangChainToolCallToOpenAI(call) as WireToolCall);
    } catch (error) {
      throw new StudioValidationError(
        `${where}.tool_calls[${k}].args`,
        `must be JSON-serialisable (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }
  // Calls whose arguments did not parse are still sent back as they came: the tool messages
  // answering them (often an error text) refer to their ids, and an answer to an unknown call
  // is rejected by services of this family.
  for (const invalid of ai.invalid_tool_calls ?? []) {
    if (!invalid.id || !invalid.name) continue;
    toolCalls.push({
      id: invalid.id,
      type: "function",
      function: { name: invalid.name, arguments: invalid.args ?? "" },
    });
  }
  if (toolCalls.length === 0) {
    const legacy = message.additional_kwargs?.tool_calls;
    if (Array.isArray(legacy)) toolCalls.push(...(legacy as WireToolCall[]));
  }
  const param: ChatMessageParam & { tool_calls?: WireToolCall[]; reasoning_content?: string } =
    withName(
      {
        role: "assistant",
        content: textContent(message.content, where, AI_BLOCKS_SENT_ELSEWHERE),
      },
      message,
    );
  if (toolCalls.length > 0) param.tool_calls = toolCalls;
  // Sent back because servers such as DeepSeek's require the reasoning of a tool-calling turn on
  // the next request of the loop.
  const reasoning = reasoningOf(message);
  if (reasoning) param.reasoning_content = reasoning;
  return param;
}

/** An AI message's reasoning: `additional_kwargs.reasoning_content`, else its reasoning blocks. */
function reasoningOf(message: BaseMessage): string {
  const kept = message.additional_kwargs?.reasoning_content;
  if (typeof kept === "string") return kept;
  if (!Array.isArray(message.content)) return "";
  let text = "";
  for (const block of message.content as unknown[]) {
    const { type, reasoning } = (block ?? {}) as { type?: unknown; reasoning?: unknown };
    if (type === "reasoning" && typeof reasoning === "string") text += reasoning;
  }
  return text;
}

/**
 * Text-only content (system, assistant, tool, function). Collapsed to one string because the
 * spec describes `content` as a string; a block that is not text is an error.
 */
function textContent(content: MessageContent, where: string, skip?: ReadonlySet<string>): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) {
    throw new StudioValidationError(
      `${where}.content`,
      "must be a string or an array of content blocks",
    );
  }
  let text = "";
  for (let j = 0; j < content.length; j++) {
    const block: unknown = content[j];
    if (typeof block === "string") {
      text += block;
      continue;
    }
    const type = blockType(block);
    if (type === "text") {
      text += readText(block, `${where}.content[${j}]`);
    } else if (type === undefined || !skip?.has(type)) {
      throw unsupportedBlock(
        `${where}.content[${j}]`,
        type,
        "only text blocks are accepted in this message",
      );
    }
  }
  return text;
}

/**
 * User content: text and images. Images are sent as `image_url` parts (a URL or a data URL),
 * whether they came as the legacy OpenAI block, core's standard image block (`url`, or base64
 * `data` + `mimeType`), or core's older data block (`source_type`). Text-only content is
 * collapsed to a string.
 */
function userContent(content: MessageContent, where: string): string | ChatContentPart[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) {
    throw new StudioValidationError(
      `${where}.content`,
      "must be a string or an array of content blocks",
    );
  }
  const parts: ChatContentPart[] = [];
  let hasImage = false;
  for (let j = 0; j < content.length; j++) {
    const block: unknown = content[j];
    const field = `${where}.content[${j}]`;
    if (typeof block === "string") {
      parts.push({ type: "text", text: block });
      continue;
    }
    const type = blockType(block);
    if (type === "text") {
      parts.push({ type: "text", text: readText(block, field) });
    } else if (type === "image_url" || type === "image") {
      parts.push(convertImageBlock(block as Record<string, unknown>, field));
      hasImage = true;
    } else {
      throw unsupportedBlock(field, type, "the service takes text and image blocks only");
    }
  }
  if (hasImage) return parts;
  let text = "";
  for (const part of parts) text += (part as { text: string }).text;
  return text;
}

function convertImageBlock(block: Record<string, unknown>, field: string): ChatContentPart {
  if (block.type === "image_url") {
    const value = block.image_url;
    if (typeof value === "string" && value) return { type: "image_url", image_url: { url: value } };
    if (
      value &&
      typeof value === "object" &&
      typeof (value as { url?: unknown }).url === "string" &&
      (value as { url: string }).url !== ""
    ) {
      const { url, detail } = value as { url: string; detail?: unknown };
      return {
        type: "image_url",
        image_url: isDetail(detail) ? { url, detail } : { url },
      };
    }
    throw new StudioValidationError(
      field,
      'an "image_url" block needs a non-empty image_url.url (a URL or data URL)',
    );
  }
  const metadata = block.metadata as { detail?: unknown } | undefined;
  const detail = metadata?.detail;
  const withDetail = (url: string): ChatContentPart => ({
    type: "image_url",
    image_url: isDetail(detail) ? { url, detail } : { url },
  });
  // Core's older data blocks say how the image is given in `source_type`.
  const sourceType = block.source_type;
  if (sourceType === "url" && typeof block.url === "string" && block.url) {
    return withDetail(block.url);
  }
  if (sourceType === "base64" && typeof block.data === "string") {
    const mime = block.mime_type ?? block.mimeType;
    if (typeof mime !== "string" || !mime) {
      throw new StudioValidationError(field, "a base64 image needs its mime type (e.g. image/png)");
    }
    return withDetail(`data:${mime};base64,${block.data}`);
  }
  if (sourceType === undefined) {
    if (typeof block.url === "string" && block.url) return withDetail(block.url);
    if (typeof block.data === "string" && block.data) {
      const mime = block.mimeType ?? block.mime_type;
      if (typeof mime !== "string" || !mime) {
        throw new StudioValidationError(field, "a base64 image needs mimeType (e.g. image/png)");
      }
      return withDetail(`data:${mime};base64,${block.data}`);
    }
  }
  throw new StudioValidationError(
    field,
    "image blocks must carry a url or base64 data with a mimeType; file ids are not supported by the service",
  );
}

function isDetail(value: unknown): value is "auto" | "low" | "high" {
  return value === "auto" || value === "low" || value === "high";
}

function blockType(block: unknown): string | undefined {
  if (block === null || typeof block !== "object") return undefined;
  const type = (block as { type?: unknown }).type;
  return typeof type === "string" ? type : undefined;
}

function readText(block: unknown, field: string): string {
  const text = (block as { text?: unknown }).text;
  if (typeof text !== "string") {
    throw new StudioValidationError(field, 'a "text" block needs a string "text"');
  }
  return text;
}

function unsupportedBlock(
  field: string,
  type: string | undefined,
  why: string,
): StudioValidationError {
  const what = type === undefined ? "a block without a type" : `block type "${type}"`;
  return new StudioValidationError(
    field,
    `${what} cannot be sent: ${why}. Remove the block or describe its content in text.`,
  );
}

// ---------------------------------------------------------------------------------------------
// Response -> LangChain
// ---------------------------------------------------------------------------------------------

/** A tool call as the wire carries it once complete (an `id` may be missing on some servers). */
interface CompleteToolCall {
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
          `Function "${call.function.name}" arguments are valid JSON but not an object: ${text.slice(0, 200)}`,
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
  return new AIMessage({
    id: completion.id,
    content: message.content ?? "",
    additional_kwargs:
      typeof reasoning === "string" && reasoning !== "" ? { reasoning_content: reasoning } : {},
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

// ---------------------------------------------------------------------------------------------
// Stream chunk -> LangChain
// ---------------------------------------------------------------------------------------------

/**
 * An `AIMessageChunk` whose final form parses its tool calls strictly. Core derives a chunk's
 * `tool_calls` from its `tool_call_chunks` with a partial-JSON parser, which suits a message
 * still streaming but turns truncated arguments (`{"city": "Par`) into a valid-looking call.
 * Core's `concat` builds the sum with the left chunk's constructor, so every sum of these chunks
 * is one too: while the model name is absent (only the final chunk of a choice carries it), the
 * sum keeps core's partial parse; once it is there, the message is complete and its calls are
 * parsed exactly as a non-streamed reply's (`parseStudioToolCalls`).
 */
export class StudioAIMessageChunk extends AIMessageChunk {
  // Serialized as core's AIMessageChunk, which every loader knows (a checkpoint read back).
  override get lc_id(): string[] {
    return [...this.lc_namespace, "AIMessageChunk"];
  }

  constructor(fields: ConstructorParameters<typeof AIMessageChunk>[0]) {
    super(fields);
    // Core's merge of a chunk with usage and one without leaves empty detail objects behind.
    if (this.usage_metadata) this.usage_metadata = withoutEmptyDetails(this.usage_metadata);
    if (typeof this.response_metadata?.model_name !== "string") return;
    const chunks = this.tool_call_chunks ?? [];
    if (chunks.length === 0) return;
    const { toolCalls, invalidToolCalls } = parseToolCallChunks(chunks);
    this.tool_calls = toolCalls;
    this.invalid_tool_calls = invalidToolCalls;
    // Serialization reads lc_kwargs: keep it in step with the fields.
    this.lc_kwargs.tool_calls = toolCalls;
    this.lc_kwargs.invalid_tool_calls = invalidToolCalls;
  }
}

function withoutEmptyDetails(usage: UsageMetadata): UsageMetadata {
  const { input_token_details, output_token_details, ...counts } = usage;
  const out: UsageMetadata = counts;
  if (input_token_details && Object.keys(input_token_details).length > 0) {
    out.input_token_details = input_token_details;
  }
  if (output_token_details && Object.keys(output_token_details).length > 0) {
    out.output_token_details = output_token_details;
  }
  return out;
}

/** The calls of a complete message's tool-call chunks (joined per index), parsed strictly. */
export function parseToolCallChunks(chunks: readonly ToolCallChunk[]): {
  toolCalls: ToolCall[];
  invalidToolCalls: InvalidToolCall[];
} {
  const calls = new Map<unknown, CompleteToolCall>();
  chunks.forEach((chunk, position) => {
    const key = chunk.index ?? chunk.id ?? `#${position}`;
    const call = calls.get(key);
    if (call === undefined) {
      calls.set(key, {
        id: chunk.id,
        function: { name: chunk.name ?? "", arguments: chunk.args ?? "" },
      });
    } else {
      call.id ??= chunk.id;
      if (!call.function.name && chunk.name) call.function.name = chunk.name;
      call.function.arguments += chunk.args ?? "";
    }
  });
  return parseStudioToolCalls([...calls.values()]);
}

/** A streamed delta as the client hands it over (normalised at the client's boundary). */
interface WireDelta {
  content?: string | null | undefined;
  reasoning_content?: string | undefined;
  tool_calls?:
    | {
        index: number;
        id?: string | undefined;
        function?: { name?: string | undefined; arguments?: string | undefined } | undefined;
      }[]
    | null
    | undefined;
}

/**
 * One choice's delta to an `AIMessageChunk`: text, reasoning (`additional_kwargs.
 * reasoning_content`, never text) and tool-call fragments. An empty delta gives nothing. The
 * per-response fields (model, finish reason, usage) ride on the final chunk only
 * (`ChatStreamState`): core merges chunks by adding numbers and concatenating strings, so
 * repeating them would garble them.
 */
export function convertDeltaToAIMessageChunk(
  delta: WireDelta | undefined,
  id: string | undefined,
): StudioAIMessageChunk | undefined {
  const content = delta?.content ?? "";
  const reasoning = delta?.reasoning_content ?? "";
  const calls = delta?.tool_calls ?? [];
  if (content === "" && reasoning === "" && calls.length === 0) return undefined;
  // Only the fields that carry something: core's constructor does work for each one given.
  const fields: AIMessageChunkFields = {
    content,
    response_metadata: { model_provider: MODEL_PROVIDER },
  };
  if (id) fields.id = id;
  if (reasoning !== "") fields.additional_kwargs = { reasoning_content: reasoning };
  if (calls.length > 0) {
    fields.tool_call_chunks = calls.map((call) => ({
      type: "tool_call_chunk",
      index: call.index,
      id: call.id,
      name: call.function?.name,
      args: call.function?.arguments,
    }));
  }
  return new StudioAIMessageChunk(fields);
}

/**
 * What a stream says about the whole response, gathered chunk by chunk for the final chunks:
 * the first id, model and creation time, each choice's finish reason, and the usage. Servers
 * that send usage on every chunk send a running total, so the last one is kept, never a sum.
 */
export class ChatStreamState {
  #id: string | undefined;
  #model: string | undefined;
  #created: number | undefined;
  #usage: ChatCompletionChunk["usage"];
  readonly #finish = new Map<number, string | null | undefined>();

  constructor(private readonly requestedModel: string) {}

  observe(chunk: ChatCompletionChunk): void {
    this.#id ||= chunk.id || undefined;
    this.#model ||= chunk.model || undefined;
    this.#created ??= chunk.created ?? undefined;
    if (chunk.usage != null) this.#usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (!this.#finish.has(choice.index) || choice.finish_reason != null) {
        this.#finish.set(choice.index, choice.finish_reason);
      }
    }
  }

  get id(): string | undefined {
    return this.#id;
  }

  /**
   * The final chunk of each choice, in index order: the response metadata, and the usage on the
   * first (usage is the request's, not a choice's) when `withUsage`.
   */
  finalChunks(withUsage: boolean): { index: number; message: StudioAIMessageChunk }[] {
    const indexes = [...this.#finish.keys()].sort((a, b) => a - b);
    if (indexes.length === 0) indexes.push(0);
    const usage = withUsage ? this.#usage : undefined;
    const usageMetadata = convertUsage(usage);
    return indexes.map((index, i) => ({
      index,
      message: new StudioAIMessageChunk({
        ...(this.#id ? { id: this.#id } : {}),
        content: "",
        ...(i === 0 && usageMetadata ? { usage_metadata: usageMetadata } : {}),
        response_metadata: finalResponseMetadata({
          model: this.#model ?? this.requestedModel,
          finishReason: this.#finish.get(index),
          id: this.#id,
          created: this.#created,
          usage: i === 0 ? usage : undefined,
        }),
      }),
    }));
  }
}

// ---------------------------------------------------------------------------------------------
// Standard content blocks
// ---------------------------------------------------------------------------------------------

/**
 * `message.contentBlocks` of Studio messages: reasoning first (a `reasoning` block, from
 * `additional_kwargs.reasoning_content`), then text, then tool calls. Core looks translators up
 * by `response_metadata.model_provider` in a registry on `globalThis`, and uses the same one for
 * chunks. A chunk of a message still streaming (no model name yet, see `StudioAIMessageChunk`)
 * has its raw `tool_call_chunk` fragments, indexed so that core's concat joins them, instead of
 * calls guessed from a fragment: v1 chunks then sum to whole calls, as v0 chunks do.
 */
function toStandardBlocks(message: BaseMessage): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  const reasoning = message.additional_kwargs?.reasoning_content;
  if (typeof reasoning === "string" && reasoning !== "") {
    blocks.push({ type: "reasoning", reasoning });
  }
  const text =
    typeof message.content === "string" ? message.content : textOfBlocks(message.content);
  if (text !== "") blocks.push({ type: "text", text });
  if (
    AIMessageChunk.isInstance(message) &&
    typeof message.response_metadata?.model_name !== "string"
  ) {
    for (const { id, name, args, index } of message.tool_call_chunks ?? []) {
      blocks.push({ type: "tool_call_chunk", id, name, args, index });
    }
    return blocks;
  }
  const ai = message as AIMessage;
  for (const call of ai.tool_calls ?? []) {
    blocks.push({ type: "tool_call", id: call.id, name: call.name, args: call.args });
  }
  for (const call of ai.invalid_tool_calls ?? []) {
    blocks.push({ ...call, type: "invalid_tool_call" });
  }
  return blocks;
}

function textOfBlocks(content: readonly unknown[]): string {
  let text = "";
  for (const block of content) {
    const { type, text: value } = (block ?? {}) as { type?: unknown; text?: unknown };
    if (type === "text" && typeof value === "string") text += value;
  }
  return text;
}

/** Registers the translator above once (ChatStudio's constructor calls it). */
export function registerStudioBlockTranslator(): void {
  const registry = (globalThis as { lc_block_translators_registry?: Map<string, unknown> })
    .lc_block_translators_registry;
  if (registry && !registry.has(MODEL_PROVIDER)) {
    registry.set(MODEL_PROVIDER, {
      translateContent: toStandardBlocks,
      translateContentChunk: toStandardBlocks,
    });
  }
}
