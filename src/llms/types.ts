import type { BaseLLMCallOptions, BaseLLMParams } from "@langchain/core/language_models/llms";
import type {
  StudioLsParams,
  StudioModelFields,
  StudioSamplingCallOptions,
} from "../language_models/common";

export type { TokenUsage } from "../converters/usage";

/** Constructor fields of `StudioLLM`: the ones shared with `ChatStudio`, plus `echo`. */
export interface StudioLLMFields extends StudioModelFields, Omit<BaseLLMParams, "maxRetries"> {
  /** Return the prompt followed by the completion, as the service does with `echo: true`. */
  echo?: boolean;
}

/** Per-call options of `StudioLLM` (`llm.invoke(prompt, { temperature: 0, echo: true })`). */
export interface StudioLLMCallOptions
  extends Omit<BaseLLMCallOptions, "signal" | "timeout">,
    StudioSamplingCallOptions {
  echo?: boolean;
}

/** Tracing parameters of `StudioLLM` (core defines them for chat models only). */
export type StudioLLMLsParams = StudioLsParams<"llm">;
