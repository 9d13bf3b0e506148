/**
 * What both model constructors do: hand core's base class its parameters, then keep the settings,
 * some client options and the hidden key on the model, and get the model's client. Also the
 * serialization declarations both classes return.
 */
import type { StudioClient } from "../client";
import type { ClientOptionName, StudioClientOptions } from "../client/options";
import { resolveClient } from "../client/resolve";
import { registerSecret } from "../errors";
import type { SettingTable, StudioModelFields, StudioModelSettings } from "./settings";

/** Secret fields and the env var each is loaded from when a serialized model is revived. */
export const STUDIO_SECRETS: Readonly<Record<string, string>> = { apiKey: "STUDIO_API_KEY" };

/** Serialized names of alias fields. */
export const STUDIO_ALIASES: Readonly<Record<string, string>> = { stopSequences: "stop" };

/** The client options a model also keeps as fields, for introspection (`model.baseUrl`). */
const MODEL_CLIENT_FIELDS = [
  "orgId",
  "proxyUrl",
  "baseUrl",
  "timeout",
  "maxRetries",
] as const satisfies readonly ClientOptionName[];

export type StudioModelClientFields = Pick<
  StudioClientOptions,
  (typeof MODEL_CLIENT_FIELDS)[number]
>;

/**
 * The parameters to hand to core's base class: everything the user gave, but with the
 * `AsyncCaller`'s retries off, because the client already retries (one layer, or attempts
 * multiply). `maxConcurrency` is kept: core's caller enforces it.
 */
export function baseModelParams<T extends object>(fields: T): T {
  return { ...fields, maxRetries: 0 };
}

/**
 * What both model constructors do after `super`: keep the checked settings and the client fields
 * on the model (read by introspection, and by each call, so a changed field applies), the key as
 * a hidden field, and return the model's client (the `client` option, or one built from the
 * options).
 */
export function initModel<T extends SettingTable>(
  model: object,
  fields: StudioModelFields<T>,
  settings: StudioModelSettings<T>,
): StudioClient {
  Object.assign(model, settings);
  for (const name of MODEL_CLIENT_FIELDS) Object.assign(model, { [name]: fields[name] });
  defineApiKey(model, fields.apiKey);
  return resolveClient(fields);
}

/**
 * Stores the API key on a model as a non-enumerable own property: `console.log(model)` and
 * `util.inspect` then never print it, while core's `toJSON()` (which reads the secret-mapped
 * field directly) still writes the `STUDIO_API_KEY` secret reference in its place. Registered
 * with the redactor, so no error message quotes it.
 */
function defineApiKey(model: object, apiKey: string | undefined): void {
  registerSecret(apiKey);
  if (apiKey !== undefined) {
    Object.defineProperty(model, "apiKey", { value: apiKey, enumerable: false });
  }
}
