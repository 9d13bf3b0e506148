import type {
  BaseChatModelCallOptions,
  BaseChatModelParams,
  BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import type { StudioModelFields, StudioSamplingCallOptions } from "../language_models/common";

/** Constructor input of `ChatStudio`. */
export interface ChatStudioInput extends StudioModelFields, BaseChatModelParams {
  /**
   * Put token usage on the last streamed chunk (default true). Turn off to stream without the
   * usage chunk.
   */
  streamUsage?: boolean;
}

/** Per-call options of `ChatStudio` (`invoke(input, options)`, `withConfig`, `bindTools`). */
export interface ChatStudioCallOptions
  extends BaseChatModelCallOptions,
    Omit<StudioSamplingCallOptions, "stop" | "timeout" | "maxRetries" | "signal"> {
  /** Tools the model may call; set by `bindTools`. */
  tools?: BindToolsInput[];
  /** Overrides the model's `streamUsage` for this call. */
  streamUsage?: boolean;
  /** `{ type: "json_object" }` asks for a JSON reply (used by `withStructuredOutput` jsonMode). */
  response_format?: { type: "json_object" | "text" } | Record<string, unknown>;
}
