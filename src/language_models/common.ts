/**
 * What the chat model (`ChatStudio`) and the text model (`StudioLLM`) share: one settings schema,
 * validated once in the constructor, and one merge of call options over settings (`call option
 * ?? field`, then `modelKwargs`) that the request body and `getLsParams` are both built from.
 */
import type { AsyncCaller } from "@langchain/core/utils/async_caller";
import * as z from "zod/v4/mini";
import type { CompletionParams } from "../api-types";
import type { StudioClient } from "../client";
import type { StudioClientFields } from "../client/resolve";
import { resolveClient } from "../client/resolve";
import type { RequestOptions } from "../client/types";
import { registerSecret, StudioConfigError, StudioValidationError } from "../errors";
import { describeValue, samplingSchemas as s } from "../validation";
import { useEnglishMessages } from "../zod-locale";

/** Constructor fields common to `ChatStudio` and `StudioLLM`: the client options or a `client`, and the sampling settings. */
export interface StudioModelFields extends StudioClientFields {
  /** Model uri `<owner>/<model-name>`. */
  model: string;
  /** Sampling temperature, 0 to 2. */
  temperature?: number;
  /** Maximum tokens generated per output sequence (integer >= 1). */
  maxTokens?: number;
  /** Nucleus sampling, in (0, 1]. */
  topP?: number;
  /** Number of output sequences (integer >= 1). */
  n?: number;
  /** Stop sequences. */
  stop?: string[];
  /** Alias of `stop`. */
  stopSequences?: string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** The service's own `penalty` field (penalizes tokens already generated). */
  penalty?: number;
  /** Map of token to bias value. */
  logitBias?: Record<string, number>;
  /** Sampling seed (integer), for servers that support reproducible sampling. */
  seed?: number;
  /** End-user id, passed on as `user`. */
  user?: string;
  /** Stream under the hood even for `invoke`. */
  streaming?: boolean;
  /**
   * Ask for token usage on streams (`stream_options: {include_usage: true}`; default true). It
   * arrives on the last streamed chunk.
   */
  streamUsage?: boolean;
  /** Most requests in flight at once for this instance (integer >= 1, or Infinity). */
  maxConcurrency?: number;
  /** Extra request-body fields, sent as given (snake_case); they win over the fields above. */
  modelKwargs?: Record<string, unknown>;
}

/** Per-call overrides common to both models. */
export interface StudioSamplingCallOptions {
  stop?: string[];
  timeout?: number;
  maxRetries?: number;
  signal?: AbortSignal;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  n?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  penalty?: number;
  logitBias?: Record<string, number>;
  seed?: number;
  user?: string;
  /** Overrides the model's `streamUsage` for this call. */
  streamUsage?: boolean;
}

useEnglishMessages();

const maxConcurrency = z.number({ error: "must be a number" }).check(
  z.refine((v) => v === Number.POSITIVE_INFINITY || (Number.isInteger(v) && v >= 1), {
    error: "must be an integer >= 1, or Infinity for no limit",
  }),
);

/** The one schema of both classes' settings (client options are the client's to check). */
const settingsSchema = z.object({
  model: s.model,
  temperature: z.optional(s.temperature),
  maxTokens: z.optional(s.maxTokens),
  topP: z.optional(s.topP),
  n: z.optional(s.n),
  stop: z.optional(s.stop),
  presencePenalty: z.optional(s.penalty),
  frequencyPenalty: z.optional(s.penalty),
  penalty: z.optional(s.penalty),
  logitBias: z.optional(s.logitBias),
  seed: z.optional(s.seed),
  user: z.optional(s.user),
  streaming: z.optional(s.flag),
  streamUsage: z.optional(s.flag),
  echo: z.optional(s.flag),
  maxConcurrency: z.optional(maxConcurrency),
  modelKwargs: z.optional(
    z.record(z.string(), z.unknown(), { error: "must be an object of extra body fields" }),
  ),
});

/** The validated settings a model keeps. */
export type StudioModelSettings = z.infer<typeof settingsSchema>;

/** Per-call options checked before a request: the sampling settings and the call-only flags. */
const callOptionsSchema = z.extend(
  z.pick(settingsSchema, {
    temperature: true,
    maxTokens: true,
    topP: true,
    n: true,
    stop: true,
    presencePenalty: true,
    frequencyPenalty: true,
    penalty: true,
    logitBias: true,
    seed: true,
    user: true,
    streamUsage: true,
    echo: true,
  }),
  { parallel_tool_calls: z.optional(s.flag), strict: z.optional(s.flag) },
);

/** Body fields the model sets itself; letting `modelKwargs` replace them would break the call. */
const RESERVED_BODY_FIELDS = new Set(["messages", "prompt", "stream", "model"]);

