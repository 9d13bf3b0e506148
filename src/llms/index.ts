import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { LLM } from "@langchain/core/language_models/llms";
import type { MessageContent } from "@langchain/core/messages";
import { type Generation, GenerationChunk, type LLMResult } from "@langchain/core/outputs";
import { type CompletionParams, PATHS, type TextCompletionRequest } from "../api-types";
import type { StudioClient } from "../client";
import {
  convertTextChunkToGenerationChunks,
  convertTextCompletionToGenerations,
  TextStreamAccumulator,
} from "../converters/text-completions";
import { addTokenUsage, convertUsageToTokenUsage, type TokenUsage } from "../converters/usage";
import { StudioResponseError } from "../errors";
import { asContextOverflow } from "../models/context-overflow";
import {
  initModel,
  STUDIO_ALIASES,
  STUDIO_SECRETS,
  type StudioModelClientFields,
} from "../models/init";
import { completionParams, lsParams, streamOptions } from "../models/params";
import {
  fieldsOf,
  LLM_PARAMS,
  modelFieldKeys,
  parseModelFields,
  validateCallOptions,
} from "../models/parse";
import { assertCompletionSettings, requestOptions, runRequest } from "../models/requests";
import { LLM_SETTINGS, type LLMSettingTable, type StudioModelSettings } from "../models/settings";
import { contentText, estimateTokens } from "../models/tokens";
import type { StudioLLMCallOptions, StudioLLMFields, StudioLLMLsParams } from "./types";

export type { StudioLLMCallOptions, StudioLLMFields, StudioLLMLsParams, TokenUsage } from "./types";

// The settings and client options kept as fields (`llm.temperature`): declared once in
// src/models, set by `initModel`. A line comment, so that IDEs show the class's doc.
export interface StudioLLM extends StudioModelSettings<LLMSettingTable>, StudioModelClientFields {}

/** The generations of one prompt and the usage the service reported for it. */
interface PromptResult {
  generations: Generation[];
  tokenUsage: TokenUsage | undefined;
}

/** Every constructor field `StudioLLM` takes; any other is refused, naming the closest. */
const LLM_FIELD_KEYS = modelFieldKeys("StudioLLM", LLM_SETTINGS, LLM_PARAMS);

