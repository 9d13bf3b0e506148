/**
 * What the chat model (`ChatStudio`) and the text model (`StudioLLM`) share: their constructor
 * fields, the validation of those fields and of per-call overrides, the client they talk through,
 * and the one builder of the snake_case request parameters that `invocationParams`, `getLsParams`
 * and the request body all come from.
 */
import type { CompletionParams } from "../api-types";
import { StudioClient } from "../client";
import type { RequestOptions } from "../client/types";
import { registerSecret, StudioValidationError } from "../errors";
import { type SamplingField, validateField } from "../validation";

export { convertUsage } from "../converters/usage";

/** Constructor fields common to `ChatStudio` and `StudioLLM`. */
export interface StudioModelFields {
  /** Model uri `<owner>/<model-name>`. */
  model: string;
  /** API key. Env: `STUDIO_API_KEY` (read by the client). */
  apiKey?: string;
  /** Organization id (`X-Org-Id`). Env: `STUDIO_ORG_ID`. */
  orgId?: string;
  /** Inference address. Env: `STUDIO_PROXY_URL`. */
  proxyUrl?: string;
  /** Studio address. Env: `STUDIO_BASE_URL`. */
  baseUrl?: string;
  /** A ready client; when given, the address, key and org fields above are not used. */
  client?: StudioClient;
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
  /** Stream under the hood even for `invoke`. */
  streaming?: boolean;
  /** Request timeout in ms, passed to the client. */
  timeout?: number;
  /** Retries after the first attempt, done by the client only (default: the client's, 2). */
  maxRetries?: number;
  /** Extra request-body fields, sent as given (snake_case); they win over the fields above. */
  modelKwargs?: Record<string, unknown>;
}

/** Per-call overrides common to both models (on top of core's `stop`, `timeout`, `maxRetries`). */
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
}

/** The settings a model instance holds after validation (`this` of both classes satisfies it). */
export interface StudioModelSettings {
  model: string;
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  topP?: number | undefined;
  n?: number | undefined;
  stop?: string[] | undefined;
  presencePenalty?: number | undefined;
  frequencyPenalty?: number | undefined;
  penalty?: number | undefined;
  logitBias?: Record<string, number> | undefined;
  timeout?: number | undefined;
  maxRetries?: number | undefined;
  modelKwargs?: Record<string, unknown> | undefined;
}

/** Secret fields and the env var each is loaded from when a serialized model is revived. */
export const STUDIO_SECRETS: Record<string, string> = { apiKey: "STUDIO_API_KEY" };

/** Serialized names of alias fields. */
export const STUDIO_ALIASES: Record<string, string> = { stopSequences: "stop" };

/**
 * Constructor fields that go into `toJSON()`. `client` is left out on purpose (it holds the key
 * and sockets); `apiKey` is left out of the plain kwargs and written back by core as a secret
 * reference, so `lc_kwargs` never holds the key either.
 */
export const STUDIO_SERIALIZABLE_KEYS: readonly string[] = [
  "model",
  "orgId",
  "proxyUrl",
  "baseUrl",
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
  "streaming",
  "streamUsage",
  "timeout",
  "maxRetries",
  "maxConcurrency",
  "modelKwargs",
];

/** Body fields the model sets itself; letting `modelKwargs` replace them would break the call. */
const RESERVED_BODY_FIELDS = new Set(["messages", "prompt", "stream", "model"]);

/**
 * Validates the constructor fields (throws `StudioValidationError` naming the field) and returns
 * the settings to keep. Nothing is sent; a missing key or address is left to the client, which
 * raises `StudioConfigError` at the first call.
 */
export function resolveModelSettings(fields: StudioModelFields): StudioModelSettings {
  if (fields === null || typeof fields !== "object") {
    throw new StudioValidationError("fields", 'must be an object such as { model: "owner/name" }');
  }
  if (fields.model === undefined || fields.model === "") {
    throw new StudioValidationError(
      "model",
      'is required: pass the model uri, e.g. { model: "<owner>/<model-name>" }',
    );
  }
  validateField("model", "model", fields.model);
  if (fields.stop !== undefined && fields.stopSequences !== undefined) {
    throw new StudioValidationError(
      "stopSequences",
      'is an alias of "stop"; pass only one of them',
    );
  }
  const settings: StudioModelSettings = {
    model: fields.model,
    temperature: fields.temperature,
    maxTokens: fields.maxTokens,
    topP: fields.topP,
    n: fields.n,
    stop: fields.stop ?? fields.stopSequences,
    presencePenalty: fields.presencePenalty,
    frequencyPenalty: fields.frequencyPenalty,
    penalty: fields.penalty,
    logitBias: fields.logitBias,
    timeout: fields.timeout,
    maxRetries: fields.maxRetries,
    modelKwargs: fields.modelKwargs,
  };
  validateSamplingValues(settings, fields.stopSequences !== undefined ? "stopSequences" : "stop");
  validateField("timeout", "timeout", fields.timeout);
  validateField("maxRetries", "maxRetries", fields.maxRetries);
  validateModelKwargs(fields.modelKwargs);
  for (const key of ["apiKey", "orgId", "proxyUrl", "baseUrl"] as const) {
    const value = fields[key];
    if (value !== undefined && typeof value !== "string") {
      throw new StudioValidationError(key, "must be a string");
    }
  }
  if (fields.client !== undefined && !(fields.client instanceof StudioClient)) {
    throw new StudioValidationError("client", "must be a StudioClient instance");
  }
  registerSecret(fields.apiKey);
  return settings;
}

