/**
 * What both model constructors do after core's base class has the user's fields: keep the
 * settings, some client options and the hidden key on the model, switch core's retries off, and
 * get the model's client. Also the serialization declarations both classes return.
 */
import { AsyncCaller } from "@langchain/core/utils/async_caller";
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
 * What both model constructors do after `super(fields)`: keep the checked settings and the client
 * fields on the model (read by introspection, and by each call, so a changed field applies), the
 * key as a hidden field, and return the model's client (the `client` option, or one built from
 * the options).
 *
 * Core's base class built its `AsyncCaller` from the user's `maxRetries`; it is replaced by one
 * that never retries, because the client already does (one layer, or attempts multiply), and
 * that keeps `maxConcurrency`, which it enforces. `super` is handed the user's fields unchanged,
 * so the serialized model (`lc_kwargs`, `toJSON()`) records the user's `maxRetries`.
 */
export function initModel<T extends SettingTable>(
  model: { caller: AsyncCaller },
  fields: StudioModelFields<T>,
  settings: StudioModelSettings<T>,
): StudioClient {
  // Every table holds the shared settings (MODEL_SETTINGS), `maxConcurrency` among them.
  const { maxConcurrency } = settings as StudioModelSettings;
  model.caller = new AsyncCaller({ maxConcurrency, maxRetries: 0 });
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
