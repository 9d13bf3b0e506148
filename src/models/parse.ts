/**
 * The checks of a model's input, run before anything is sent: the constructor fields once, and
 * each call's options. Client options are the client's to check.
 */
import { StudioValidationError } from "../errors";
import { parseOrThrow } from "../validation";
import type {
  ModelSettings,
  SettingTable,
  StudioModelFields,
  StudioModelSettings,
} from "./settings";

/** Body fields the model sets itself; letting `modelKwargs` replace them would break the call. */
const RESERVED_BODY_FIELDS = new Set(["messages", "prompt", "stream", "model"]);

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
): StudioModelSettings<T> {
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
  const parsed = parseOrThrow(
    settings.fieldsSchema,
    { ...f, stop: f.stop ?? f.stopSequences },
    (key) => (key === "stop" ? stopField : key),
  );
  for (const key of Object.keys(parsed.modelKwargs ?? {})) {
    if (RESERVED_BODY_FIELDS.has(key)) {
      throw new StudioValidationError(
        `modelKwargs.${key}`,
        `is set by the model itself and cannot be overridden${key === "stream" ? ' (use "streaming" or .stream())' : ""}`,
      );
    }
  }
  return parsed;
}

/** Checks a call's setting overrides (the client checks `timeout`, `maxRetries` and `signal`). */
export function validateCallOptions(
  settings: ModelSettings<SettingTable>,
  options: object | undefined,
): void {
  if (options !== undefined) parseOrThrow(settings.callOptionsSchema, options);
}
