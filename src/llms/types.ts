import type { BaseLLMCallOptions, BaseLLMParams } from "@langchain/core/language_models/llms";
import type { StudioModelFields, StudioSamplingCallOptions } from "../language_models/common";

export type { TokenUsage } from "../converters/text-completions";

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
export interface StudioLLMLsParams {
  ls_provider: "studio";
  ls_model_name: string;
  ls_model_type: "llm";
  ls_temperature?: number;
  ls_max_tokens?: number;
  ls_stop?: string[];
}
