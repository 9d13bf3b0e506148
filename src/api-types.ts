/**
 * Wire shapes of the service, as zod schemas plus their inferred types. They mirror the tables of
 * `service-interface.md` and the decisions of `INTERFACE-NOTES.md`.
 *
 * Response schemas are loose objects: fields the spec does not name are kept, not stripped, so a
 * newer service never loses data on the way through. Only the fields the package relies on are
 * required; everything else is optional because the spec does not say which fields are always sent.
 *
 * This module is shared by the client (validating what arrives) and the emulator (validating what
 * it is sent); it must not import anything else from the package but zod-locale.ts (which also
 * says why zod's tree-shakable "mini" API is used).
 */
import * as z from "zod/v4/mini";
import { useEnglishMessages } from "./zod-locale";

useEnglishMessages();

// ---------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------

/**
 * Metadata is key-value pairs; the notes limit it to string values (16 keys, 64/512 chars). Read
 * by copying entries rather than with `z.record`, whose `out[key] = value` copy turns a key named
 * `__proto__` into the prototype and loses it.
 */
export const MetadataSchema = z.pipe(
  z.custom<Record<string, unknown>>(
    (value) => typeof value === "object" && value !== null && !Array.isArray(value),
    { error: "expected an object of key-value pairs" },
  ),
  z.transform((value: Record<string, unknown>) => Object.fromEntries(Object.entries(value))),
);
export type Metadata = Record<string, string>;

export const METADATA_LIMITS = {
  maxKeys: 16,
  maxKeyLength: 64,
  maxValueLength: 512,
} as const;

/**
 * Page object of the remote-call style endpoints. Convention (the spec leaves it open): in a
 * request, `nextPageToken` names the page to fetch ("" = the first page); in a response it names
 * the page after this one ("" = this was the last page).
 */
/** An integer: zod mini spells classic `z.number().int()` as a check. */
function int() {
  return z.number().check(z.int());
}

export const PageSchema = z.looseObject({
  limit: z.optional(int()),
  prevPageToken: z.optional(z.string()),
  nextPageToken: z.optional(z.string()),
  totalPage: z.optional(int()),
});
export type Page = z.infer<typeof PageSchema>;
export interface PageRequest {
  limit: number;
  prevPageToken: string;
  nextPageToken: string;
  totalPage: number;
}

export type SortOrder = "asc" | "desc";

/** Query of the `/v1` list calls (threads, messages, assistants). */
export interface ListQuery {
  limit?: number;
  order?: SortOrder;
  after?: string;
  before?: string;
}

export interface ListThreadsQuery extends ListQuery {
  datasetId?: string;
}

export function listResponseSchema<T extends z.core.$ZodType>(item: T) {
  return z.looseObject({
    object: z.optional(z.string()),
    data: z.array(item),
    firstId: z.nullish(z.string()),
    lastId: z.nullish(z.string()),
    hasMore: z.boolean(),
    datasetId: z.optional(z.string()),
  });
}
export interface ListResponse<T> {
  object?: string | undefined;
  data: T[];
  firstId?: string | null | undefined;
  lastId?: string | null | undefined;
  hasMore: boolean;
  datasetId?: string | undefined;
  [extra: string]: unknown;
}

export const DeletedSchema = z.looseObject({
  id: z.string(),
  object: z.optional(z.string()),
  deleted: z.boolean(),
});
export type Deleted = z.infer<typeof DeletedSchema>;

// ---------------------------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------------------------

