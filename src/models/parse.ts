/**
 * The checks of a model's input, run before anything is sent: the constructor fields once, and
 * each call's options. Client options are the client's to check.
 */
import { CLIENT_OPTION_NAMES } from "../client/options";
import { StudioValidationError } from "../errors";
import { closestName, type KnownKeys, parseFields, refuseUnknownKeys } from "../validation";
import type {
  ModelSettings,
  SettingTable,
  StudioModelFields,
  StudioModelSettings,
} from "./settings";

/** Body fields the model sets itself; letting `modelKwargs` replace them would break the call. */
const RESERVED_BODY_FIELDS = new Set(["messages", "prompt", "stream", "model"]);

/**
 * What core's model base classes take in their constructors (`BaseLanguageModelParams`, the same
 * in core 1.2.3 to 1.4.0): LangChain passes them, so a model accepts them beside its own fields.
 */
const LANGUAGE_MODEL_PARAMS = [
  "callbacks",
  "callbackManager",
  "verbose",
  "tags",
  "metadata",
  "cache",
  "maxConcurrency",
  "maxRetries",
  "onFailedAttempt",
] as const;

/** `BaseChatModelParams`: the above, and what only chat models take. */
export const CHAT_MODEL_PARAMS = [
  ...LANGUAGE_MODEL_PARAMS,
  "disableStreaming",
  "outputVersion",
] as const;

export const LLM_PARAMS = LANGUAGE_MODEL_PARAMS;

/** How other model classes name a field a model here takes (ChatOpenAI users write these). */
const OTHER_SPELLINGS: Readonly<Record<string, string>> = {
  modelName: 'did you mean "model"? (ChatOpenAI\'s modelName is model here)',
  max_tokens: 'did you mean "maxTokens"?',
  stop_sequences: 'did you mean "stop"?',
};

/** The constructor fields a model of `settings` knows: its own, the client's and LangChain's. */
export function modelFieldKeys(
  owner: string,
  settings: ModelSettings<SettingTable>,
  classKeys: readonly string[],
): KnownKeys {
  const own = ["model", ...Object.keys(settings.table), "stopSequences"];
  return {
    owner,
    known: [...own, ...classKeys, ...CLIENT_OPTION_NAMES, "client"],
    listed: [...own, "and the client options"],
    hints: OTHER_SPELLINGS,
  };
}

/** `new X("owner/model", fields)` and `new X({ model, ...fields })` to one fields object. */
export function fieldsOf<F extends { model: string }>(
  modelOrFields: string | F,
  fields?: Omit<F, "model">,
): F {
  if (typeof modelOrFields === "string") return { ...fields, model: modelOrFields } as F;
  return modelOrFields;
}

/**
 * The settings to keep, checked (a `StudioValidationError` names the field). Missing addresses or
 * key are reported at the first call, which is the first time they are needed.
 */
export function parseModelFields<T extends SettingTable>(
  settings: ModelSettings<T>,
  fields: unknown,
  known: KnownKeys,
): StudioModelSettings<T> {
  if (fields === null || typeof fields !== "object") {
    throw new StudioValidationError("fields", 'must be an object such as { model: "owner/name" }');
  }
  const f = fields as StudioModelFields;
  // Before `model` is required: `modelName` alone is the likelier mistake to name.
  refuseUnknownKeys(fields, known);
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
  const parsed = parseFields(
    settings.fieldsSchema,
    { ...f, stop: f.stop ?? f.stopSequences },
    "fields",
    { showValue: true, rename: (field) => field.replace(/^stop(?=$|\[)/, stopField) },
  );
  for (const key of Object.keys(parsed.modelKwargs ?? {})) {
    if (RESERVED_BODY_FIELDS.has(key)) {
      throw new StudioValidationError(
        `modelKwargs.${key}`,
        "is set by the model itself and cannot be " +
          `overridden${key === "stream" ? ' (use "streaming" or .stream())' : ""}`,
      );
    }
  }
  return parsed;
}

/**
 * Checks a call's setting overrides (the client checks `timeout`, `maxRetries` and `signal`).
 * A call's options also carry whatever LangChain and LangGraph put in a config (`store`,
 * `writer`, `context`, ...), so an unknown key is refused only when it is a near miss of a
 * setting's name (`maxToken`), which would otherwise be dropped without a word.
 */
export function validateCallOptions(
  owner: string,
  settings: ModelSettings<SettingTable>,
  options: object | undefined,
): void {
  if (options === undefined) return;
  const names = Object.keys(settings.table);
  for (const key of Object.keys(options)) {
    if (key.length < 4 || Object.hasOwn(settings.table, key)) continue;
    const close = closestName(key, names, { prefixes: false });
    if (close !== undefined && close !== key) {
      throw new StudioValidationError(
        key,
        `is not a ${owner} call option; did you mean "${close}"?`,
      );
    }
  }
  parseFields(settings.callOptionsSchema, options, "options", { showValue: true });
}
