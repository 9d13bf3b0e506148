/**
 * Pure conversions between LangChain messages and the chat completions wire shapes:
 * LangChain messages -> request `messages`, a completion -> `AIMessage`s, a streamed chunk ->
 * `AIMessageChunk`s. No I/O; every function is tested on small input/output cases.
 */
import {
  AIMessage,
  AIMessageChunk,
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
import type { ChatGeneration, ChatGenerationChunk } from "@langchain/core/outputs";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatContentPart,
  ChatMessageParam,
  ToolCall as WireToolCall,
} from "../api-types";
import { StudioValidationError } from "../errors";
import { convertUsage } from "./usage";

export const MODEL_PROVIDER = "studio";

type Choice = ChatCompletion["choices"][number];
type ChunkChoice = ChatCompletionChunk["choices"][number];
type WireToolCallLike = Choice["message"]["tool_calls"] extends (infer T)[] | null | undefined
  ? T
  : never;

// ---------------------------------------------------------------------------------------------
// LangChain -> request
// ---------------------------------------------------------------------------------------------

/**
 * Block types of an AI message that are already sent another way (`tool_calls`) or are the
 * model's own reasoning, which services of this family do not take back as input.
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
  const param: ChatMessageParam & { tool_calls?: WireToolCall[] } = withName(
    { role: "assistant", content: textContent(message.content, where, AI_BLOCKS_SENT_ELSEWHERE) },
    message,
  );
  if (toolCalls.length > 0) param.tool_calls = toolCalls;
  return param;
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
      typeof (value as { url?: unknown }).url === "string"
    ) {
      const { url, detail } = value as { url: string; detail?: unknown };
      return {
        type: "image_url",
        image_url: isDetail(detail) ? { url, detail } : { url },
      };
    }
    throw new StudioValidationError(
      field,
      'an "image_url" block needs image_url.url (a URL or data URL)',
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
  if (sourceType === "url" && typeof block.url === "string") return withDetail(block.url);
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

/** Parses wire tool calls; arguments that are not valid JSON go to `invalid_tool_calls`. */
export function parseStudioToolCalls(raw: readonly WireToolCallLike[] | null | undefined): {
  toolCalls: ToolCall[];
  invalidToolCalls: InvalidToolCall[];
} {
  const toolCalls: ToolCall[] = [];
  const invalidToolCalls: InvalidToolCall[] = [];
  if (!raw) return { toolCalls, invalidToolCalls };
  for (const call of raw) {
    const openAICall = {
      id: call.id,
      type: "function" as const,
      function: { name: call.function.name, arguments: call.function.arguments },
    };
    try {
      const parsed = parseToolCall(openAICall, { returnId: true });
      // Core's parser accepts any JSON; a tool's arguments must be an object, or the tool would
      // be handed a string, an array or null.
      const args: unknown = parsed?.args;
      if (typeof args !== "object" || args === null || Array.isArray(args)) {
        throw new Error(
          `Function "${call.function.name}" arguments are valid JSON but not an object: ${call.function.arguments.slice(0, 200)}`,
        );
      }
      if (parsed) toolCalls.push(parsed);
    } catch (error) {
      invalidToolCalls.push(
        makeInvalidToolCall(openAICall, error instanceof Error ? error.message : String(error)),
      );
    }
  }
  return { toolCalls, invalidToolCalls };
}

/** One choice of a completion to an `AIMessage` carrying the response metadata and usage. */
export function convertChoiceToAIMessage(choice: Choice, completion: ChatCompletion): AIMessage {
  const { toolCalls, invalidToolCalls } = parseStudioToolCalls(choice.message.tool_calls);
  return new AIMessage({
    id: completion.id,
    content: choice.message.content ?? "",
    tool_calls: toolCalls,
    invalid_tool_calls: invalidToolCalls,
    usage_metadata: convertUsage(completion.usage),
    response_metadata: {
      model_provider: MODEL_PROVIDER,
      model_name: completion.model,
      finish_reason: choice.finish_reason,
      id: completion.id,
      created: completion.created,
    },
  });
}