/**
 * Text completions of the Studio service as a LangChain `LLM`: a prompt in, text out.
 *
 * ```ts
 * const llm = new StudioLLM("owner/model", { maxTokens: 64 });
 * const text = await llm.invoke("Once upon a time");
 * ```
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the fields are set by initModel.
export class StudioLLM extends LLM<StudioLLMCallOptions> {
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
    return [...LLM_SETTINGS.serializableKeys];
  }

  /** Call options that legacy chains must pass to the model instead of reading as inputs. */
  override get callKeys(): string[] {
    return [...new Set([...super.callKeys, ...LLM_SETTINGS.callKeys])];
  }

  /**
   * Non-enumerable (set in the constructor) so that logging the model does not print the key;
   * it is still here for `toJSON()`, which writes it out as a secret reference.
   */
  declare readonly apiKey?: string;
  streaming = false;
  streamUsage = true;

  readonly #client: StudioClient;

  constructor(model: string, fields?: Omit<StudioLLMFields, "model">);
  constructor(fields: StudioLLMFields);
  constructor(
    modelOrFields: string | StudioLLMFields,
    moreFields?: Omit<StudioLLMFields, "model">,
  ) {
    const fields = fieldsOf(modelOrFields, moreFields);
    const settings = parseModelFields(LLM_SETTINGS, fields, LLM_FIELD_KEYS);
    super(fields);
    this.#client = initModel(this, fields, settings);
  }

  override _llmType(): string {
    return "studio";
  }

  /**
   * The client this model sends through: the `client` option, or one built from the options
   * (a getter, so the client is no enumerable field of the model).
   */
  get client(): StudioClient {
    return this.#client;
  }

  /** The snake_case request parameters for a call: call option, else field, then `modelKwargs`. */
  override invocationParams(options?: this["ParsedCallOptions"]): CompletionParams {
    return completionParams(LLM_SETTINGS, this, options);
  }

  override _identifyingParams(): Record<string, unknown> {
    return { model_name: this.model, ...this.invocationParams() };
  }

  getLsParams(options?: this["ParsedCallOptions"]): StudioLLMLsParams {
    return lsParams(completionParams(LLM_SETTINGS, this, options), "llm");
  }

  /** A local estimate, never a tokenizer download (see models/tokens). */
  override async getNumTokens(content: MessageContent): Promise<number> {
    return estimateTokens(contentText(content));
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
   * One request per prompt, run concurrently, at most `maxConcurrency` at once; the results stay in
   * prompt order whatever order the answers come in. With
   * `streaming`, each request is streamed and its tokens reach the callbacks as they arrive.
   */
  override async _generate(
    prompts: string[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<LLMResult> {
    this.#checkCall(options);
    const results = await Promise.all(
      prompts.map((prompt, promptIndex) =>
        runRequest(this, options.signal, () =>
          this.#runPrompt(prompt, promptIndex, options, runManager),
        ),
      ),
    ).catch((error: unknown) => {
      throw asContextOverflow(error);
    });
    let tokenUsage: TokenUsage | undefined;
    for (const result of results) tokenUsage = addTokenUsage(tokenUsage, result.tokenUsage);
    return {
      generations: results.map((result) => result.generations),
      llmOutput: tokenUsage === undefined ? {} : { tokenUsage },
    };
  }

  /** One prompt's request: streamed (tokens to the callbacks) when `streaming` is on. */
  async #runPrompt(
    prompt: string,
    promptIndex: number,
    options: this["ParsedCallOptions"],
    runManager: CallbackManagerForLLMRun | undefined,
  ): Promise<PromptResult> {
    if (!this.streaming) {
      const body: TextCompletionRequest = { ...this.invocationParams(options), prompt };
      const completion = await this.client.textCompletion(body, requestOptions(options));
      const generations = convertTextCompletionToGenerations(completion, body.model);
      if (generations.length === 0) throw noChoicesError();
      return { generations, tokenUsage: convertUsageToTokenUsage(completion.usage) };
    }
    const accumulator = new TextStreamAccumulator(this.model);
    for await (const event of this.client.streamTextCompletion(
      this.#streamBody(prompt, options),
      requestOptions(options),
    )) {
      for (const { index, chunk } of accumulator.add(event)) {
        await reportToken(runManager, chunk, promptIndex, index);
      }
    }
    const generations = accumulator.generations();
    if (generations.length === 0) throw noChoicesError();
    const usage = (options.streamUsage ?? this.streamUsage) ? accumulator.usage : undefined;
    return { generations, tokenUsage: convertUsageToTokenUsage(usage) };
  }

  /**
   * Streams one sequence. With `n > 1` the service interleaves several; chunks are concatenated
   * by core, so only choice 0 is yielded, while every choice's tokens still reach the callbacks
   * (`idx.completion` tells them apart). Use `generate()` to get all n. The finishing chunk is
   * held back to the end so that the usage (the last one sent: servers that repeat it send a
   * running total) rides on it.
   */
  override async *_streamResponseChunks(
    prompt: string,
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<GenerationChunk> {
    this.#checkCall(options);
    const stream = this.client.streamTextCompletion(
      this.#streamBody(prompt, options),
      requestOptions(options),
    );
    let finishing: GenerationChunk | undefined;
    let tokenUsage: TokenUsage | undefined;
    try {
      for await (const event of stream) {
        tokenUsage = convertUsageToTokenUsage(event.usage) ?? tokenUsage;
        for (const { index, chunk } of convertTextChunkToGenerationChunks(event, this.model)) {
          await reportToken(runManager, chunk, 0, index);
          if (index !== 0) continue;
          if (chunk.generationInfo?.finish_reason !== undefined) finishing = chunk;
          else yield chunk;
        }
      }
    } catch (error) {
      throw asContextOverflow(error);
    }
    if (!(options.streamUsage ?? this.streamUsage)) tokenUsage = undefined;
    if (finishing !== undefined) {
      yield tokenUsage === undefined
        ? finishing
        : new GenerationChunk({
            text: finishing.text,
            generationInfo: { ...finishing.generationInfo, tokenUsage },
          });
    }
  }

  #streamBody(prompt: string, options: this["ParsedCallOptions"]): TextCompletionRequest {
    return {
      ...this.invocationParams(options),
      prompt,
      stream: true,
      ...streamOptions(this, options),
    };
  }

  /** Before any request: the call options, and the settings a completion needs. */
  #checkCall(options: this["ParsedCallOptions"]): void {
    options.signal?.throwIfAborted();
    validateCallOptions("StudioLLM", LLM_SETTINGS, options);
    assertCompletionSettings(this.client, "StudioLLM");
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
    { chunk },
  );
}

function noChoicesError(): StudioResponseError {
  return new StudioResponseError(
    "POST",
    PATHS.textCompletions,
    "the completion has no choices, so there is no text to return",
  );
}