export const ModelSchema = z.looseObject({
  id: z.string(),
  name: z.optional(z.string()),
  createdAt: z.optional(z.string()),
  updatedAt: z.optional(z.string()),
  meta: z.optional(
    z.looseObject({
      metadata: z.optional(
        z.looseObject({
          base_model_id: z.optional(z.string()),
          description: z.optional(
            z.looseObject({
              model_size: z.optional(z.string()),
              model_tags: z.optional(z.array(z.string())),
              model_type: z.optional(z.string()),
            }),
          ),
          extra_args: z.optional(z.record(z.string(), z.string())),
        }),
      ),
      quantization: z.optional(z.string()),
      shutdownSettings: z.optional(z.looseObject({ autoShutdownDuration: z.optional(z.string()) })),
      modality: z.optional(z.string()),
    }),
  ),
  resource: z.optional(
    z.looseObject({
      gpu: z.optional(z.string()),
      gpuCount: z.optional(z.string()),
      maxRetries: z.optional(int()),
    }),
  ),
  replicas: z.optional(int()),
  state: z.optional(z.looseObject({ state: z.string() })),
  public: z.optional(z.boolean()),
  uri: z.string(),
  endpoint: z.optional(
    z.looseObject({
      id: z.optional(z.string()),
      url: z.optional(z.string()),
      host: z.optional(z.string()),
    }),
  ),
});
export type Model = z.infer<typeof ModelSchema>;

export interface ListPublicModelsRequest {
  page: PageRequest;
}
export const ListPublicModelsResponseSchema = z.looseObject({
  models: z.array(ModelSchema),
  /** Not in the spec; sent by the emulator and used for paging when present. */
  page: z.optional(PageSchema),
});
export type ListPublicModelsResponse = z.infer<typeof ListPublicModelsResponseSchema>;

// ---------------------------------------------------------------------------------------------
// Completions
// ---------------------------------------------------------------------------------------------

export interface ChatContentPartText {
  type: "text";
  text: string;
}
export interface ChatContentPartImage {
  type: "image_url";
  image_url: { url: string; detail?: "auto" | "low" | "high" };
}
export type ChatContentPart = ChatContentPartText | ChatContentPartImage;

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessageParam =
  | { role: "system"; content: string | ChatContentPartText[]; name?: string }
  | { role: "user"; content: string | ChatContentPart[]; name?: string }
  | {
      role: "assistant";
      content: string | ChatContentPartText[] | null;
      name?: string;
      tool_calls?: ToolCall[];
    }
  | { role: "tool"; content: string | ChatContentPartText[]; tool_call_id: string }
  | { role: "function"; content: string; name: string }
  | { role: string; content: string | ChatContentPart[]; name?: string };

export interface FunctionDefinition {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  strict?: boolean;
}
export interface ChatTool {
  type: "function";
  function: FunctionDefinition;
}
export type ToolChoice =
  | "auto"
  | "none"
  | "required"
  | { type: "function"; function: { name: string } };

/** Fields shared by chat and text completion requests. */
export interface CompletionParams {
  model: string;
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  n?: number;
  stream?: boolean;
  stop?: string[];
  presence_penalty?: number;
  frequency_penalty?: number;
  penalty?: number;
  logit_bias?: Record<string, number>;
  echo?: boolean;
  /** Anything else the caller passes through (`modelKwargs`). */
  [extra: string]: unknown;
}

export interface ChatCompletionRequest extends CompletionParams {
  messages: ChatMessageParam[];
  tools?: ChatTool[];
  tool_choice?: ToolChoice;
  response_format?: { type: "json_object" | "text" } | Record<string, unknown>;
}

export interface TextCompletionRequest extends CompletionParams {
  prompt: string;
}

// ---------------------------------------------------------------------------------------------
// Completion answers: tolerant in, one normal shape out
//
// OpenAI-compatible servers differ in what they leave out and how they spell it. Each schema below
// accepts every spelling seen from real servers and normalises it, so callers see one shape:
// - `id`, `created`, `model` may be missing (or "" for id and model): left out.
// - a choice without `index` takes its position; a missing or "" `finish_reason` is null.
// - message `content` may be missing (null), a string, or an array of parts: text parts become the
//   text, `thinking`/`reasoning` parts become `reasoning_content`, never text.
// - `reasoning` and `reasoning_content` both become `reasoning_content`.
// - tool calls: "" id/type/name count as absent; `arguments` sent as an object is re-serialised.
//   Stream deltas without `index` get one in the stream stage (client/stream.ts), which has the
//   state that takes (earlier fragments of the same choice).
// - `usage` without `total_tokens` gets it computed; extra members are kept.
// What would make the answer wrong or ambiguous (a wrong type, a negative count) is refused.
// ---------------------------------------------------------------------------------------------

