/**
 * The models' settings, each declared once below: its check, the request-body field it is sent
 * as, and whether a call may override it. Everything else is derived from these tables: the
 * constructor fields and call options (types, with the doc comments IDEs show), their checks, the
 * request body, `callKeys` and `lc_serializable_keys`. A new sampling option is one line in
 * `MODEL_SETTINGS` (a text-completions-only one in `LLM_SETTINGS`), plus its test.
 */
import * as z from "zod/v4/mini";
import { SERIALIZABLE_CLIENT_OPTION_NAMES } from "../client/options";
import type { StudioClientFields } from "../client/resolve";
import { describeFields } from "../field-docs";
import { MODEL_URI_PATTERN, samplingSchemas as shared } from "../validation";
import { useEnglishMessages } from "../zod-locale";
import { MODEL_REQUEST_OPTIONS, type ModelRequestOptions } from "./requests";

useEnglishMessages();

/** One setting of a model. */
export interface Setting {
  /** Checks the constructor field and the call option alike. */
  readonly schema: z.ZodMiniType;
  /** The request-body field it is sent as; none: the model uses it itself. */
  readonly wire?: string;
  /** Also a per-call option (`invoke(input, { temperature: 0 })`), which wins over the field. */
  readonly call?: true;
}

export type SettingTable = Readonly<Record<string, Setting>>;

/** A setting sent in the body under `wire` that a call may override, as every sampling option. */
function sampling<S extends z.ZodMiniType>(wire: string, schema: S) {
  return { schema, wire, call: true } as const;
}

const flag = z.boolean({ error: "must be true or false" });

const finiteNumber = z
  .number({ error: "must be a number" })
  .check(z.refine(Number.isFinite, { error: "must be a finite number" }));

function integerFrom1(error: string) {
  return z.number({ error: "must be a number" }).check(z.int({ error }), z.gte(1, { error }));
}

const maxConcurrency = z.number({ error: "must be a number" }).check(
  z.refine((v) => v === Number.POSITIVE_INFINITY || (Number.isInteger(v) && v >= 1), {
    error: "must be an integer >= 1, or Infinity for no limit",
  }),
);

/** The settings both models take. The temperature and topP ranges are shared with assistants. */
export const MODEL_SETTINGS = {
  /** Maximum tokens generated per output sequence (integer >= 1). */
  maxTokens: sampling("max_tokens", integerFrom1("must be a positive integer")),
  /** Sampling temperature, 0 to 2. */
  temperature: sampling("temperature", shared.temperature),
  /** Nucleus sampling, in (0, 1]. */
  topP: sampling("top_p", shared.topP),
  /** Number of output sequences (integer >= 1). */
  n: sampling("n", integerFrom1("must be an integer >= 1")),
  /** Stop sequences (alias `stopSequences`). An empty list in a call clears the model's. */
  stop: sampling(
    "stop",
    z.array(z.string({ error: "must be strings" }), { error: "must be an array of strings" }),
  ),
  /** Penalizes tokens that already appear in the text so far. */
  presencePenalty: sampling("presence_penalty", finiteNumber),
  /** Penalizes tokens by how often they already appear in the text so far. */
  frequencyPenalty: sampling("frequency_penalty", finiteNumber),
  /** The service's own `penalty` field (penalizes tokens already generated). */
  penalty: sampling("penalty", finiteNumber),
  /** Map of token to bias value. */
  logitBias: sampling(
    "logit_bias",
    z.record(z.string(), z.number({ error: "values must be numbers" }), {
      error: "must be an object of token to number",
    }),
  ),
  /** Sampling seed (integer), for servers that support reproducible sampling. */
  seed: sampling(
    "seed",
    z.number({ error: "must be a number" }).check(z.int({ error: "must be an integer" })),
  ),
  /** End-user id, passed on as `user`. */
  user: sampling("user", z.string({ error: "must be a string" })),
  /** Stream under the hood even for `invoke`. */
  streaming: { schema: flag },
  /**
   * Ask for token usage on streams (`stream_options: {include_usage: true}`; default true). It
   * arrives on the last streamed chunk. A call's option overrides the model's.
   */
  streamUsage: { schema: flag, call: true },
  /** Most requests in flight at once for this instance (integer >= 1, or Infinity). */
  maxConcurrency: { schema: maxConcurrency },
  /** Extra request-body fields, sent as given (snake_case); they win over the fields above. */
  modelKwargs: {
    schema: z.record(z.string(), z.unknown(), { error: "must be an object of extra body fields" }),
  },
} as const satisfies SettingTable;

