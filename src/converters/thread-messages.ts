/**
 * The lossless codec between LangChain messages and thread messages.
 *
 * A thread message only has a role (`user` | `assistant`), content items and small string
 * metadata. The readable text goes into the content items (so the thread reads naturally in the
 * dashboard); everything else travels in metadata:
 *   - `lc_type`: the LangChain message type (system, tool... are `user` messages on the wire),
 *   - `lc_id`: the client-made id of the write, used to confirm ambiguous writes,
 *   - `lc_data_0..n`: JSON of `{ data, refs, esc }`, where `data` is core's stored-message data
 *     (`StoredMessage.data`) without what already sits in the content items, `refs` says which
 *     content values the items fill back in, and `esc` which text items are written escaped
 *     because they hold lone surrogates (see `thread-content.ts`).
 * Messages without `lc_type` were written by someone else and load as plain human, AI or system
 * messages (by their role).
 */
import {
  AIMessage,
  type BaseMessage,
  ChatMessage,
  HumanMessage,
  isBaseMessage,
  type MessageContent,
  mapStoredMessageToChatMessage,
  type StoredMessage,
  SystemMessage,
} from "@langchain/core/messages";
import type { ThreadMessage, ThreadMessageInput } from "../api-types";
import { contentItemText, PATHS } from "../api-types";
import { StudioResponseError, StudioValidationError } from "../errors";
import {
  CODEC_KEYS,
  dataEntries,
  type HistoryRecord,
  isHistoryMessage,
  MAX_DATA_CHARS,
  MAX_DATA_KEYS,
  readHistoryRecord,
} from "../records/history-message";
import {
  escapeLoneSurrogates,
  foreignContent,
  hasLoneSurrogate,
  restoreContent,
  splitContent,
  unescapeLoneSurrogates,
} from "./thread-content";

const STORABLE_TYPES = new Set(["human", "ai", "system", "tool", "function", "generic"]);

type Fields = Record<string, unknown>;

/** The record in metadata (`records/history-message.ts`); `esc`: text items written escaped. */
type CodecRecord = HistoryRecord;

function isEmptyObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length === 0;
}

function isEmptyArray(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}

/**
 * The message's fields as core's `StoredMessage.data`, read from the live instance.
 *
 * Not `message.toDict()` (what `mapChatMessagesToStoredMessages` calls): it serializes the
 * constructor arguments, not the fields, so an `id` assigned after construction (as LangGraph and
 * many apps do) is dropped; objects with an `lc` key inside `additional_kwargs` come back wrapped
 * in `__lc_escaped__`; and an AI message built from `contentBlocks` is written as `content_blocks`
 * without `content`, which the stored-message mapper reads back as empty content.
 * Defaults the constructors restore by themselves (`{}`, `[]`) are left out to save room.
 */
function storedFields(message: BaseMessage): Fields {
  const source = message as unknown as Fields;
  const names = ["id", "name", "additional_kwargs", "response_metadata"];
  const type = message.getType();
  if (type === "ai") names.push("tool_calls", "invalid_tool_calls", "usage_metadata");
  if (type === "tool") names.push("tool_call_id", "status", "artifact", "metadata");
  if (type === "generic") names.push("role");
  const fields: Fields = {};
  for (const name of names) {
    const value = source[name];
    if (value === undefined) continue;
    if (isEmptyArray(value) && (name === "tool_calls" || name === "invalid_tool_calls")) continue;
    if (isEmptyObject(value) && (name === "additional_kwargs" || name === "response_metadata")) {
      continue;
    }
    fields[name] = value;
  }
  return fields;
}

/** Dashboard text for a message whose content has nothing readable (e.g. an AI tool call). */
function placeholderText(message: BaseMessage): string {
  const toolCalls = AIMessage.isInstance(message) ? message.tool_calls : undefined;
  if (toolCalls && toolCalls.length > 0) {
    const text = toolCalls.map((call) => `${call.name}(${JSON.stringify(call.args)})`).join("\n");
    return text.length > 1000 ? `${text.slice(0, 999)}…` : text;
  }
  if (Array.isArray(message.content) && message.content.length > 0) {
    return message.content
      .map((block: unknown) =>
        typeof block === "object" && block !== null && "type" in block
          ? `[${String(block.type)}]`
          : "[content]",
      )
      .join(" ");
  }
  return "(empty)";
}

function largestParts(record: CodecRecord): string {
  const sizes: [string, number][] = Object.entries(record.data ?? {}).map(([name, value]) => [
    name,
    JSON.stringify(value)?.length ?? 0,
  ]);
  return sizes
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([name, size]) => `${name} (${size} chars)`)
    .join(", ");
}

/**
 * Encodes one message as a thread message carrying `clientId` as its `lc_id`.
 * Throws `StudioValidationError` (naming `field`) when the message cannot be stored losslessly.
 */