const tokenCount = int().check(z.nonnegative());

export const UsageSchema = z.pipe(
  z.looseObject({
    prompt_tokens: tokenCount,
    completion_tokens: tokenCount,
    total_tokens: z.nullish(tokenCount),
    prompt_tokens_details: z.nullish(z.looseObject({ cached_tokens: z.nullish(tokenCount) })),
    completion_tokens_details: z.nullish(
      z.looseObject({ reasoning_tokens: z.nullish(tokenCount) }),
    ),
  }),
  z.transform((usage): Usage => {
    const out = { ...usage } as Usage;
    out.total_tokens = usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens;
    return out;
  }),
);

/** Token usage as the client hands it out: `total_tokens` always there, extra members kept. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: {
    cached_tokens?: number | null | undefined;
    [extra: string]: unknown;
  } | null;
  completion_tokens_details?: {
    reasoning_tokens?: number | null | undefined;
    [extra: string]: unknown;
  } | null;
  [extra: string]: unknown;
}

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
const ReasoningSchema = z.nullish(z.string());

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

export const ToolCallSchema = z.pipe(
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

/** A message of a whole answer, normalised. */
export interface ChatCompletionMessage {
  role: string;
  content: string | null;
  /** The model's reasoning, from `reasoning_content`, `reasoning` or thinking parts. */
  reasoning_content?: string;
  tool_calls?: ToolCall[] | null;
  [extra: string]: unknown;
}