/** Validates per-call overrides; runs before any request. */
export function validateCallOptions(options: StudioSamplingCallOptions): void {
  // One pass over the keys actually present (see `ownOptionKeys`).
  for (const key of ownOptionKeys(options)) {
    const kind = CALL_OPTION_KINDS[key];
    if (kind !== undefined)
      validateField(kind, key, options[key as keyof StudioSamplingCallOptions]);
  }
}

/** Which validator checks each per-call option. */
const CALL_OPTION_KINDS: Record<string, SamplingField | undefined> = {
  temperature: "temperature",
  maxTokens: "maxTokens",
  topP: "topP",
  n: "n",
  stop: "stop",
  presencePenalty: "penalty",
  frequencyPenalty: "penalty",
  penalty: "penalty",
  logitBias: "logitBias",
  timeout: "timeout",
  maxRetries: "maxRetries",
};

/**
 * The keys of a call-options object. Core builds these objects with spreads and `delete`s, which
 * leaves them in dictionary mode, where every read of an absent key walks the prototype chain;
 * reading the dozen possible options one by one measured about 3 µs per call, a pass over the
 * two or three keys present costs almost nothing.
 */
function ownOptionKeys(options: object | undefined): string[] {
  return options ? Object.keys(options) : [];
}

function validateSamplingValues(
  values: Omit<StudioSamplingCallOptions, "signal">,
  stopField: string,
): void {
  validateField("temperature", "temperature", values.temperature);
  validateField("maxTokens", "maxTokens", values.maxTokens);
  validateField("topP", "topP", values.topP);
  validateField("n", "n", values.n);
  validateField("stop", stopField, values.stop);
  validateField("penalty", "presencePenalty", values.presencePenalty);
  validateField("penalty", "frequencyPenalty", values.frequencyPenalty);
  validateField("penalty", "penalty", values.penalty);
  validateField("logitBias", "logitBias", values.logitBias);
}

function validateModelKwargs(modelKwargs: unknown): void {
  if (modelKwargs === undefined) return;
  if (modelKwargs === null || typeof modelKwargs !== "object" || Array.isArray(modelKwargs)) {
    throw new StudioValidationError("modelKwargs", "must be an object of extra body fields");
  }
  for (const key of Object.keys(modelKwargs)) {
    if (RESERVED_BODY_FIELDS.has(key)) {
      throw new StudioValidationError(
        `modelKwargs.${key}`,
        `is set by the model itself and cannot be overridden${key === "stream" ? ' (use "streaming" or .stream())' : ""}`,
      );
    }
  }
}

/**
 * Returns a function giving the instance's client: the `client` field when given, else one
 * `StudioClient` built on first use from the fields (the client reads the env for what is
 * missing). Built lazily so a model that is never called opens no sockets, and held in a closure
 * so the key is not one more enumerable field on the model.
 */
export function clientResolver(fields: StudioModelFields): () => StudioClient {
  if (fields.client) {
    const given = fields.client;
    return () => given;
  }
  let client: StudioClient | undefined;
  const { apiKey, orgId, proxyUrl, baseUrl, timeout, maxRetries } = fields;
  return () => {
    if (client === undefined) {
      client = new StudioClient({
        ...(apiKey !== undefined && { apiKey }),
        ...(orgId !== undefined && { orgId }),
        ...(proxyUrl !== undefined && { proxyUrl }),
        ...(baseUrl !== undefined && { baseUrl }),
        ...(timeout !== undefined && { timeout }),
        ...(maxRetries !== undefined && { maxRetries }),
      });
    }
    return client;
  };
}

/**
 * The parameters to hand to core's base class: everything the user gave, but with the
 * `AsyncCaller`'s retries off, because the client already retries (one layer, or attempts
 * multiply). `maxConcurrency` is kept.
 */
