import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { LLM } from "@langchain/core/language_models/llms";
import { type Generation, GenerationChunk, type LLMResult } from "@langchain/core/outputs";
import { type CompletionParams, PATHS, type TextCompletionRequest } from "../api-types";
import type { StudioClient } from "../client";
import type { RequestOptions } from "../client/types";
import {
  addTokenUsage,
  convertTextChunkToGenerationChunks,
  convertTextCompletionToGenerations,
  convertUsageToTokenUsage,
  TextStreamAccumulator,
  type TokenUsage,
} from "../converters/text-completions";
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
import type { StudioLLMCallOptions, StudioLLMFields, StudioLLMLsParams } from "./types";

export type { StudioLLMCallOptions, StudioLLMFields, StudioLLMLsParams, TokenUsage } from "./types";

const SERIALIZABLE_KEYS = [...STUDIO_SERIALIZABLE_KEYS, "echo"];
const CALL_OPTION_KEYS = [
  "maxRetries",
  "temperature",
  "maxTokens",
  "topP",
  "n",
  "presencePenalty",
  "frequencyPenalty",
  "penalty",
  "logitBias",
  "echo",
];

/** The generations of one prompt and the usage the service reported for it. */
interface PromptResult {
  generations: Generation[];
  tokenUsage: TokenUsage | undefined;
}

/**
 * Text completions of the Studio service as a LangChain `LLM`: a prompt in, text out.
 *
 * ```ts
 * const llm = new StudioLLM({ model: "owner/model", maxTokens: 64 });
 * const text = await llm.invoke("Once upon a time");
 * ```
 */
export class StudioLLM extends LLM<StudioLLMCallOptions> implements StudioModelSettings {
  static override lc_name(): string {
    return "StudioLLM";
  }

  override lc_serializable = true;

  override get lc_secrets(): Record<string, string> {
    return { ...STUDIO_SECRETS };
  }

  override get lc_aliases(): Record<string, string> {
    return { ...STUDIO_ALIASES };
  }

  override get lc_serializable_keys(): string[] {
    return SERIALIZABLE_KEYS;
  }

  /** Call options that legacy chains must pass to the model instead of reading as inputs. */
  override get callKeys(): string[] {
    return [...super.callKeys, ...CALL_OPTION_KEYS];
  }

  model: string;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  n?: number;
  stop?: string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
  penalty?: number;
  logitBias?: Record<string, number>;
  echo?: boolean;
  streaming: boolean;
  timeout?: number;
  maxRetries?: number;
  /** Most requests in flight at once for this instance (core's caller enforces it). */
  maxConcurrency?: number;
  modelKwargs?: Record<string, unknown>;
  orgId?: string;
  proxyUrl?: string;
  baseUrl?: string;
  /**
   * Non-enumerable (set in the constructor) so that logging the model does not print the key;
   * it is still here for `toJSON()`, which writes it out as a secret reference.
   */
  declare readonly apiKey?: string;

  private readonly getClient: () => StudioClient;

  constructor(fields: StudioLLMFields) {
    const settings = resolveModelSettings(fields);
    validateBoolean("echo", fields.echo);
    validateBoolean("streaming", fields.streaming);
    validateMaxConcurrency(fields.maxConcurrency);
    // Retries happen in the client only; core's caller keeps just the concurrency limit.
    super(baseModelParams(fields));
    this.model = settings.model;
    this.temperature = settings.temperature;
    this.maxTokens = settings.maxTokens;
    this.topP = settings.topP;
    this.n = settings.n;
    this.stop = settings.stop;
    this.presencePenalty = settings.presencePenalty;
    this.frequencyPenalty = settings.frequencyPenalty;
    this.penalty = settings.penalty;
    this.logitBias = settings.logitBias;
    this.timeout = settings.timeout;
    this.maxRetries = settings.maxRetries;
    this.maxConcurrency = fields.maxConcurrency;
    this.modelKwargs = settings.modelKwargs;
    this.echo = fields.echo;
    this.streaming = fields.streaming ?? false;
    this.orgId = fields.orgId;
    this.proxyUrl = fields.proxyUrl;
    this.baseUrl = fields.baseUrl;
    defineApiKey(this, fields.apiKey);
    this.getClient = clientResolver(fields);
  }

  /** The client this model sends through (the `client` option, or one built on first use). */
  get client(): StudioClient {
    return this.getClient();
  }

  override _llmType(): string {
    return "studio";
  }

  /** The snake_case request parameters for a call: call option, else field, then `modelKwargs`. */
  override invocationParams(options?: this["ParsedCallOptions"]): CompletionParams {
    const echo = options?.echo ?? this.echo;
    const params = buildCompletionParams(this, options);
    // A fresh object per call, so a request can fill in `prompt` in place (see `_generate`);
    // `echo`, when set, stays the first key.
    return echo === undefined ? params : { echo, ...params };
  }

  override _identifyingParams(): Record<string, unknown> {
    return { model_name: this.model, ...this.invocationParams() };
  }

  getLsParams(options?: this["ParsedCallOptions"]): StudioLLMLsParams {
    return { ...completionLsParams(this.invocationParams(options)), ls_model_type: "llm" };
  }

