import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type {
  BaseLanguageModelInput,
  StructuredOutputMethodOptions,
} from "@langchain/core/language_models/base";
import {
  BaseChatModel,
  type BindToolsInput,
  type LangSmithParams,
} from "@langchain/core/language_models/chat_models";
import type { ChatModelStreamEvent } from "@langchain/core/language_models/event";
import {
  convertOpenAICompletionsStream,
  type OpenAICompletionsStreamChunk,
} from "@langchain/core/language_models/openai_completions_stream";
import type {
  AIMessage,
  AIMessageChunk,
  BaseMessage,
  UsageMetadata,
} from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult, type LLMResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import type { SerializableSchema } from "@langchain/core/utils/standard_schema";
import type { InteropZodType } from "@langchain/core/utils/types";
import type {
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatTool,
  CompletionParams,
  ToolChoice,
} from "../api-types";
import { abortReason, type StudioClient, streamChatCompletionBatches } from "../client";
import {
  addChunkToChoices,
  choicesInOrder,
  convertCompletionToChatGenerations,
  convertDeltaToAIMessageChunk,
  convertMessagesToStudioParams,
  convertUsageToAIMessageChunk,
  MODEL_PROVIDER,
} from "../converters/messages";
import { convertToolChoiceToStudio, convertToolsToStudio } from "../converters/tools";
import { addTokenUsage, convertUsage, type TokenUsage } from "../converters/usage";
import { StudioResponseError } from "../errors";
import {
  baseModelParams,
  buildCompletionParams,
  buildRequestOptions,
  clientResolver,
  completionLsParams,
  defineApiKey,
  resolveModelSettings,
  STUDIO_ALIASES,
  STUDIO_SECRETS,
  STUDIO_SERIALIZABLE_KEYS,
  type StudioModelSettings,
  validateBoolean,
  validateCallOptions,
  validateMaxConcurrency,
} from "../language_models/common";
import { buildStructuredOutput } from "./structured_output";
import type { ChatStudioCallOptions, ChatStudioInput } from "./types";

export type { ChatStudioCallOptions, ChatStudioInput } from "./types";

/** The request parameters of a call: everything but the messages. */
export interface ChatStudioInvocationParams extends CompletionParams {
  tools?: ChatTool[];
  tool_choice?: ToolChoice;
  response_format?: ChatCompletionRequest["response_format"];
}

/** A zod v3 or v4 schema, a standard schema, or a JSON schema object. */
export type StructuredOutputSchema<RunOutput extends Record<string, unknown>> =
  | InteropZodType<RunOutput>
  | SerializableSchema<RunOutput>
  | Record<string, unknown>;

/**
 * The Studio chat model, a LangChain `BaseChatModel` over the chat completions call.
 *
 * ```ts
 * const model = new ChatStudio({ model: "acme/chat-small", temperature: 0 });
 * const reply = await model.invoke("Hello");
 * ```
 */
