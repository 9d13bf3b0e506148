import type { BaseLLMCallOptions, BaseLLMParams } from "@langchain/core/language_models/llms";
import type { StudioLsParams } from "../models/params";
import type {
  LLMSettingTable,
  StudioModelFields,
  StudioSamplingCallOptions,
} from "../models/settings";

export type { TokenUsage } from "../converters/usage";

/** Constructor fields of `StudioLLM`: the ones shared with `ChatStudio`, plus `echo`. */
export interface StudioLLMFields
  extends StudioModelFields<LLMSettingTable>,
    Omit<BaseLLMParams, "maxRetries"> {}

/** Per-call options of `StudioLLM` (`llm.invoke(prompt, { temperature: 0, echo: true })`). */
export interface StudioLLMCallOptions
  extends Omit<BaseLLMCallOptions, "signal" | "timeout">,
    StudioSamplingCallOptions<LLMSettingTable> {}

/** Tracing parameters of `StudioLLM` (core defines them for chat models only). */
export type StudioLLMLsParams = StudioLsParams<"llm">;
