/**
 * Wire shapes of the service, as zod schemas plus their inferred types. They mirror the tables of
 * `service-interface.md` and the decisions of `INTERFACE-NOTES.md`.
 *
 * Response schemas are loose objects: fields the spec does not name are kept, not stripped, so a
 * newer service never loses data on the way through. Only the fields the package relies on are
 * required; everything else is optional because the spec does not say which fields are always sent.
 *
 * Completion answers are the exception: servers spell them in many dialects, so only their one
 * normal shape is here, and client/normalise.ts reads every dialect into it.
 *
 * The types users meet (`Thread`, `ThreadMessage`, `Assistant`, ...) are interfaces extending the
 * inferred shapes, not aliases of them: TypeScript keeps an interface's name in editors and in
 * declaration files, where an alias of `z.infer` is expanded field by field.
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

/** An integer: zod mini spells classic `z.number().int()` as a check. */
function int() {
  return z.number().check(z.int());
}

/**
 * Page object of the remote-call style endpoints. Convention (the spec leaves it open): in a
 * request, `nextPageToken` names the page to fetch ("" = the first page); in a response it names
 * the page after this one ("" = this was the last page).
 */
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
export interface Deleted extends z.infer<typeof DeletedSchema> {}

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
export interface Model extends z.infer<typeof ModelSchema> {}

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
// Completion answers, in the one normal shape the client hands out (client/normalise.ts reads
// every spelling servers send into it)
// ---------------------------------------------------------------------------------------------

/** Token usage as the client hands it out: `total_tokens` always there, extra members kept. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Tokens written to the prompt cache (Anthropic's name, as gateways pass it on). */
  cache_creation_input_tokens?: number | null | undefined;
  prompt_tokens_details?: {
    cached_tokens?: number | null | undefined;
    /** Tokens written to the prompt cache (OpenRouter's name). */
    cache_write_tokens?: number | null | undefined;
    [extra: string]: unknown;
  } | null;
  completion_tokens_details?: {
    reasoning_tokens?: number | null | undefined;
    [extra: string]: unknown;
  } | null;
  [extra: string]: unknown;
}

/** A message of a whole answer, normalised. */
export interface ChatCompletionMessage {
  role: string;
  content: string | null;
  /** The model's reasoning, from `reasoning_content`, `reasoning` or thinking parts. */
  reasoning_content?: string;
  tool_calls?: ToolCall[] | null;
  [extra: string]: unknown;
}

/** The fields every answer and chunk share. */
export interface CompletionHeader {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  usage?: Usage;
  [extra: string]: unknown;
}

export interface ChatCompletionChoice {
  index: number;
  message: ChatCompletionMessage;
  finish_reason: string | null;
  [extra: string]: unknown;
}

export interface ChatCompletion extends CompletionHeader {
  choices: ChatCompletionChoice[];
}

export interface TextCompletionChoice {
  index: number;
  text: string;
  finish_reason: string | null;
  [extra: string]: unknown;
}

export interface TextCompletion extends CompletionHeader {
  choices: TextCompletionChoice[];
}

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

/** A streamed delta, normalised (see client/normalise.ts). */
export interface ChatCompletionDelta {
  role?: string;
  content?: string | null;
  reasoning_content?: string;
  tool_calls?: ToolCallDelta[];
  [extra: string]: unknown;
}

export interface ChatCompletionChunkChoice {
  index: number;
  delta: ChatCompletionDelta;
  finish_reason: string | null;
  [extra: string]: unknown;
}

export interface ChatCompletionChunk extends CompletionHeader {
  choices: ChatCompletionChunkChoice[];
}

export interface TextCompletionChunkChoice {
  index: number;
  text?: string;
  finish_reason: string | null;
  [extra: string]: unknown;
}

export interface TextCompletionChunk extends CompletionHeader {
  choices: TextCompletionChunkChoice[];
}

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
export interface Tool extends z.infer<typeof ToolSchema> {}

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
export interface ToolResources extends z.infer<typeof ToolResourcesSchema> {}

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
export interface ContentItem extends z.infer<typeof ContentItemSchema> {}

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
export interface ThreadMessage extends z.infer<typeof ThreadMessageSchema> {}

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
export interface Thread extends z.infer<typeof ThreadSchema> {}

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
export interface ModelSettings extends z.infer<typeof ModelSettingsSchema> {}

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
export interface Assistant extends z.infer<typeof AssistantSchema> {}

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
export interface DatasetThreadMessages extends z.infer<typeof DatasetThreadMessagesSchema> {}

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