export class ChatStudio
  extends BaseChatModel<ChatStudioCallOptions, AIMessageChunk>
  implements StudioModelSettings
{
  static override lc_name(): string {
    return "ChatStudio";
  }

  override lc_serializable = true;

  override get lc_secrets(): Record<string, string> {
    return { ...STUDIO_SECRETS };
  }

  override get lc_aliases(): Record<string, string> {
    return { ...STUDIO_ALIASES };
  }

  override get lc_serializable_keys(): string[] {
    return [...STUDIO_SERIALIZABLE_KEYS];
  }

  override get callKeys(): string[] {
    return [
      ...super.callKeys,
      "tools",
      "tool_choice",
      "response_format",
      "streamUsage",
      "temperature",
      "maxTokens",
      "topP",
      "n",
      "presencePenalty",
      "frequencyPenalty",
      "penalty",
      "logitBias",
    ];
  }

  model: string;
  /**
   * The API key given (the client reads `STUDIO_API_KEY` when it is not). Secret-mapped:
   * serialization writes a reference to `STUDIO_API_KEY` in its place; non-enumerable, so
   * logging the model never prints it.
   */
  declare readonly apiKey?: string;
  orgId?: string;
  proxyUrl?: string;
  baseUrl?: string;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  n?: number;
  stop?: string[];
  stopSequences?: string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
  penalty?: number;
  logitBias?: Record<string, number>;
  streaming = false;
  streamUsage = true;
  timeout?: number;
  /** Retries of the client (the only retrying layer). */
  maxRetries?: number;
  modelKwargs?: Record<string, unknown>;

  readonly #client: () => StudioClient;
  /** Whether calls go through core's AsyncCaller (only to enforce `maxConcurrency`). */
  readonly #queueCalls: boolean;
  /** Converted tools per bound tools array: agents call with the same tools many times. */
  readonly #toolCache = new WeakMap<readonly BindToolsInput[], ChatTool[]>();

  constructor(fields: ChatStudioInput) {
    const settings = resolveModelSettings(fields);
    validateBoolean("streaming", fields.streaming);
    validateBoolean("streamUsage", fields.streamUsage);
    validateMaxConcurrency(fields.maxConcurrency);
    super(baseModelParams(fields));
    this.model = settings.model;
    defineApiKey(this, fields.apiKey);
    this.orgId = fields.orgId;
    this.proxyUrl = fields.proxyUrl;
    this.baseUrl = fields.baseUrl;
    this.temperature = settings.temperature;
    this.maxTokens = settings.maxTokens;
    this.topP = settings.topP;
    this.n = settings.n;
    this.stop = settings.stop;
    this.stopSequences = settings.stop;
    this.presencePenalty = settings.presencePenalty;
    this.frequencyPenalty = settings.frequencyPenalty;
    this.penalty = settings.penalty;
    this.logitBias = settings.logitBias;
    this.streaming = fields.streaming ?? false;
    this.streamUsage = fields.streamUsage ?? true;
    this.timeout = settings.timeout;
    this.maxRetries = settings.maxRetries;
    this.modelKwargs = settings.modelKwargs;
    this.#client = clientResolver(fields);
    this.#queueCalls = fields.maxConcurrency !== undefined && fields.maxConcurrency !== Infinity;
  }

  /** The client this model sends through (the `client` option, or one built on first use). */
  get client(): StudioClient {
    return this.#client();
  }

  _llmType(): string {
    return "studio";
  }

  /** The request parameters (snake_case, without messages) for these call options. */
  override invocationParams(options?: this["ParsedCallOptions"]): ChatStudioInvocationParams {
    const params = buildCompletionParams(this, options) as ChatStudioInvocationParams;
    if (options === undefined) return params;
    // Own keys only: see `ownOptionKeys` in language_models/common for why lookups are avoided.
    let tools: ChatTool[] | undefined;
    let toolChoice: unknown;
    for (const key of Object.keys(options)) {
      if (key === "tools") {
        const bound = options.tools;
        if (bound && bound.length > 0) tools = this.#convertTools(bound);
      } else if (key === "tool_choice") {
        toolChoice = options.tool_choice;
      } else if (key === "response_format" && options.response_format !== undefined) {
        params.response_format = options.response_format;
      }
    }
    if (tools) params.tools = tools;
    const wireChoice = convertToolChoiceToStudio(toolChoice, tools);
    if (wireChoice !== undefined) params.tool_choice = wireChoice;
    return params;
  }

  override getLsParams(options: this["ParsedCallOptions"]): LangSmithParams {
    // Filled in place: a spread of the fresh object costs V8's slow path on every call.
    const params: Omit<LangSmithParams, "ls_model_type"> & { ls_model_type?: "chat" } =
      completionLsParams(buildCompletionParams(this, options));
    params.ls_model_type = "chat";
    return params as LangSmithParams;
  }

  override _identifyingParams(): Record<string, unknown> {
    return { model_name: this.model, ...buildCompletionParams(this) };
  }

  /** Sums the token usage of a batch; no usage reported means none is made up. */
  override _combineLLMOutput(...outputs: LLMResult["llmOutput"][]): LLMResult["llmOutput"] {
    let total: TokenUsage | undefined;
    for (const output of outputs) {
      total = addTokenUsage(total, output?.tokenUsage as TokenUsage | undefined);
    }
    return total ? { tokenUsage: total } : {};
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<ChatStudioCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, ChatStudioCallOptions> {
    return this.withConfig({ ...kwargs, tools } as Partial<ChatStudioCallOptions>);
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    if (this.streaming) {
      return this.#queueCalls
        ? this.caller.call(() => this.#generateByStreaming(messages, options, runManager))
        : this.#generateByStreaming(messages, options, runManager);
    }
    const body = this.#requestBody(messages, options, false);
    const requestOptions = buildRequestOptions(this, options);
    // Core's AsyncCaller costs a p-queue and a p-retry round per call (measured: about 100 µs
    // of added latency), so it is only used when there is a concurrency limit to enforce.
    const completion = this.#queueCalls
      ? await this.caller.call(() => this.client.chatCompletion(body, requestOptions))
      : await this.client.chatCompletion(body, requestOptions);
    const generations = convertCompletionToChatGenerations(completion);
    if (generations.length === 0) {
      throw new StudioResponseError("POST", "/chat/completions", "the completion has no choices");
    }
    return { generations, llmOutput: llmOutputOf(convertUsage(completion.usage)) };
  }

  async #generateByStreaming(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const byChoice = new Map<number, ChatGenerationChunk>();
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) {
      addChunkToChoices(byChoice, chunk);
    }
    const generations = choicesInOrder(byChoice);
    if (generations.length === 0) {
      throw new StudioResponseError("POST", "/chat/completions", "the stream carried no choices");
    }
    let usage: UsageMetadata | undefined;
    for (const generation of generations) {
      const message = generation.message as AIMessageChunk;
      if (message.usage_metadata) {
        // Core's chunk merge leaves empty detail objects behind; drop them so the message equals
        // the one a non-streamed call returns.
        message.usage_metadata = withoutEmptyDetails(message.usage_metadata);
        usage ??= message.usage_metadata;
      }
    }
    return { generations, llmOutput: llmOutputOf(usage) };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const body = this.#requestBody(messages, options, true);
    const streamUsage = options.streamUsage ?? this.streamUsage;
    const tagChoice = (body.n ?? 1) > 1;
    const promptIndex = (options as { promptIndex?: number }).promptIndex ?? 0;
    const signal = options.signal;
    // The chunks of each network read come together and are looped over here synchronously: one
    // async generator layer less per token (see `Requester.streamBatches`). An abort is still
    // seen at once: no chunk of the batch in hand is handed out after it.
    const batches = streamChatCompletionBatches(
      this.client,
      body,
      buildRequestOptions(this, options),
    );
    for await (const batch of batches) {
      for (let b = 0; b < batch.length; b++) {
        if (signal?.aborted) throw abortReason(signal);
        const chunk = batch[b] as ChatCompletionChunk;
        const choices = chunk.choices;
        for (let c = 0; c < choices.length; c++) {
          const choice = choices[c] as ChatCompletionChunk["choices"][number];
          // Usage sent along with a choice (rather than in a chunk of its own) rides on the last.
          const usage =
            streamUsage && chunk.usage && c === choices.length - 1
              ? convertUsage(chunk.usage)
              : undefined;
          const message = convertDeltaToAIMessageChunk(choice, chunk, usage);
          const text = typeof message.content === "string" ? message.content : "";
          // No spread here: object spreads are slow on this hot path (once per token).
          const generation = tagChoice
            ? new ChatGenerationChunk({
                message,
                text,
                generationInfo: { completion: choice.index },
              })
            : new ChatGenerationChunk({ message, text });
          yield generation;
          if (runManager) {
            await runManager.handleLLMNewToken(
              text,
              { prompt: promptIndex, completion: choice.index },
              undefined,
              undefined,
              undefined,
              { chunk: generation },
            );
          }
        }
        if (choices.length === 0 && streamUsage) {
          const message = convertUsageToAIMessageChunk(chunk);
          if (message) {
            yield tagChoice
              ? new ChatGenerationChunk({ message, text: "", generationInfo: { completion: 0 } })
              : new ChatGenerationChunk({ message, text: "" });
          }
        }
      }
    }
  }

  /**
   * Core's content-block event stream (`streamEvents()` without a version), converted by core's
   * own OpenAI-completions converter; only the response metadata is made Studio's. Events cover
   * the first choice.
   */
  override async *_streamChatModelEvents(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatModelStreamEvent> {
    const body = this.#requestBody(messages, options, true);
    const streamUsage = options.streamUsage ?? this.streamUsage;
    const stream = this.client.streamChatCompletion(body, buildRequestOptions(this, options));
    let first: ChatCompletionChunk | undefined;
    let finishReason: string | undefined;
    const events = convertOpenAICompletionsStream(
      stream as AsyncIterable<unknown> as AsyncIterable<OpenAICompletionsStreamChunk>,
      {
        streamUsage,
        provider: MODEL_PROVIDER,
        mapChunk: (chunk) => {
          let studioChunk = chunk as unknown as ChatCompletionChunk;
          first ??= studioChunk;
          // Core's converter reads `choices[0]` whatever its index: with n > 1 the other choices'
          // deltas would be merged into the first's blocks.
          if (studioChunk.choices.some((choice) => choice.index !== 0)) {
            studioChunk = {
              ...studioChunk,
              choices: studioChunk.choices.filter((choice) => choice.index === 0),
            };
          }
          const reason = studioChunk.choices[0]?.finish_reason;
          if (reason != null) finishReason = reason;
          return studioChunk as unknown as OpenAICompletionsStreamChunk;
        },
      },
    );
    for await (const event of events) {
      if (event.event !== "message-finish") {
        yield event;
        continue;
      }
      yield {
        ...event,
        responseMetadata: {
          model_provider: MODEL_PROVIDER,
          model_name: first?.model,
          finish_reason: finishReason,
          id: first?.id,
          created: first?.created,
        },
      };
    }
  }

  /**
   * Structured output as `{ raw, parsed }` or the parsed value. `method`: "functionCalling"
   * (default; the schema is a forced tool) or "jsonMode" (`response_format: json_object`).
   */
  override withStructuredOutput<
    RunOutput extends Record<string, unknown> = Record<string, unknown>,
  >(
    schema: StructuredOutputSchema<RunOutput>,
    config?: StructuredOutputMethodOptions<false>,
  ): Runnable<BaseLanguageModelInput, RunOutput>;
  override withStructuredOutput<
    RunOutput extends Record<string, unknown> = Record<string, unknown>,
  >(
    schema: StructuredOutputSchema<RunOutput>,
    config?: StructuredOutputMethodOptions<true>,
  ): Runnable<BaseLanguageModelInput, { raw: AIMessage; parsed: RunOutput | null }>;
  override withStructuredOutput<
    RunOutput extends Record<string, unknown> = Record<string, unknown>,
  >(
    schema: StructuredOutputSchema<RunOutput>,
    config?: StructuredOutputMethodOptions<boolean>,
  ):
    | Runnable<BaseLanguageModelInput, RunOutput>
    | Runnable<BaseLanguageModelInput, { raw: AIMessage; parsed: RunOutput | null }> {
    return buildStructuredOutput(this, schema, config) as Runnable<
      BaseLanguageModelInput,
      RunOutput
    >;
  }

  /** Validates the call options and converts messages and tools; runs before any request. */
  #requestBody(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    stream: boolean,
  ): ChatCompletionRequest {
    options.signal?.throwIfAborted();
    validateCallOptions(options);
    const body = this.invocationParams(options) as ChatCompletionRequest;
    body.messages = convertMessagesToStudioParams(messages);
    body.stream = stream;
    return body;
  }

  #convertTools(tools: readonly BindToolsInput[]): ChatTool[] {
    let converted = this.#toolCache.get(tools);
    if (!converted) {
      converted = convertToolsToStudio(tools);
      this.#toolCache.set(tools, converted);
    }
    return converted;
  }
}

function withoutEmptyDetails(usage: UsageMetadata): UsageMetadata {
  const { input_token_details, output_token_details, ...counts } = usage;
  return {
    ...counts,
    ...(input_token_details &&
      Object.keys(input_token_details).length > 0 && { input_token_details }),
    ...(output_token_details &&
      Object.keys(output_token_details).length > 0 && { output_token_details }),
  };
}

/**
 * The `llmOutput` of one call. Frozen on purpose: core copies it into the message's response
 * metadata (`{ ...llmOutput, ...response_metadata }`), and on Node 20's V8 spreading a fresh,
 * unfrozen object and then adding keys takes a slow path (measured: about 2 µs per call, a tenth
 * of LangChain's own cost per `invoke`); from a frozen object it does not. Nothing writes to it.
 */
function llmOutputOf(usage: UsageMetadata | undefined): LLMResult["llmOutput"] {
  return usage ? Object.freeze({ tokenUsage: tokenUsage(usage) }) : {};
}

function tokenUsage(usage: UsageMetadata): TokenUsage {
  return {
    promptTokens: usage.input_tokens,
    completionTokens: usage.output_tokens,
    totalTokens: usage.total_tokens,
  };
}