  async _call(
    prompt: string,
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<string> {
    const result = await this._generate([prompt], options, runManager);
    return result.generations[0]?.[0]?.text ?? "";
  }

  /**
   * One request per prompt, run concurrently through core's caller so `maxConcurrency` bounds
   * them (its retries are off: the client retries). With `streaming`, each request is streamed
   * and its tokens reach the callbacks as they arrive.
   */
  override async _generate(
    prompts: string[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<LLMResult> {
    options.signal?.throwIfAborted();
    validateLLMCallOptions(options);
    const requestOptions = buildRequestOptions(this, options);
    // With retries off, the caller only bounds concurrency; without a bound it would cost a
    // p-queue and p-retry round (~10 µs) per call for nothing, so it is skipped.
    const bounded = this.maxConcurrency !== undefined && Number.isFinite(this.maxConcurrency);
    // Each request gets its own parameters object and fills in `prompt` in place: a spread copy
    // of a shared one plus a new key takes V8's slow path; and no closure is made per call (tsx's
    // keepNames turns each into a defineProperty). Together about 2 µs of a ~10 µs call.
    const results =
      prompts.length === 1 && !bounded
        ? [await this.runPrompt(prompts[0] as string, 0, options, requestOptions, runManager)]
        : await Promise.all(
            prompts.map((prompt, promptIndex) =>
              bounded
                ? this.caller.callWithOptions(
                    { signal: options.signal },
                    this.runPrompt.bind(this),
                    prompt,
                    promptIndex,
                    options,
                    requestOptions,
                    runManager,
                  )
                : this.runPrompt(prompt, promptIndex, options, requestOptions, runManager),
            ),
          );
    let tokenUsage: TokenUsage | undefined;
    for (const result of results) tokenUsage = addTokenUsage(tokenUsage, result.tokenUsage);
    return {
      generations: results.map((result) => result.generations),
      llmOutput: tokenUsage === undefined ? {} : { tokenUsage },
    };
  }

  /** One prompt's request: streamed (tokens to the callbacks) when `streaming` is on. */
  private runPrompt(
    prompt: string,
    promptIndex: number,
    options: this["ParsedCallOptions"],
    requestOptions: RequestOptions,
    runManager: CallbackManagerForLLMRun | undefined,
  ): Promise<PromptResult> {
    const body = this.invocationParams(options) as TextCompletionRequest;
    body.prompt = prompt;
    if (!this.streaming) return this.completePrompt(body, requestOptions);
    body.stream = true;
    return this.streamPrompt(body, requestOptions, { promptIndex, runManager });
  }

  /**
   * Streams one sequence. With `n > 1` the service interleaves several; chunks are concatenated
   * by core, so only choice 0 is yielded, while every choice's tokens still reach the callbacks
   * (`idx.completion` tells them apart). Use `generate()` to get all n.
   */
  override async *_streamResponseChunks(
    prompt: string,
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<GenerationChunk> {
    options.signal?.throwIfAborted();
    validateLLMCallOptions(options);
    const body: TextCompletionRequest = { ...this.invocationParams(options), prompt, stream: true };
    const stream = this.getClient().streamTextCompletion(body, buildRequestOptions(this, options));
    // The finishing chunk is held back until the stream ends so that usage, which may follow it
    // in a separate event, can ride on it: consumers read the last chunk's generationInfo.
    let finishing: GenerationChunk | undefined;
    let tokenUsage: TokenUsage | undefined;
    for await (const event of stream) {
      tokenUsage = convertUsageToTokenUsage(event.usage) ?? tokenUsage;
      for (const { index, chunk } of convertTextChunkToGenerationChunks(event)) {
        await reportToken(runManager, chunk, 0, index);
        if (index !== 0) continue;
        if (chunk.generationInfo?.finish_reason !== undefined) finishing = chunk;
        else yield chunk;
      }
    }
    if (finishing !== undefined) {
      yield tokenUsage === undefined
        ? finishing
        : new GenerationChunk({
            text: finishing.text,
            generationInfo: { ...finishing.generationInfo, tokenUsage },
          });
    }
  }

  private async completePrompt(
    body: TextCompletionRequest,
    requestOptions: RequestOptions,
  ): Promise<PromptResult> {
    const completion = await this.getClient().textCompletion(body, requestOptions);
    const generations = convertTextCompletionToGenerations(completion);
    if (generations.length === 0) throw noChoicesError();
    return { generations, tokenUsage: convertUsageToTokenUsage(completion.usage) };
  }

  private async streamPrompt(
    body: TextCompletionRequest,
    requestOptions: RequestOptions,
    context: { promptIndex: number; runManager: CallbackManagerForLLMRun | undefined },
  ): Promise<PromptResult> {
    const accumulator = new TextStreamAccumulator();
    for await (const event of this.getClient().streamTextCompletion(body, requestOptions)) {
      for (const { index, chunk } of accumulator.add(event)) {
        await reportToken(context.runManager, chunk, context.promptIndex, index);
      }
    }
    const generations = accumulator.generations();
    if (generations.length === 0) throw noChoicesError();
    return { generations, tokenUsage: convertUsageToTokenUsage(accumulator.usage) };
  }
}

async function reportToken(
  runManager: CallbackManagerForLLMRun | undefined,
  chunk: GenerationChunk,
  prompt: number,
  completion: number,
): Promise<void> {
  if (runManager === undefined || chunk.text === "") return;
  await runManager.handleLLMNewToken(
    chunk.text,
    { prompt, completion },
    undefined,
    undefined,
    undefined,
    {
      chunk,
    },
  );
}

function validateLLMCallOptions(options: StudioLLMCallOptions): void {
  validateCallOptions(options);
  validateBoolean("echo", options.echo);
}

function noChoicesError(): StudioResponseError {
  return new StudioResponseError(
    "POST",
    PATHS.textCompletions,
    "the completion has no choices, so there is no text to return",
  );
}
