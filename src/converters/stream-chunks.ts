/**
 * Pure conversion of streamed chat completion chunks to LangChain: one `AIMessageChunk` per
 * choice's delta, then the final chunks (`ChatStreamState`) with what the stream said about the
 * whole response. The sum of a stream's chunks equals the `AIMessage` of the same answer
 * unstreamed.
 */
import {
  AIMessageChunk,
  type AIMessageChunkFields,
  type InvalidToolCall,
  type ToolCall,
  type ToolCallChunk,
  type UsageMetadata,
} from "@langchain/core/messages";
import type { ChatCompletionChunk } from "../api-types";
import {
  type CompleteToolCall,
  finalResponseMetadata,
  MODEL_PROVIDER,
  parseStudioToolCalls,
  refusalText,
} from "./completion";
import { convertUsage } from "./usage";

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
  /** Serialized as core's class, so that core's `load` reads a streamed message back. */
  override get lc_id(): string[] {
    return [...this.lc_namespace, "AIMessageChunk"];
  }

  constructor(fields: ConstructorParameters<typeof AIMessageChunk>[0]) {
    const plain = plainTextFields(fields);
    super(plain ? plain.content : fields);
    if (plain) adoptFields(this, plain);
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

/** The fields of a text-only chunk: what a delta of text and every sum of text chunks carry. */
interface PlainTextFields {
  content: string;
  id?: string | undefined;
  name?: string | undefined;
  additional_kwargs?: Record<string, unknown> | undefined;
  response_metadata?: Record<string, unknown> | undefined;
  usage_metadata?: UsageMetadata | undefined;
  tool_calls?: readonly unknown[] | undefined;
  tool_call_chunks?: readonly unknown[] | undefined;
  invalid_tool_calls?: readonly unknown[] | undefined;
}

const PLAIN_TEXT_KEYS = new Set([
  "content",
  "id",
  "name",
  "additional_kwargs",
  "response_metadata",
  "usage_metadata",
  "tool_calls",
  "tool_call_chunks",
  "invalid_tool_calls",
]);

/**
 * The fields when they hold text and nothing core's constructor must work on (no tool calls or
 * fragments, no other keys), else undefined. Why this exists: core builds a chunk from fields
 * as `{ ...fields, tool_calls: [], ... }` and then adds keys to that object; on Node 20's V8 an
 * object spread followed by added keys takes a slow path, about 5-10 µs per object (measured),
 * more than the rest of a streamed chunk's cost. A stream builds two per token (the delta's chunk
 * and core's running sum), so text chunks are built from their text and given their fields after.
 */
function plainTextFields(fields: unknown): PlainTextFields | undefined {
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) return undefined;
  const candidate = fields as PlainTextFields;
  if (typeof candidate.content !== "string") return undefined;
  if ((candidate.tool_calls?.length ?? 0) > 0) return undefined;
  if ((candidate.tool_call_chunks?.length ?? 0) > 0) return undefined;
  for (const key in candidate) if (!PLAIN_TEXT_KEYS.has(key)) return undefined;
  return candidate;
}

/**
 * Gives a chunk built from its text the fields, as core's constructor sets them from fields
 * (tests compare both ways, field by field and serialized): `invalid_tool_calls` and the tool
 * lists stay empty, and `lc_kwargs` holds what core's holds.
 */
function adoptFields(chunk: AIMessageChunk, fields: PlainTextFields): void {
  const additionalKwargs = fields.additional_kwargs || {};
  const responseMetadata = fields.response_metadata || {};
  chunk.name = fields.name;
  chunk.additional_kwargs = additionalKwargs;
  chunk.response_metadata = responseMetadata;
  chunk.id = fields.id;
  chunk.usage_metadata = fields.usage_metadata;
  const kwargs: Record<string, unknown> = {
    content: fields.content,
    tool_calls: [],
    invalid_tool_calls: [],
    tool_call_chunks: [],
    usage_metadata: fields.usage_metadata,
    additional_kwargs: additionalKwargs,
    response_metadata: responseMetadata,
  };
  if ("id" in fields) kwargs.id = fields.id;
  if ("name" in fields) kwargs.name = fields.name;
  chunk.lc_kwargs = kwargs;
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
  refusal?: unknown;
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
  const refusal = refusalText(delta?.refusal);
  if (content === "" && reasoning === "" && calls.length === 0 && refusal === undefined) {
    return undefined;
  }
  // Only the fields that carry something: core's constructor does work for each one given.
  const fields: AIMessageChunkFields = {
    content,
    response_metadata: { model_provider: MODEL_PROVIDER },
  };
  if (id) fields.id = id;
  if (reasoning !== "" || refusal !== undefined) {
    // Core's concat joins these strings, so the sum holds the whole reasoning and refusal.
    fields.additional_kwargs = {
      ...(reasoning !== "" && { reasoning_content: reasoning }),
      ...(refusal !== undefined && { refusal }),
    };
  }
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
