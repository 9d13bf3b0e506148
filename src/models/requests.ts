/**
 * Sending one request of a model: the settings it cannot go without, the caller's request
 * options, and the concurrency bound.
 */
import type { AsyncCaller } from "@langchain/core/utils/async_caller";
import type { StudioClient } from "../client";
import type { RequestOptions } from "../client/options";
import { StudioConfigError } from "../errors";
import { definedOnly } from "./defined-only";

/** The client's per-call options that a model's call passes on (the client checks them). */
export const MODEL_REQUEST_OPTIONS = [
  "signal",
  "timeout",
  "maxRetries",
] as const satisfies readonly (keyof RequestOptions)[];

export type ModelRequestOptions = Pick<RequestOptions, (typeof MODEL_REQUEST_OPTIONS)[number]>;

/** Options for one client call: the caller's signal, timeout and retries, when given. */
export function requestOptions(options: ModelRequestOptions = {}): RequestOptions {
  return definedOnly(
    Object.fromEntries(MODEL_REQUEST_OPTIONS.map((name) => [name, options[name]])),
  );
}

/**
 * Runs one request of a model. Through core's caller only when `maxConcurrency` bounds requests
 * in flight: without a bound the caller has nothing to queue, and nothing to retry either (its
 * retries are off, see `initModel`), so the request runs directly. The client honours the
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
    `${className} cannot send a request: missing ${list}. Pass ` +
      `${missing.length > 1 ? "them as options" : "it as an option"} or set the environment ` +
      `variable${missing.length > 1 ? "s" : ""}. (baseUrl, env STUDIO_BASE_URL, is the studio ` +
      "address for threads, assistants, models and datasets; completions do not use it.)",
  );
}
