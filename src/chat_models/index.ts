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
import type { ModelProfile } from "@langchain/core/language_models/profile";
import type {
  AIMessage,
  AIMessageChunk,
  BaseMessage,
  MessageContent,
  UsageMetadata,
} from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult, type LLMResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import type { SerializableSchema } from "@langchain/core/utils/standard_schema";
import type { InteropZodType } from "@langchain/core/utils/types";
import type { ChatCompletionRequest, ChatTool, CompletionParams, ToolChoice } from "../api-types";
import type { StudioClient } from "../client";
import { convertCompletionToChatGenerations } from "../converters/completion";
import { registerStudioBlockTranslator } from "../converters/content-blocks";
import { convertMessagesToStudioParams } from "../converters/messages";
import {
  ChatStreamState,
  convertDeltaToAIMessageChunk,
  type StudioAIMessageChunk,
} from "../converters/stream-chunks";
import { convertToolChoiceToStudio, convertToolsToStudio } from "../converters/tools";
import { addTokenUsage, convertUsage, type TokenUsage } from "../converters/usage";
import { StudioResponseError } from "../errors";
import { asContextOverflow } from "../models/context-overflow";
import { definedOnly } from "../models/defined-only";
import {
  initModel,
  STUDIO_ALIASES,
  STUDIO_SECRETS,
  type StudioModelClientFields,
} from "../models/init";
import { completionParams, lsParams, streamOptions } from "../models/params";
import {
  CHAT_MODEL_PARAMS,
  fieldsOf,
  modelFieldKeys,
  parseModelFields,
  validateCallOptions,
} from "../models/parse";
import { profileFromModel, publicModels, warnProfileNotLoaded } from "../models/profile";
import { assertCompletionSettings, requestOptions, runRequest } from "../models/requests";
import { CHAT_SETTINGS, type StudioModelSettings } from "../models/settings";
import { contentText, estimateMessageTokens, estimateTokens } from "../models/tokens";
import { studioChatModelEvents } from "./stream-events";
import { buildStructuredOutput } from "./structured_output";
import type { ChatStudioCallOptions, ChatStudioInput } from "./types";

export type { ChatStudioCallOptions, ChatStudioInput } from "./types";

/** The request parameters of a call: everything but the messages. */
export interface ChatStudioInvocationParams extends CompletionParams {
  tools?: ChatTool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ChatCompletionRequest["response_format"];
}

/** A zod v3 or v4 schema, a standard schema, or a JSON schema object. */
export type StructuredOutputSchema<RunOutput extends Record<string, unknown>> =
  | InteropZodType<RunOutput>
  | SerializableSchema<RunOutput>
  | Record<string, unknown>;

/** The tool-call options, beside the settings a call may override. */
const TOOL_CALL_OPTIONS = [
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "strict",
  "response_format",
] as const satisfies readonly (keyof ChatStudioCallOptions)[];

const CALL_KEYS = [...CHAT_SETTINGS.callKeys, ...TOOL_CALL_OPTIONS];

/** Every constructor field `ChatStudio` takes; any other is refused, naming the closest. */
const CHAT_FIELD_KEYS = modelFieldKeys("ChatStudio", CHAT_SETTINGS, [
  ...CHAT_MODEL_PARAMS,
  "profile",
]);

// The settings and client options kept as fields (`model.temperature`): declared once in
// src/models, set by `initModel`. A line comment, so that IDEs show the class's doc.
export interface ChatStudio extends StudioModelSettings, StudioModelClientFields {}