const MODEL_SETTING_DOCS = {
  maxTokens: "Maximum tokens generated per output sequence (an integer >= 1)",
  temperature: "Sampling temperature, 0 to 2",
  topP: "Nucleus sampling, in (0, 1]",
  n: "Number of output sequences (an integer >= 1); `n > 1` gives n generations",
  stop: "Stop sequences (alias `stopSequences`); an empty list in a call clears the model's",
  presencePenalty: "Penalizes tokens that already appear in the text so far",
  frequencyPenalty: "Penalizes tokens by how often they already appear in the text so far",
  penalty: "The service's own `penalty` field (penalizes tokens already generated)",
  logitBias: "Map of token to bias value",
  seed: "Sampling seed (an integer), for servers that support reproducible sampling",
  user: "End-user id, passed on as `user`",
  streaming: "Stream under the hood even for `invoke`",
  streamUsage:
    "Ask for token usage on streams (`stream_options: {include_usage: true}`); it arrives on " +
    "the last chunk",
  maxConcurrency:
    "Most requests in flight at once for this instance (bounds `batch()` and `generate()`), " +
    "or `Infinity`",
  modelKwargs: "Extra request-body fields, sent as given (snake_case); they win over the above",
} as const;

describeFields("chat-model", MODEL_SETTINGS, MODEL_SETTING_DOCS);

/** The settings of table `T` as optional fields, each documented by its entry's doc comment. */
export type SettingFields<T extends SettingTable> = {
  -readonly [K in keyof T]?: z.output<T[K]["schema"]>;
};

type CallOptionName<T extends SettingTable> = {
  [K in keyof T]: T[K] extends { call: true } ? K : never;
}[keyof T];

interface ModelUri {
  /** Model uri `<owner>/<model-name>`. */
  model: string;
}

/** The checked settings a model keeps (and reads at each call, so a changed field applies). */
export type StudioModelSettings<T extends SettingTable = typeof MODEL_SETTINGS> = ModelUri &
  SettingFields<T>;

/** Constructor fields of a model: the client options or a `client`, and the settings. */
export type StudioModelFields<T extends SettingTable = typeof MODEL_SETTINGS> = StudioClientFields &
  StudioModelSettings<T> & {
    /** Alias of `stop`. */
    stopSequences?: string[];
  };

/** Per-call options of a model: the settings a call may override, and the request options. */
export type StudioSamplingCallOptions<T extends SettingTable = typeof MODEL_SETTINGS> = Pick<
  SettingFields<T>,
  CallOptionName<T>
> &
  ModelRequestOptions;

/** One model class's settings: its table, and what is derived from it, once. */
export interface ModelSettings<T extends SettingTable> {
  readonly table: T;
  /** Checks the settings among the constructor fields (the client checks its own options). */
  readonly fieldsSchema: z.ZodMiniType<StudioModelSettings<T>>;
  /** Checks the settings among a call's options. */
  readonly callOptionsSchema: z.ZodMiniType;
  /** Call options that legacy chains must pass to the model instead of reading as inputs. */
  readonly callKeys: readonly string[];
  /** Constructor fields that `toJSON()` keeps (core writes `apiKey` as a secret reference). */
  readonly serializableKeys: readonly string[];
}

const modelUri = z
  .string({ error: "must be a string" })
  .check(
    z.regex(MODEL_URI_PATTERN, { error: 'must be a model uri shaped "<owner>/<model-name>"' }),
  );

/**
 * `callOnly`: checks of call options that are no setting (no field, no body field of their own).
 */
function defineModelSettings<T extends SettingTable>(
  table: T,
  callOnly: Record<string, z.ZodMiniType> = {},
): ModelSettings<T> {
  const settings = Object.entries(table);
  const callOptions = settings.filter(([, setting]) => setting.call);
  const callOnlyChecks = Object.entries(callOnly).map(([name, schema]): [string, Setting] => [
    name,
    { schema },
  ]);
  return {
    table,
    // Built from the table's entries, so it parses to the table's fields (TS cannot follow
    // Object.fromEntries).
    fieldsSchema: z.object({
      model: modelUri,
      ...optionalShape(settings),
    }) as z.ZodMiniType as z.ZodMiniType<StudioModelSettings<T>>,
    callOptionsSchema: z.object(optionalShape([...callOptions, ...callOnlyChecks])),
    callKeys: [...callOptions.map(([name]) => name), ...MODEL_REQUEST_OPTIONS],
    serializableKeys: [
      "model",
      ...SERIALIZABLE_CLIENT_OPTION_NAMES,
      ...Object.keys(table),
      "stopSequences",
    ],
  };
}

function optionalShape(settings: [string, Setting][]): Record<string, z.ZodMiniType> {
  return Object.fromEntries(settings.map(([name, { schema }]) => [name, z.optional(schema)]));
}

/**
 * `ChatStudio`'s settings; the tool-call flags (set by `bindTools`) are checked as call options.
 */
export const CHAT_SETTINGS = defineModelSettings(MODEL_SETTINGS, {
  parallel_tool_calls: flag,
  strict: flag,
});

/** `StudioLLM`'s settings: the shared ones and those of text completions only. */
export const LLM_SETTINGS = defineModelSettings({
  ...MODEL_SETTINGS,
  /** Return the prompt followed by the completion, as the service does with `echo: true`. */
  echo: sampling("echo", flag),
});

export type LLMSettingTable = (typeof LLM_SETTINGS)["table"];

describeFields("llm", LLM_SETTINGS.table, {
  ...MODEL_SETTING_DOCS,
  echo: "Return the prompt followed by the completion, as the service does with `echo: true`",
});