/**
 * A whole completion to one generation per choice, in choice order (`n > 1` gives n). The finish
 * reason is in the message's response metadata only: a `generationInfo` would be spread into
 * that metadata by core on every call (object spreads measured at 2 µs or more here).
 */
export function convertCompletionToChatGenerations(completion: ChatCompletion): ChatGeneration[] {
  const choices =
    completion.choices.length > 1
      ? [...completion.choices].sort((a, b) => a.index - b.index)
      : completion.choices;
  return choices.map((choice) => {
    const message = convertChoiceToAIMessage(choice, completion);
    return {
      // Not `message.text`: that getter rebuilds the content blocks on every read.
      text: choice.message.content ?? "",
      message,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Stream chunk -> LangChain
// ---------------------------------------------------------------------------------------------

/**
 * One choice of a streamed chunk to an `AIMessageChunk`. The model name, id and creation time
 * ride on the chunk that carries the finish reason only: core merges chunk metadata by
 * concatenating strings, so repeating them on every chunk would garble them.
 */
export function convertDeltaToAIMessageChunk(
  choice: ChunkChoice,
  chunk: ChatCompletionChunk,
  usage?: UsageMetadata,
): AIMessageChunk {
  const delta = choice.delta;
  const content = delta?.content ?? "";
  const rawCalls = delta?.tool_calls;
  const finishReason = choice.finish_reason;
  if ((!rawCalls || rawCalls.length === 0) && usage === undefined) {
    // The streaming hot path (a text token). Core's chunk constructor is about 25x slower given
    // a fields object than given a string (measured: ~5 µs vs ~0.2 µs), so the chunk is built
    // from its text and the id and metadata are set the way core's own `_updateId` does: on the
    // message and on its `lc_kwargs` (the response metadata object is shared by both).
    const message = new AIMessageChunk(content);
    message._updateId(chunk.id);
    const metadata = message.response_metadata;
    metadata.model_provider = MODEL_PROVIDER;
    if (finishReason != null) {
      metadata.model_name = chunk.model;
      metadata.finish_reason = finishReason;
      metadata.id = chunk.id;
      metadata.created = chunk.created;
    }
    return message;
  }
  const toolCallChunks: ToolCallChunk[] = (rawCalls ?? []).map((call) => ({
    type: "tool_call_chunk",
    index: call.index,
    id: call.id,
    name: call.function?.name,
    args: call.function?.arguments,
  }));
  return new AIMessageChunk({
    id: chunk.id,
    content,
    tool_call_chunks: toolCallChunks,
    usage_metadata: usage,
    response_metadata:
      finishReason != null
        ? {
            model_provider: MODEL_PROVIDER,
            model_name: chunk.model,
            finish_reason: finishReason,
            id: chunk.id,
            created: chunk.created,
          }
        : { model_provider: MODEL_PROVIDER },
  });
}

/** A usage-only chunk (empty `choices`) to an empty `AIMessageChunk` holding the usage. */
export function convertUsageToAIMessageChunk(
  chunk: ChatCompletionChunk,
): AIMessageChunk | undefined {
  const usage = convertUsage(chunk.usage);
  if (!usage) return undefined;
  return new AIMessageChunk({
    id: chunk.id,
    content: "",
    usage_metadata: usage,
    response_metadata: { model_provider: MODEL_PROVIDER },
  });
}

/**
 * Adds one streamed chunk to the running generation of its choice (`generationInfo.completion`),
 * so `invoke` with `streaming: true` still gives one generation per choice when `n > 1`.
 */
export function addChunkToChoices(
  byChoice: Map<number, ChatGenerationChunk>,
  chunk: ChatGenerationChunk,
): void {
  const index = Number(chunk.generationInfo?.completion ?? 0);
  const previous = byChoice.get(index);
  byChoice.set(index, previous ? previous.concat(chunk) : chunk);
}

/** The generations collected by `addChunkToChoices`, in choice order. */
export function choicesInOrder(
  byChoice: ReadonlyMap<number, ChatGenerationChunk>,
): ChatGenerationChunk[] {
  return [...byChoice.entries()].sort(([a], [b]) => a - b).map(([, chunk]) => chunk);
}