export function encodeMessage(
  message: BaseMessage,
  clientId: string,
  field = "message",
): ThreadMessageInput {
  if (!isBaseMessage(message)) {
    throw new StudioValidationError(
      field,
      "must be a LangChain message (HumanMessage, AIMessage, SystemMessage, ToolMessage...)",
    );
  }
  const type = message.getType();
  if (!STORABLE_TYPES.has(type)) {
    throw new StudioValidationError(
      field,
      `a "${type}" message cannot be stored in a thread; store human, ai, system, tool, ` +
        "function or generic chat messages",
    );
  }
  const { items, stored, refs } = splitContent(message.content);
  const data = storedFields(message);
  if (stored !== undefined) data.content = stored;
  const record: CodecRecord = {};
  if (Object.keys(data).length > 0) record.data = data;
  if (refs.length > 0) record.refs = refs;
  const esc: number[] = [];
  items.forEach((item, index) => {
    if (item.type !== "text" || item.text === undefined || !hasLoneSurrogate(item.text)) return;
    item.text = escapeLoneSurrogates(item.text);
    esc.push(index);
  });
  if (esc.length > 0) record.esc = esc;

  let json = "";
  if (record.data || record.refs || record.esc) {
    try {
      json = JSON.stringify(record);
    } catch (error) {
      throw new StudioValidationError(
        field,
        "cannot be stored: its fields are not JSON " +
          `(${error instanceof Error ? error.message : String(error)}). Keep artifacts and ` +
          "kwargs to plain JSON values.",
      );
    }
  }
  // Pieces, not characters, are what is limited: a piece ends early rather than split a
  // surrogate pair, so a record just under MAX_DATA_CHARS can still need one piece too many.
  const entries = dataEntries(json);
  if (Object.keys(entries).length > MAX_DATA_KEYS) {
    throw new StudioValidationError(
      field,
      `needs ${json.length} characters of metadata besides its text ` +
        `(${Object.keys(entries).length} values), but a thread message holds at most ` +
        `${MAX_DATA_CHARS} (${MAX_DATA_KEYS} values of 512). Largest parts: ` +
        `${largestParts(record)}. Nothing was written; keep large data (artifacts, inline ` +
        "images) out of the message, e.g. pass images by URL.",
    );
  }
  return {
    role: type === "ai" ? "assistant" : "user",
    content: items.length > 0 ? items : [{ type: "text", text: placeholderText(message) }],
    metadata: { [CODEC_KEYS.type]: type, [CODEC_KEYS.clientId]: clientId, ...entries },
  };
}

export interface EncodedMessage {
  clientId: string;
  input: ThreadMessageInput;
}

/**
 * Encodes a batch, each message with a fresh client id. Validates every message before returning
 * anything, so a batch is either fully writable or rejected as a whole (field `messages[i]`).
 */
export function encodeMessages(
  messages: readonly BaseMessage[],
  newClientId: () => string = () => crypto.randomUUID(),
): EncodedMessage[] {
  return messages.map((message, index) => {
    const clientId = newClientId();
    return { clientId, input: encodeMessage(message, clientId, `messages[${index}]`) };
  });
}

/** The client-made id a thread message was written with, if it was written by this codec. */
export function threadMessageClientId(message: ThreadMessage): string | undefined {
  const value = message.metadata?.[CODEC_KEYS.clientId];
  return typeof value === "string" ? value : undefined;
}

function decodeForeign(threadMessage: ThreadMessage): BaseMessage {
  const content = foreignContent(threadMessage.content) as MessageContent;
  const id = threadMessage.id;
  if (threadMessage.role === "assistant") return new AIMessage({ content, id });
  if (threadMessage.role === "user") return new HumanMessage({ content, id });
  // Other tools of the service family write system messages (the notes say to read them so).
  if (threadMessage.role === "system") return new SystemMessage({ content, id });
  // Any other role still loses nothing.
  return new ChatMessage({ content, id, role: threadMessage.role });
}

function decodeOwn(threadMessage: ThreadMessage, type: string): BaseMessage {
  const record = readHistoryRecord(threadMessage.metadata ?? {});
  const data: Fields = { ...record.data };
  const escaped = new Set(record.esc ?? []);
  const items = threadMessage.content.map((item, index) => {
    const text = contentItemText(item);
    if (!escaped.has(index) || text === undefined) return item;
    return { ...item, text: unescapeLoneSurrogates(text) };
  });
  const content = restoreContent(
    "content" in data ? data.content : undefined,
    record.refs ?? [],
    items,
  );
  const message = mapStoredMessageToChatMessage({
    type,
    data: { ...data, content },
  } as unknown as StoredMessage);
  if (AIMessage.isInstance(message)) {
    // AIMessage's constructor rewrites v1 (`output_version: "v1"`) content, appending a block per
    // tool call it does not see there; put back exactly what was stored.
    message.content = content as MessageContent;
    message.tool_calls = (data.tool_calls as AIMessage["tool_calls"]) ?? [];
    message.invalid_tool_calls = (data.invalid_tool_calls as AIMessage["invalid_tool_calls"]) ?? [];
  }
  return message;
}

/**
 * Decodes a thread message. Messages written by this codec come back equal to what was encoded;
 * others load as `HumanMessage` (`user`), `AIMessage` (`assistant`) or `SystemMessage` (`system`)
 * with the thread message id.
 * Throws `StudioResponseError` when a message carries codec metadata that cannot be read back,
 * and `StudioStoredFormatError` for a message a newer version wrote.
 */
export function decodeMessage(threadMessage: ThreadMessage): BaseMessage {
  // A message of a newer format throws StudioStoredFormatError here, before the catch below.
  if (!isHistoryMessage(threadMessage.metadata)) return decodeForeign(threadMessage);
  const type = threadMessage.metadata?.[CODEC_KEYS.type] as string;
  try {
    return decodeOwn(threadMessage, type);
  } catch (error) {
    const where = threadMessage.threadId ? PATHS.messages(threadMessage.threadId) : "thread";
    const reason = error instanceof Error ? error.message : String(error);
    throw new StudioResponseError(
      "GET",
      where,
      `message ${threadMessage.id} has LangChain metadata (${CODEC_KEYS.type} "${type}") that ` +
        `cannot be read back: ${reason}. Its metadata or content was changed outside this ` +
        "package; delete or rewrite that message.",
      { cause: error },
    );
  }
}

/** Decodes a list of thread messages, keeping their order. */
export function decodeMessages(threadMessages: readonly ThreadMessage[]): BaseMessage[] {
  return threadMessages.map(decodeMessage);
}