export function baseModelParams<T extends { maxRetries?: number }>(fields: T): T {
  return { ...fields, maxRetries: 0 };
}

/**
 * The snake_case request parameters shared by chat and text completions: call option, else
 * field, then `modelKwargs` on top. Unset values are left out so the body carries only what the
 * caller chose.
 */
export function buildCompletionParams(
  settings: StudioModelSettings,
  options?: StudioSamplingCallOptions,
): CompletionParams {
  const params: CompletionParams = { model: settings.model };
  if (settings.maxTokens !== undefined) params.max_tokens = settings.maxTokens;
  if (settings.temperature !== undefined) params.temperature = settings.temperature;
  if (settings.topP !== undefined) params.top_p = settings.topP;
  if (settings.n !== undefined) params.n = settings.n;
  if (settings.stop !== undefined && settings.stop.length > 0) params.stop = settings.stop;
  if (settings.presencePenalty !== undefined) params.presence_penalty = settings.presencePenalty;
  if (settings.frequencyPenalty !== undefined) params.frequency_penalty = settings.frequencyPenalty;
  if (settings.penalty !== undefined) params.penalty = settings.penalty;
  if (settings.logitBias !== undefined) params.logit_bias = settings.logitBias;
  for (const key of ownOptionKeys(options)) {
    const wire = WIRE_NAMES[key];
    if (wire === undefined) continue;
    const value = (options as Record<string, unknown>)[key];
    if (value === undefined) continue;
    // An empty stop list in the call clears the model's stop sequences.
    if (wire === "stop" && Array.isArray(value) && value.length === 0) delete params.stop;
    else params[wire] = value;
  }
  if (settings.modelKwargs !== undefined) Object.assign(params, settings.modelKwargs);
  return params;
}

/** Per-call option name -> wire field. */
const WIRE_NAMES: Record<string, string | undefined> = {
  maxTokens: "max_tokens",
  temperature: "temperature",
  topP: "top_p",
  n: "n",
  stop: "stop",
  presencePenalty: "presence_penalty",
  frequencyPenalty: "frequency_penalty",
  penalty: "penalty",
  logitBias: "logit_bias",
};

/** The LangSmith fields both models derive from the request parameters. */
export function completionLsParams(params: CompletionParams): {
  ls_provider: "studio";
  ls_model_name: string;
  ls_temperature?: number;
  ls_max_tokens?: number;
  ls_stop?: string[];
} {
  return {
    ls_provider: "studio",
    ls_model_name: params.model,
    ...(typeof params.temperature === "number" && { ls_temperature: params.temperature }),
    ...(typeof params.max_tokens === "number" && { ls_max_tokens: params.max_tokens }),
    ...(Array.isArray(params.stop) && { ls_stop: params.stop }),
  };
}

/** Options for one client call: the caller's signal, timeout and retries (call, else field). */
export function buildRequestOptions(
  settings: StudioModelSettings,
  options?: StudioSamplingCallOptions,
): RequestOptions {
  const requestOptions: RequestOptions = {};
  if (settings.timeout !== undefined) requestOptions.timeout = settings.timeout;
  if (settings.maxRetries !== undefined) requestOptions.maxRetries = settings.maxRetries;
  for (const key of ownOptionKeys(options)) {
    if (key !== "signal" && key !== "timeout" && key !== "maxRetries") continue;
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined) (requestOptions as Record<string, unknown>)[key] = value;
  }
  return requestOptions;
}

/**
 * Stores the API key on a model as a non-enumerable own property: `console.log(model)` and
 * `util.inspect` then never print it, while core's `toJSON()` (which reads the secret-mapped
 * field directly) still writes the `STUDIO_API_KEY` secret reference in its place.
 */
export function defineApiKey(model: object, apiKey: string | undefined): void {
  if (apiKey !== undefined) {
    Object.defineProperty(model, "apiKey", { value: apiKey, enumerable: false });
  }
}

/** `true` or `false` when given (flags such as `streaming`, `echo`, `streamUsage`). */
export function validateBoolean(field: string, value: unknown): void {
  if (value !== undefined && typeof value !== "boolean") {
    throw new StudioValidationError(field, `must be true or false (got ${typeof value})`);
  }
}

/** Core's queue limit: a whole number >= 1, or Infinity for none. */
export function validateMaxConcurrency(value: unknown): void {
  if (value === undefined || value === Number.POSITIVE_INFINITY) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new StudioValidationError(
      "maxConcurrency",
      `must be an integer >= 1, or Infinity for no limit (got ${String(value)})`,
    );
  }
}