/**
 * The Studio chat model, a LangChain `BaseChatModel` over the chat completions call.
 *
 * ```ts
 * const model = new ChatStudio("acme/chat-small", { temperature: 0 });
 * const reply = await model.invoke("Hello");
 * ```
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the fields are set by initModel.
export class ChatStudio extends BaseChatModel<ChatStudioCallOptions, AIMessageChunk> {
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
    return [...CHAT_SETTINGS.serializableKeys];
  }

  override get callKeys(): string[] {
    return [...new Set([...super.callKeys, ...CALL_KEYS])];
  }

  /**
   * The API key given (the client reads `STUDIO_API_KEY` when it is not). Secret-mapped:
   * serialization writes a reference to `STUDIO_API_KEY` in its place; non-enumerable, so
   * logging the model never prints it.
   */
  declare readonly apiKey?: string;
  /** Alias of `stop`, set from it. */
  stopSequences?: string[];
  streaming = false;
  streamUsage = true;

  readonly #client: StudioClient;

  readonly #profileOverride: ModelProfile | undefined;
  #loadedProfile: ModelProfile | undefined;

  constructor(model: string, fields?: Omit<ChatStudioInput, "model">);
  constructor(fields: ChatStudioInput);
  constructor(
    modelOrFields: string | ChatStudioInput,
    moreFields?: Omit<ChatStudioInput, "model">,
  ) {
    const fields = fieldsOf(modelOrFields, moreFields);
    const settings = parseModelFields(CHAT_SETTINGS, fields, CHAT_FIELD_KEYS);
    super(fields);
    this.#client = initModel(this, fields, settings);
    this.stopSequences = settings.stop;
    this.#profileOverride = fields.profile;
    registerStudioBlockTranslator();
  }

  _llmType(): string {
    return "studio";
  }

  /**
   * The client this model sends through: the `client` option, or one built from the options
   * (a getter, so the client is no enumerable field of the model).
   */
  get client(): StudioClient {
    return this.#client;
  }

  /**
   * A model with its profile loaded from the public model listing (`loadProfile()`), ready for
   * `createAgent` and the summarization middleware, which read `profile` synchronously.
   *
   * ```ts
   * const model = await ChatStudio.fromModel("acme/chat-small", { temperature: 0 });
   * ```
   */
  static async fromModel(
    model: string,
    fields?: Omit<ChatStudioInput, "model">,
  ): Promise<ChatStudio>;
  static async fromModel(fields: ChatStudioInput): Promise<ChatStudio>;
  static async fromModel(
    modelOrFields: string | ChatStudioInput,
    moreFields?: Omit<ChatStudioInput, "model">,
  ): Promise<ChatStudio> {
    const chat = new ChatStudio(fieldsOf(modelOrFields, moreFields));
    await chat.loadProfile();
    return chat;
  }

  /**
   * What the model can do: the listing's profile once `loadProfile()` has read it, with the
   * `profile` option on top; before that the option, or `{}` (with a one-time warning, see
   * `warnProfileNotLoaded`).
   */
  override get profile(): ModelProfile {
    const profile = this.#loadedProfile ?? this.#profileOverride;
    if (profile !== undefined) return profile;
    warnProfileNotLoaded("ChatStudio", this.model);
    return {};
  }

  /** Reads the public model listing (once per client) and returns this model's profile. */
  async loadProfile(): Promise<ModelProfile> {
    const listing = await publicModels(this.client);
    this.#loadedProfile = {
      ...profileFromModel(listing.get(this.model)),
      ...this.#profileOverride,
    };
    return this.#loadedProfile;
  }

  /** The request parameters (snake_case, without messages) for these call options. */
  override invocationParams(options?: this["ParsedCallOptions"]): ChatStudioInvocationParams {
    const bound = options?.tools;
    const tools =
      bound && bound.length > 0
        ? withStrict(convertToolsToStudio(bound), options?.strict)
        : undefined;
    return definedOnly({
      ...completionParams(CHAT_SETTINGS, this, options),
      tools,
      tool_choice: convertToolChoiceToStudio(options?.tool_choice, tools),
      parallel_tool_calls: options?.parallel_tool_calls,
      response_format: options?.response_format,
    });
  }

  override getLsParams(options: this["ParsedCallOptions"]): LangSmithParams {
    return lsParams(completionParams(CHAT_SETTINGS, this, options), "chat");
  }

  override _identifyingParams(): Record<string, unknown> {
    return { model_name: this.model, ...completionParams(CHAT_SETTINGS, this) };
  }

  /** Sums the token usage of a batch; no usage reported means none is made up. */
  override _combineLLMOutput(...outputs: LLMResult["llmOutput"][]): LLMResult["llmOutput"] {
    let total: TokenUsage | undefined;
    for (const output of outputs) {
      total = addTokenUsage(total, output?.tokenUsage as TokenUsage | undefined);
    }
    return total ? { tokenUsage: total } : {};
  }

  /** A local estimate, never a tokenizer download (see models/tokens). */
  override async getNumTokens(content: MessageContent): Promise<number> {
    return estimateTokens(contentText(content));
  }

  /** The same estimate per message (text plus tool calls), and the total. */
  async getNumTokensFromMessages(
    messages: BaseMessage[],
  ): Promise<{ totalCount: number; countPerMessage: number[] }> {
    const countPerMessage = messages.map(estimateMessageTokens);
    return { totalCount: countPerMessage.reduce((a, b) => a + b, 0), countPerMessage };
  }

  /**
   * Binds tools for every call. Tools the wire would refuse (a name outside OpenAI's
   * `^[a-zA-Z0-9_-]{1,64}$`, two tools with one name, a definition that is no tool) throw a
   * `StudioValidationError` naming the tool here, before anything is sent.
   */
  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<ChatStudioCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, ChatStudioCallOptions> {
    convertToolsToStudio(tools);
    return this.withConfig({ ...kwargs, tools } as Partial<ChatStudioCallOptions>);
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    if (this.streaming) {
      return this.#queued(options, () => this.#generateByStreaming(messages, options, runManager));
    }
    const body = this.#requestBody(messages, options, false);
    const completion = await this.#queued(options, () =>
      this.client.chatCompletion(body, requestOptions(options)),
    ).catch((error: unknown) => {
      throw asContextOverflow(error);
    });
    const generations = convertCompletionToChatGenerations(completion, body.model);
    if (generations.length === 0) {
      throw new StudioResponseError("POST", "/chat/completions", "the completion has no choices");
    }
    return { generations, llmOutput: llmOutputOf(convertUsage(completion.usage)) };
  }

  #queued<T>(options: this["ParsedCallOptions"], call: () => Promise<T>): Promise<T> {
    return runRequest(this, options.signal, call);
  }

  /** `invoke` with `streaming: true`: the stream's chunks summed per choice. */
  async #generateByStreaming(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const byChoice = new Map<number, ChatGenerationChunk>();
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) {
      const index = Number(chunk.generationInfo?.completion ?? 0);
      const previous = byChoice.get(index);
      byChoice.set(index, previous ? previous.concat(chunk) : chunk);
    }
    const generations = [...byChoice.entries()].sort(([a], [b]) => a - b).map(([, g]) => g);
    const usage = generations
      .map((generation) => (generation.message as AIMessageChunk).usage_metadata)
      .find((u) => u !== undefined);
    return { generations, llmOutput: llmOutputOf(usage) };
  }

  /**
   * One stream, decoded one way for any `n`: each choice's deltas as they come (tagged with
   * `generationInfo.completion` when several choices were asked for), then one final chunk per
   * choice with the response metadata, and the usage on the first.
   */
  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const body = this.#requestBody(messages, options, true);
    const tagChoices = (body.n ?? 1) > 1;
    const promptIndex = (options as { promptIndex?: number }).promptIndex ?? 0;
    const state = new ChatStreamState(body.model);
    const generation = (message: StudioAIMessageChunk, index: number) =>
      new ChatGenerationChunk({
        message,
        text: typeof message.content === "string" ? message.content : "",
        ...(tagChoices ? { generationInfo: { completion: index } } : {}),
      });
    const report = (chunk: ChatGenerationChunk, index: number) =>
      runManager?.handleLLMNewToken(
        chunk.text,
        { prompt: promptIndex, completion: index },
        undefined,
        undefined,
        undefined,
        { chunk },
      );
    try {
      for await (const chunk of this.client.streamChatCompletion(body, requestOptions(options))) {
        options.signal?.throwIfAborted();
        state.observe(chunk);
        for (const choice of chunk.choices) {
          const message = convertDeltaToAIMessageChunk(choice.delta, chunk.id);
          if (message === undefined) continue;
          const out = generation(message, choice.index);
          yield out;
          await report(out, choice.index);
        }
      }
    } catch (error) {
      throw asContextOverflow(error);
    }
    for (const { index, message } of state.finalChunks(options.streamUsage ?? this.streamUsage)) {
      const out = generation(message, index);
      yield out;
      await report(out, index);
    }
  }

  /**
   * Core's content-block event stream (`streamEvents()` without a version): see
   * `studioChatModelEvents`. Events cover the first choice.
   */
  override async *_streamChatModelEvents(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatModelStreamEvent> {
    const body = this.#requestBody(messages, options, true);
    const stream = this.client.streamChatCompletion(body, requestOptions(options));
    try {
      yield* studioChatModelEvents(stream, {
        streamUsage: options.streamUsage ?? this.streamUsage,
        requestedModel: body.model,
      });
    } catch (error) {
      throw asContextOverflow(error);
    }
  }

  /**
   * Structured output as `{ raw, parsed }` or the parsed value. `method`: "jsonSchema"
   * (`response_format: json_schema`), "functionCalling" (the schema is a forced tool) or
   * "jsonMode" (`response_format: json_object`). The default is "jsonSchema" when the profile
   * declares `structuredOutput`, else "functionCalling".
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
    // Not `this.profile`: its warning is about agents reading an empty profile, not this default.
    const known = this.#loadedProfile ?? this.#profileOverride;
    const method = config?.method ?? (known?.structuredOutput ? "jsonSchema" : "functionCalling");
    return buildStructuredOutput(this, schema, { ...config, method }) as Runnable<
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
    validateCallOptions("ChatStudio", CHAT_SETTINGS, options);
    const body: ChatCompletionRequest = {
      ...this.invocationParams(options),
      messages: convertMessagesToStudioParams(messages),
      stream,
      ...(stream ? streamOptions(this, options) : {}),
    };
    assertCompletionSettings(this.client, "ChatStudio");
    return body;
  }
}

/** `bindTools(tools, { strict })` sets `strict` on every tool. */
function withStrict(tools: ChatTool[], strict: boolean | undefined): ChatTool[] {
  if (strict === undefined) return tools;
  return tools.map((tool) => ({ ...tool, function: { ...tool.function, strict } }));
}

/** The `llmOutput` of one call: its usage in LangChain's `tokenUsage` shape. */
function llmOutputOf(usage: UsageMetadata | undefined): LLMResult["llmOutput"] {
  if (usage === undefined) return {};
  return {
    tokenUsage: {
      promptTokens: usage.input_tokens,
      completionTokens: usage.output_tokens,
      totalTokens: usage.total_tokens,
    },
  };
}
