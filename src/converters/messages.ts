/**
 * Pure conversion of LangChain messages to the chat completions request's `messages`. No I/O;
 * tested on small input/output cases. The answer's side: `completion.ts` (a whole completion),
 * `stream-chunks.ts` (streamed chunks) and `content-blocks.ts` (standard content blocks).
 */
import type { AIMessage, BaseMessage, MessageContent, ToolCall } from "@langchain/core/messages";
import { ChatMessage, FunctionMessage, ToolMessage } from "@langchain/core/messages";
import { convertLangChainToolCallToOpenAI } from "@langchain/core/output_parsers/openai_tools";
import type { ChatContentPart, ChatMessageParam, ToolCall as WireToolCall } from "../api-types";
import { StudioValidationError } from "../errors";

// ---------------------------------------------------------------------------------------------
// LangChain -> request
// ---------------------------------------------------------------------------------------------

/**
 * Block types of an AI message that are sent another way (tool calls as `tool_calls`, the
 * model's reasoning as `reasoning_content`) or not at all (a refusal); never as text.
 */
const AI_BLOCKS_SENT_ELSEWHERE = new Set([
  "tool_call",
  "tool_call_chunk",
  "invalid_tool_call",
  "tool_use",
  "reasoning",
  "reasoning_content",
  "thinking",
  // A refusal is the model's, kept in the message for the caller; as in ChatOpenAI it is not
  // sent back (the text content carries the conversation).
  "refusal",
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
    `message type "${String(type)}" cannot be sent to the service; use system, human, ai, tool, ` +
      "function or generic chat messages",
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
    "image blocks must carry a url or base64 data with a mimeType; file ids are not supported " +
      "by the service",
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