/** Secret fields and the env var each is loaded from when a serialized model is revived. */
export const STUDIO_SECRETS: Record<string, string> = { apiKey: "STUDIO_API_KEY" };

/** Serialized names of alias fields. */
export const STUDIO_ALIASES: Record<string, string> = { stopSequences: "stop" };

/**
 * Constructor fields that go into `toJSON()`. `client`, `fetch` and `dispatcher` are left out
 * (live objects), `defaultHeaders` too (they may carry credentials); `apiKey` is written back by
 * core as a secret reference, so `lc_kwargs` never holds the key.
 */
export const STUDIO_SERIALIZABLE_KEYS: readonly string[] = [
  "model",
  "orgId",
  "proxyUrl",
  "baseUrl",
  "timeout",
  "streamIdleTimeout",
  "streamTimeout",
  "maxRetries",
  "maxResponseBytes",
  "connections",
  "temperature",
  "maxTokens",
  "topP",
  "n",
  "stop",
  "stopSequences",
  "presencePenalty",
  "frequencyPenalty",
  "penalty",
  "logitBias",
  "seed",
  "user",
  "streaming",
  "streamUsage",
  "maxConcurrency",
  "modelKwargs",
];

/**
 * Call options both models take, which legacy chains must pass to the model instead of reading
 * as inputs (core's own, such as `stop` and `signal`, come from `super.callKeys`).
 */
export const SAMPLING_CALL_OPTION_KEYS: readonly string[] = [
  "maxRetries",
  "temperature",
  "maxTokens",
  "topP",
  "n",
  "presencePenalty",
  "frequencyPenalty",
  "penalty",
  "logitBias",
  "seed",
  "user",
  "streamUsage",
];

/** `new X("owner/model", fields)` and `new X({ model, ...fields })` to one fields object. */
export function fieldsOf<F extends { model: string }>(
  modelOrFields: string | F,
  fields?: Omit<F, "model">,
): F {
  if (typeof modelOrFields === "string") return { ...fields, model: modelOrFields } as F;
  return modelOrFields;
}

/**
 * Validates the constructor fields against the one schema (throws `StudioValidationError`
 * naming the field) and returns the settings to keep. Nothing is sent; client options are
 * checked by the client, and missing addresses or key at the first call.
 */
export function parseModelFields(fields: unknown): StudioModelSettings {
  if (fields === null || typeof fields !== "object") {
    throw new StudioValidationError("fields", 'must be an object such as { model: "owner/name" }');
  }
  const f = fields as StudioModelFields;
  if (f.model === undefined || f.model === "") {
    throw new StudioValidationError(
      "model",
      'is required: pass the model uri, e.g. new ChatStudio("<owner>/<model-name>")',
    );
  }
  if (f.stop !== undefined && f.stopSequences !== undefined) {
    throw new StudioValidationError(
      "stopSequences",
      'is an alias of "stop"; pass only one of them',
    );
  }
  const stopField = f.stopSequences !== undefined ? "stopSequences" : "stop";
  const settings = parseOrThrow(settingsSchema, { ...f, stop: f.stop ?? f.stopSequences }, (k) =>
    k === "stop" ? stopField : k,
  );
  for (const key of Object.keys(settings.modelKwargs ?? {})) {
    if (RESERVED_BODY_FIELDS.has(key)) {
      throw new StudioValidationError(
        `modelKwargs.${key}`,
        `is set by the model itself and cannot be overridden${key === "stream" ? ' (use "streaming" or .stream())' : ""}`,
      );
    }
  }
  registerSecret(f.apiKey);
  return settings;
}

/** Validates per-call overrides (the client checks `timeout`, `maxRetries` and `signal`). */
export function validateCallOptions(options: object | undefined): void {
  if (options !== undefined) parseOrThrow(callOptionsSchema, options, (k) => k);
}

function parseOrThrow<T>(
  schema: z.ZodMiniType<T>,
  value: object,
  fieldName: (key: string) => string,
): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const key = String(issue?.path[0] ?? "options");
  const bad = (value as Record<string, unknown>)[key];
  const field = fieldName(key);
  throw new StudioValidationError(
    field,
    `${issue?.message ?? "is invalid"} (got ${describeValue(bad)})`,
  );
}

/**
 * The request fields of one call, the one merge of both classes: each is the call option, else
 * the model's field; `modelKwargs` on top. Unset values are left out, so the body carries only
 * what the caller chose. An empty `stop` in the call clears the model's stop sequences.
 */