const ChatCompletionMessageSchema = z.pipe(
  z.looseObject({
    role: z.nullish(z.string()),
    content: ContentSchema,
    reasoning_content: ReasoningSchema,
    tool_calls: z.nullish(z.array(ToolCallSchema)),
  }),
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
      index: z.optional(int().check(z.nonnegative())),
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

interface Header {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  usage?: Usage;
  [extra: string]: unknown;
}

/**
 * The shared fields normalised: an empty id or model, and a null `object`, `created` or `usage`,
 * become undefined, so callers test one "absent" value. Assigned rather than deleted: a delete
 * would leave every chunk of a `usage: null` server in V8's slow dictionary mode.
 */
function normaliseHeader<T extends Record<string, unknown>>(value: T): Header {
  const out: Header = { ...value };
  if (out.id === "" || out.id === null) out.id = undefined;
  if (out.object === null) out.object = undefined;
  if (out.created === null) out.created = undefined;
  if (out.model === "" || out.model === null) out.model = undefined;
  if (out.usage === null) out.usage = undefined;
  return out;
}

export interface ChatCompletionChoice {
  index: number;
  message: ChatCompletionMessage;
  finish_reason: string | null;
  [extra: string]: unknown;
}

export interface ChatCompletion extends Header {
  choices: ChatCompletionChoice[];
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

export interface TextCompletionChoice {
  index: number;
  text: string;
  finish_reason: string | null;
  [extra: string]: unknown;
}

export interface TextCompletion extends Header {
  choices: TextCompletionChoice[];
}

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

/**
 * A tool-call fragment as the stream stage hands it out: `index` always set (the stream stage
 * assigns one when the server left it out), "" ids, types and names left out.
 */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: string;
  function: { name?: string; arguments?: string };
  [extra: string]: unknown;
}

/** A tool-call fragment as parsed, before the stream stage has given it its `index`. */
export interface ParsedToolCallDelta {
  index?: number;
  id?: string;
  type?: string;
  function: { name?: string; arguments?: string };
  [extra: string]: unknown;
}

export const ToolCallDeltaSchema = z.pipe(
  z.looseObject({
    index: z.nullish(int().check(z.nonnegative())),
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

/** A streamed delta, normalised (see the top of this section). */
export interface ChatCompletionDelta {
  role?: string;
  content?: string | null;
  reasoning_content?: string;
  tool_calls?: ToolCallDelta[];
  [extra: string]: unknown;
}

const ChatCompletionDeltaSchema = z.pipe(
  z.looseObject({
    role: z.nullish(z.string()),
    content: ContentSchema,
    reasoning_content: ReasoningSchema,
    tool_calls: z.nullish(z.array(ToolCallDeltaSchema)),
  }),
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

export interface ChatCompletionChunkChoice {
  index: number;
  delta: ChatCompletionDelta;
  finish_reason: string | null;
  [extra: string]: unknown;
}

export interface ChatCompletionChunk extends Header {
  choices: ChatCompletionChunkChoice[];
}

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

export interface TextCompletionChunkChoice {
  index: number;
  text?: string;
  finish_reason: string | null;
  [extra: string]: unknown;
}

export interface TextCompletionChunk extends Header {
  choices: TextCompletionChunkChoice[];
}

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

// ---------------------------------------------------------------------------------------------
// Tools and tool resources (threads and assistants)
// ---------------------------------------------------------------------------------------------

export const ToolSchema = z.looseObject({
  id: z.optional(z.string()),
  name: z.optional(z.string()),
  type: z.string(),
  function: z.optional(
    z.looseObject({
      name: z.string(),
      description: z.optional(z.string()),
      parameters: z.optional(z.record(z.string(), z.unknown())),
      required: z.optional(z.array(z.string())),
    }),
  ),
  openapiSpec: z.optional(z.string()),
  openapiActionData: z.optional(z.record(z.string(), z.unknown())),
});
export type Tool = z.infer<typeof ToolSchema>;

export const ToolResourcesSchema = z.looseObject({
  codeInterpreter: z.optional(z.looseObject({ fileIds: z.optional(z.array(z.string())) })),
  fileSearch: z.optional(
    z.looseObject({
      vectorStoreIds: z.optional(z.array(z.string())),
      vectorStores: z.optional(
        z.array(
          z.looseObject({
            fileIds: z.optional(z.array(z.string())),
            metadata: z.optional(MetadataSchema),
          }),
        ),
      ),
    }),
  ),
});
export type ToolResources = z.infer<typeof ToolResourcesSchema>;

// ---------------------------------------------------------------------------------------------
// Threads and messages
// ---------------------------------------------------------------------------------------------

/**
 * A content item. `text` is a string per the spec; services of this family also send
 * `{ value }`, so both are read (see `contentItemText`).
 */
export const ContentItemSchema = z.looseObject({
  type: z.string(),
  text: z.optional(z.union([z.string(), z.looseObject({ value: z.string() })])),
  imageFile: z.optional(z.looseObject({ fileId: z.string(), detail: z.optional(z.string()) })),
  imageUrl: z.optional(z.looseObject({ url: z.string(), detail: z.optional(z.string()) })),
});
export type ContentItem = z.infer<typeof ContentItemSchema>;

/** The text of a content item, whichever of the two forms the server used. */
export function contentItemText(item: ContentItem): string | undefined {
  if (typeof item.text === "string") return item.text;
  return item.text?.value;
}

export const AttachmentSchema = z.looseObject({
  fileId: z.string(),
  tools: z.optional(z.array(ToolSchema)),
});

export const ThreadMessageSchema = z.looseObject({
  id: z.string(),
  object: z.optional(z.string()),
  createdAt: z.optional(z.union([z.string(), z.number()])),
  threadId: z.optional(z.string()),
  role: z.string(),
  content: z.array(ContentItemSchema),
  attachments: z.nullish(z.array(AttachmentSchema)),
  assistantId: z.nullish(z.string()),
  runId: z.nullish(z.string()),
  metadata: z.nullish(MetadataSchema),
});
export type ThreadMessage = z.infer<typeof ThreadMessageSchema>;

/** What is written: a new message (in a create-thread call or the add-message call). */
export interface ThreadMessageInput {
  role: "user" | "assistant";
  content: string | ContentItemInput[];
  metadata?: Metadata;
  attachments?: { fileId: string; tools?: Tool[] }[];
}
export interface ContentItemInput {
  type: "text" | "image_file" | "image_url";
  text?: string;
  imageFile?: { fileId: string; detail?: string };
  imageUrl?: { url: string; detail?: string };
}

export const ThreadSchema = z.looseObject({
  id: z.string(),
  object: z.optional(z.string()),
  createdAt: z.optional(z.union([z.string(), z.number()])),
  metadata: z.nullish(MetadataSchema),
  title: z.nullish(z.string()),
  toolResources: z.nullish(ToolResourcesSchema),
  /** Not in the spec's Thread table; sent by the emulator for threads created with one. */
  datasetId: z.nullish(z.string()),
});
export type Thread = z.infer<typeof ThreadSchema>;

export interface CreateThreadRequest {
  messages?: ThreadMessageInput[];
  metadata?: Metadata;
  title?: string;
  datasetId?: string;
  toolResources?: ToolResources;
}

export type CreateMessageRequest = ThreadMessageInput;

// ---------------------------------------------------------------------------------------------
// Assistants
// ---------------------------------------------------------------------------------------------

export const ModelSettingsSchema = z.looseObject({
  modelId: z.optional(z.string()),
  temperature: z.optional(z.number()),
  topP: z.optional(z.number()),
});
export type ModelSettings = z.infer<typeof ModelSettingsSchema>;

export const AssistantSchema = z.looseObject({
  id: z.string(),
  object: z.optional(z.string()),
  assistantName: z.optional(z.string()),
  modelName: z.optional(z.string()),
  modelId: z.optional(z.string()),
  description: z.nullish(z.string()),
  instructions: z.nullish(z.string()),
  functionModel: z.nullish(ModelSettingsSchema),
  responseModel: z.nullish(ModelSettingsSchema),
  tools: z.nullish(z.array(ToolSchema)),
  metadata: z.nullish(MetadataSchema),
  userFilters: z.nullish(z.record(z.string(), z.unknown())),
  createdAt: z.optional(z.union([z.string(), z.number()])),
});
export type Assistant = z.infer<typeof AssistantSchema>;

export interface CreateAssistantRequest {
  assistantName: string;
  modelName?: string;
  description?: string;
  instructions?: string;
  functionModel?: { modelId?: string; temperature?: number; topP?: number };
  responseModel?: { modelId?: string; temperature?: number; topP?: number };
  tools?: Tool[];
  metadata?: Metadata;
  userFilters?: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------
// Thread datasets
// ---------------------------------------------------------------------------------------------

export interface ListDatasetThreadsMessagesRequest {
  auth?: { organization?: string; cluster?: string };
  datasetId: string;
  page: PageRequest;
  order?: string;
}

export const DatasetThreadMessagesSchema = z.looseObject({
  threadId: z.string(),
  messages: z.array(ThreadMessageSchema),
  createdAt: z.optional(z.union([z.string(), z.number()])),
});
export type DatasetThreadMessages = z.infer<typeof DatasetThreadMessagesSchema>;

export const ListDatasetThreadsMessagesResponseSchema = z.looseObject({
  threadsMessages: z.array(DatasetThreadMessagesSchema),
  page: z.optional(PageSchema),
});
export type ListDatasetThreadsMessagesResponse = z.infer<
  typeof ListDatasetThreadsMessagesResponseSchema
>;

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** The error body the emulator sends; the client reads several other shapes too (see notes). */
export interface ErrorBody {
  error: { message: string; type: string; code?: string; param?: string };
}

// ---------------------------------------------------------------------------------------------
// Paths, in one place so client and emulator cannot drift apart.
// ---------------------------------------------------------------------------------------------

export const PATHS = {
  listPublicModels: "/svc.Studio/ListPublicModels",
  chatCompletions: "/chat/completions",
  textCompletions: "/text/completions",
  threads: "/v1/threads",
  thread: (threadId: string) => `/v1/threads/${encodeURIComponent(threadId)}`,
  messages: (threadId: string) => `/v1/threads/${encodeURIComponent(threadId)}/messages`,
  message: (threadId: string, messageId: string) =>
    `/v1/threads/${encodeURIComponent(threadId)}/messages/${encodeURIComponent(messageId)}`,
  assistants: "/v1/assistants",
  assistant: (assistantId: string) => `/v1/assistants/${encodeURIComponent(assistantId)}`,
  listDatasetThreadsMessages: "/svc.dataset.ThreadDatasetService/ListThreadDatasetThreadsMessages",
} as const;
