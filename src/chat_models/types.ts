import type {
  BaseChatModelCallOptions,
  BaseChatModelParams,
  BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import type { StudioModelFields, StudioSamplingCallOptions } from "../models/settings";

/** Constructor input of `ChatStudio` (also `new ChatStudio("owner/model", fields)`). */
export interface ChatStudioInput extends StudioModelFields, BaseChatModelParams {
  /**
   * What the model can do (core's `ModelProfile`), over what the model listing says once
   * `loadProfile()` (or `ChatStudio.fromModel`) has read it.
   */
  profile?: ModelProfile;
}

/** Per-call options of `ChatStudio` (`invoke(input, options)`, `withConfig`, `bindTools`). */
export interface ChatStudioCallOptions
  extends BaseChatModelCallOptions,
    Omit<StudioSamplingCallOptions, "stop" | "timeout" | "maxRetries" | "signal"> {
  /** Tools the model may call; set by `bindTools`. */
  tools?: BindToolsInput[];
  /** Whether the model may call several tools in one turn (`parallel_tool_calls`). */
  parallel_tool_calls?: boolean;
  /** Sets `strict` on every bound tool (`bindTools(tools, { strict: true })`). */
  strict?: boolean;
  /**
   * `{ type: "json_object" }` or `{ type: "json_schema", json_schema: { name, schema, strict } }`
   * (set by `withStructuredOutput`'s jsonMode and jsonSchema methods).
   */
  response_format?: { type: "json_object" | "text" } | Record<string, unknown>;
}