export function completionParams(
  settings: StudioModelSettings,
  options: StudioSamplingCallOptions = {},
): CompletionParams {
  const stop = options.stop ?? settings.stop;
  return definedOnly({
    model: settings.model,
    max_tokens: options.maxTokens ?? settings.maxTokens,
    temperature: options.temperature ?? settings.temperature,
    top_p: options.topP ?? settings.topP,
    n: options.n ?? settings.n,
    stop: stop !== undefined && stop.length > 0 ? stop : undefined,
    presence_penalty: options.presencePenalty ?? settings.presencePenalty,
    frequency_penalty: options.frequencyPenalty ?? settings.frequencyPenalty,
    penalty: options.penalty ?? settings.penalty,
    logit_bias: options.logitBias ?? settings.logitBias,
    seed: options.seed ?? settings.seed,
    user: options.user ?? settings.user,
    ...settings.modelKwargs,
  });
}

/** `stream_options` of a streamed request: usage is asked for unless `streamUsage` is off. */
export function streamOptions(
  settings: StudioModelSettings,
  options: StudioSamplingCallOptions = {},
): { stream_options?: { include_usage: true } } {
  return (options.streamUsage ?? settings.streamUsage ?? true)
    ? { stream_options: { include_usage: true } }
    : {};
}

export function definedOnly<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = v;
  return out as T;
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

/** Options for one client call: the caller's signal, timeout and retries, when given. */
export function requestOptions(options: StudioSamplingCallOptions = {}): RequestOptions {
  return definedOnly({
    signal: options.signal,
    timeout: options.timeout,
    maxRetries: options.maxRetries,
  });
}

/**
 * The parameters to hand to core's base class: everything the user gave, but with the
 * `AsyncCaller`'s retries off, because the client already retries (one layer, or attempts
 * multiply). `maxConcurrency` is kept: core's caller enforces it.
 */
export function baseModelParams<T extends object>(fields: T): T {
  return { ...fields, maxRetries: 0 };
}

/**
 * Runs one request of a model. Through core's caller only when `maxConcurrency` bounds requests
 * in flight: without a bound the caller has nothing to queue, and nothing to retry either (its
 * retries are off, see `baseModelParams`), so the request runs directly. The client honours the
 * abort signal itself either way.
 */
export function runRequest<T>(
  model: { maxConcurrency?: number | undefined; caller: AsyncCaller },
  signal: AbortSignal | undefined,
  request: () => Promise<T>,
): Promise<T> {
  if (model.maxConcurrency === undefined) return request();
  return model.caller.callWithOptions({ signal }, request);
}

/**
 * Stores the API key on a model as a non-enumerable own property: `console.log(model)` and
 * `util.inspect` then never print it, while core's `toJSON()` (which reads the secret-mapped
 * field directly) still writes the `STUDIO_API_KEY` secret reference in its place.
 */
function defineApiKey(model: object, apiKey: string | undefined): void {
  if (apiKey !== undefined) {
    Object.defineProperty(model, "apiKey", { value: apiKey, enumerable: false });
  }
}

/**
 * What both model constructors do after `super`: keep the validated settings and the address,
 * timeout and retry fields on the model (read by introspection and serialization), the key as a
 * hidden field, and return the model's client (the `client` option, or one built from the
 * options).
 */
export function initModel(
  model: object,
  fields: StudioModelFields,
  settings: StudioModelSettings,
): StudioClient {
  Object.assign(model, settings, {
    orgId: fields.orgId,
    proxyUrl: fields.proxyUrl,
    baseUrl: fields.baseUrl,
    timeout: fields.timeout,
    maxRetries: fields.maxRetries,
  });
  defineApiKey(model, fields.apiKey);
  return resolveClient(fields);
}

/**
 * Before a completion is sent: every setting it needs that is missing, named at once, with the
 * two addresses told apart (the client would report them one at a time).
 */
export function assertCompletionSettings(client: StudioClient, className: string): void {
  const config = client.toJSON();
  const missing: [option: string, env: string, what: string][] = [];
  if (config.proxyUrl === undefined) {
    missing.push([
      "proxyUrl",
      "STUDIO_PROXY_URL",
      "the inference address for chat and text completions",
    ]);
  }
  if (config.apiKey === undefined) missing.push(["apiKey", "STUDIO_API_KEY", "the API key"]);
  const first = missing[0];
  if (first === undefined) return;
  const list = missing
    .map(([option, env, what]) => `${option} (${what}; env ${env})`)
    .join(" and ");
  throw new StudioConfigError(
    first[0],
    first[1],
    `${className} cannot send a request: missing ${list}. Pass ${missing.length > 1 ? "them as options" : "it as an option"} or set the environment variable${missing.length > 1 ? "s" : ""}. (baseUrl, env STUDIO_BASE_URL, is the studio address for threads, assistants, models and datasets; completions do not use it.)`,
  );
}
