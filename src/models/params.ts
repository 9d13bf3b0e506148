/**
 * The request fields of one call, built in one place for both models: each setting is the call
 * option, else the model's field, sent under its wire name; `modelKwargs` on top. The request
 * body and LangSmith's tracing fields are both built from it.
 */
import type { CompletionParams } from "../api-types";
import { definedOnly } from "./defined-only";
import type {
  ModelSettings,
  SettingTable,
  StudioModelSettings,
  StudioSamplingCallOptions,
} from "./settings";

/**
 * Unset values are left out, so the body carries only what the caller chose. An empty `stop` in
 * the call clears the model's stop sequences.
 */
export function completionParams<T extends SettingTable>(
  settings: ModelSettings<T>,
  model: StudioModelSettings<T>,
  options?: StudioSamplingCallOptions<T>,
): CompletionParams {
  const fields = model as Record<string, unknown>;
  const overrides = (options ?? {}) as Record<string, unknown>;
  const params: Record<string, unknown> = { model: model.model };
  for (const [name, { wire, call }] of Object.entries(settings.table)) {
    if (wire !== undefined) params[wire] = (call ? overrides[name] : undefined) ?? fields[name];
  }
  if (Array.isArray(params.stop) && params.stop.length === 0) params.stop = undefined;
  const modelKwargs = fields.modelKwargs as Record<string, unknown> | undefined;
  return definedOnly({ ...params, ...modelKwargs }) as CompletionParams;
}

/** `stream_options` of a streamed request: usage is asked for unless `streamUsage` is off. */
export function streamOptions(
  model: { streamUsage?: boolean | undefined },
  options: { streamUsage?: boolean | undefined } = {},
): { stream_options?: { include_usage: true } } {
  return (options.streamUsage ?? model.streamUsage ?? true)
    ? { stream_options: { include_usage: true } }
    : {};
}

/** LangSmith's tracing fields, from the same merged request fields; every key always present. */
export interface StudioLsParams<T extends "chat" | "llm"> {
  ls_provider: "studio";
  ls_model_name: string;
  ls_model_type: T;
  ls_temperature: number | undefined;
  ls_max_tokens: number | undefined;
  ls_stop: string[] | undefined;
}

export function lsParams<T extends "chat" | "llm">(
  params: CompletionParams,
  modelType: T,
): StudioLsParams<T> {
  return {
    ls_provider: "studio",
    ls_model_name: params.model,
    ls_model_type: modelType,
    ls_temperature: typeof params.temperature === "number" ? params.temperature : undefined,
    ls_max_tokens: typeof params.max_tokens === "number" ? params.max_tokens : undefined,
    ls_stop: Array.isArray(params.stop) ? params.stop : undefined,
  };
}
