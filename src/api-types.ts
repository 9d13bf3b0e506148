/**
 * Wire shapes of the service, as zod schemas plus their inferred types. They mirror the tables of
 * `service-interface.md` and the decisions of `INTERFACE-NOTES.md`.
 *
 * Response schemas are loose objects: fields the spec does not name are kept, not stripped, so a
 * newer service never loses data on the way through. Only the fields the package relies on are
 * required; everything else is optional because the spec does not say which fields are always sent.
 *
 * This module is shared by the client (validating what arrives) and the emulator (validating what
 * it is sent); it must not import anything else from the package.
 */
import { z } from "zod/v4";

// ---------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------

/** Metadata is key-value pairs; the notes limit it to string values (16 keys, 64/512 chars). */
export const MetadataSchema = z.record(z.string(), z.unknown());
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
export const PageSchema = z.looseObject({
  limit: z.number().int().optional(),
  prevPageToken: z.string().optional(),
  nextPageToken: z.string().optional(),
  totalPage: z.number().int().optional(),
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

export function listResponseSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    object: z.string().optional(),
    data: z.array(item),
    firstId: z.string().nullish(),
    lastId: z.string().nullish(),
    hasMore: z.boolean(),
    datasetId: z.string().optional(),
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
  object: z.string().optional(),
  deleted: z.boolean(),
});
export type Deleted = z.infer<typeof DeletedSchema>;

// ---------------------------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------------------------

export const ModelSchema = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  meta: z
    .looseObject({
      metadata: z
        .looseObject({
          base_model_id: z.string().optional(),
          description: z
            .looseObject({
              model_size: z.string().optional(),
              model_tags: z.array(z.string()).optional(),
              model_type: z.string().optional(),
            })
            .optional(),
          extra_args: z.record(z.string(), z.string()).optional(),
        })
        .optional(),
      quantization: z.string().optional(),
      shutdownSettings: z.looseObject({ autoShutdownDuration: z.string().optional() }).optional(),
      modality: z.string().optional(),
    })
    .optional(),
  resource: z
    .looseObject({
      gpu: z.string().optional(),
      gpuCount: z.string().optional(),
      maxRetries: z.number().int().optional(),
    })
    .optional(),
  replicas: z.number().int().optional(),
  state: z.looseObject({ state: z.string() }).optional(),
  public: z.boolean().optional(),
  uri: z.string(),
  endpoint: z
    .looseObject({
      id: z.string().optional(),
      url: z.string().optional(),
      host: z.string().optional(),
    })
    .optional(),
});
export type Model = z.infer<typeof ModelSchema>;

export interface ListPublicModelsRequest {
  page: PageRequest;
}
export const ListPublicModelsResponseSchema = z.looseObject({
  models: z.array(ModelSchema),
  /** Not in the spec; sent by the emulator and used for paging when present. */
  page: PageSchema.optional(),
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

export const UsageSchema = z.looseObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;

export const ToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

export const ChatCompletionChoiceSchema = z.looseObject({
  index: z.number().int(),
  message: z.looseObject({
    role: z.string(),
    content: z.string().nullable(),
    tool_calls: z.array(ToolCallSchema).nullish(),
  }),
  finish_reason: z.string().nullable(),
});

export const ChatCompletionSchema = z.looseObject({
  id: z.string(),
  object: z.string().optional(),
  created: z.number(),
  model: z.string(),
  usage: UsageSchema.nullish(),
  choices: z.array(ChatCompletionChoiceSchema),
});
export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;

export const TextCompletionChoiceSchema = z.looseObject({
  index: z.number().int(),
  text: z.string(),
  finish_reason: z.string().nullable(),
});
export const TextCompletionSchema = z.looseObject({
  id: z.string(),
  object: z.string().optional(),
  created: z.number(),
  model: z.string(),
  usage: UsageSchema.nullish(),
  choices: z.array(TextCompletionChoiceSchema),
});
export type TextCompletion = z.infer<typeof TextCompletionSchema>;

export const ToolCallDeltaSchema = z.looseObject({
  index: z.number().int(),
  id: z.string().optional(),
  type: z.string().optional(),
  function: z
    .looseObject({ name: z.string().optional(), arguments: z.string().optional() })
    .optional(),
});

export const ChatCompletionChunkSchema = z.looseObject({
  id: z.string(),
  object: z.string().optional(),
  created: z.number().optional(),
  model: z.string().optional(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      delta: z
        .looseObject({
          role: z.string().optional(),
          content: z.string().nullish(),
          tool_calls: z.array(ToolCallDeltaSchema).nullish(),
        })
        .optional(),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: UsageSchema.nullish(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunkSchema>;

export const TextCompletionChunkSchema = z.looseObject({
  id: z.string(),
  object: z.string().optional(),
  created: z.number().optional(),
  model: z.string().optional(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      text: z.string().optional(),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: UsageSchema.nullish(),
});
export type TextCompletionChunk = z.infer<typeof TextCompletionChunkSchema>;

// ---------------------------------------------------------------------------------------------
// Tools and tool resources (threads and assistants)
// ---------------------------------------------------------------------------------------------

export const ToolSchema = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  type: z.string(),
  function: z
    .looseObject({
      name: z.string(),
      description: z.string().optional(),
      parameters: z.record(z.string(), z.unknown()).optional(),
      required: z.array(z.string()).optional(),
    })
    .optional(),
  openapiSpec: z.string().optional(),
  openapiActionData: z.record(z.string(), z.unknown()).optional(),
});
export type Tool = z.infer<typeof ToolSchema>;

export const ToolResourcesSchema = z.looseObject({
  codeInterpreter: z.looseObject({ fileIds: z.array(z.string()).optional() }).optional(),
  fileSearch: z
    .looseObject({
      vectorStoreIds: z.array(z.string()).optional(),
      vectorStores: z
        .array(
          z.looseObject({
            fileIds: z.array(z.string()).optional(),
            metadata: MetadataSchema.optional(),
          }),
        )
        .optional(),
    })
    .optional(),
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
  text: z.union([z.string(), z.looseObject({ value: z.string() })]).optional(),
  imageFile: z.looseObject({ fileId: z.string(), detail: z.string().optional() }).optional(),
  imageUrl: z.looseObject({ url: z.string(), detail: z.string().optional() }).optional(),
});
export type ContentItem = z.infer<typeof ContentItemSchema>;

/** The text of a content item, whichever of the two forms the server used. */
export function contentItemText(item: ContentItem): string | undefined {
  if (typeof item.text === "string") return item.text;
  return item.text?.value;
}

export const AttachmentSchema = z.looseObject({
  fileId: z.string(),
  tools: z.array(ToolSchema).optional(),
});

export const ThreadMessageSchema = z.looseObject({
  id: z.string(),
  object: z.string().optional(),
  createdAt: z.union([z.string(), z.number()]).optional(),
  threadId: z.string().optional(),
  role: z.string(),
  content: z.array(ContentItemSchema),
  attachments: z.array(AttachmentSchema).nullish(),
  assistantId: z.string().nullish(),
  runId: z.string().nullish(),
  metadata: MetadataSchema.nullish(),
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
  object: z.string().optional(),
  createdAt: z.union([z.string(), z.number()]).optional(),
  metadata: MetadataSchema.nullish(),
  title: z.string().nullish(),
  toolResources: ToolResourcesSchema.nullish(),
  /** Not in the spec's Thread table; sent by the emulator for threads created with one. */
  datasetId: z.string().nullish(),
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
  modelId: z.string().optional(),
  temperature: z.number().optional(),
  topP: z.number().optional(),
});
export type ModelSettings = z.infer<typeof ModelSettingsSchema>;

export const AssistantSchema = z.looseObject({
  id: z.string(),
  object: z.string().optional(),
  assistantName: z.string().optional(),
  modelName: z.string().optional(),
  modelId: z.string().optional(),
  description: z.string().nullish(),
  instructions: z.string().nullish(),
  functionModel: ModelSettingsSchema.nullish(),
  responseModel: ModelSettingsSchema.nullish(),
  tools: z.array(ToolSchema).nullish(),
  metadata: MetadataSchema.nullish(),
  userFilters: z.record(z.string(), z.unknown()).nullish(),
  createdAt: z.union([z.string(), z.number()]).optional(),
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
  createdAt: z.union([z.string(), z.number()]).optional(),
});
export type DatasetThreadMessages = z.infer<typeof DatasetThreadMessagesSchema>;

export const ListDatasetThreadsMessagesResponseSchema = z.looseObject({
  threadsMessages: z.array(DatasetThreadMessagesSchema),
  page: PageSchema.optional(),
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
