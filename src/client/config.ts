/**
 * Turns constructor options (else environment variables) into a resolved, validated config.
 *
 * Invalid values fail at construction with a `StudioValidationError` naming the option; missing
 * addresses and keys fail later, at the first call that needs them, because some calls need
 * neither (listing public models needs no key, a chat-only client never needs `baseUrl`).
 */
import type { Dispatcher } from "undici";
import * as z from "zod/v4/mini";
import { registerSecret, StudioConfigError, StudioValidationError } from "../errors";
import { samplingSchemas } from "../validation";
import { useEnglishMessages } from "../zod-locale";
import { callerHeaders, HEADER_VALUE, HEADER_VALUE_ERROR } from "./headers";
import type { FetchLike, StudioClientOptions } from "./types";

export const DEFAULT_TIMEOUT_MS = 60_000;
/**
 * A whole stream's default cap (10 minutes; `timeout` when that is longer): the last guard
 * against a server that keeps a stream alive forever, past every idle check.
 */
export const DEFAULT_STREAM_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/**
 * Sockets per origin in the client's own pool. Bounded so that a burst of concurrent calls
 * queues on warm keep-alive sockets instead of opening one socket per call.
 */
export const DEFAULT_CONNECTIONS = 64;
/** Node's timers overflow above this and fire after 1 ms instead, so larger values are refused. */
const MAX_TIMER_MS = 2_147_483_647;

export const ENV = {
  apiKey: "STUDIO_API_KEY",
  orgId: "STUDIO_ORG_ID",
  baseUrl: "STUDIO_BASE_URL",
  proxyUrl: "STUDIO_PROXY_URL",
} as const;

/** A base address split the way both transports want it. */
export interface Endpoint {
  /** `scheme://host[:port]`, what undici dispatches to and what redirects are compared with. */
  readonly origin: string;
  /** Path prefix of the address without a trailing slash ("" or "/api"), so no `//` appears. */
  readonly prefix: string;
}

export interface ResolvedConfig {
  readonly apiKey: string | undefined;
  readonly orgId: string | undefined;
  readonly studio: Endpoint | undefined;
  readonly proxy: Endpoint | undefined;
  readonly timeout: number;
  /** Undefined: the (per-call) `timeout` is used. */
  readonly streamIdleTimeout: number | undefined;
  /** The longest a whole stream may take, retries included. */
  readonly streamTimeout: number;
  readonly maxRetries: number;
  readonly maxResponseBytes: number;
  readonly defaultHeaders: Record<string, string>;
  readonly dispatcher: Dispatcher | undefined;
  readonly connections: number;
  readonly fetch: FetchLike | undefined;
}

useEnglishMessages();

const timeoutSchema = samplingSchemas.timeout.check(
  z.lte(MAX_TIMER_MS, { error: `must be at most ${MAX_TIMER_MS} ms` }),
);

const addressSchema = z.string({ error: "must be a string" }).check((ctx) => {
  const parsed = URL.canParse(ctx.value) ? new URL(ctx.value) : undefined;
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    ctx.issues.push({
      code: "custom",
      input: ctx.value,
      message: "must be an http(s) URL such as https://studio.example.com",
    });
  } else if (parsed.search || parsed.hash || parsed.username || parsed.password) {
    ctx.issues.push({
      code: "custom",
      input: ctx.value,
      message: "must not contain a query, a fragment or credentials",
    });
  }
});

// Header values are checked here (and names in callerHeaders): anything else fails inside the
// transport instead, undici as a "connection" error that is retried and blames the network, fetch
// with the value (the key) in its message.

const headerValueSchema = z
  .string({ error: "must be a string" })
  .check(z.regex(HEADER_VALUE, { error: HEADER_VALUE_ERROR }));

const optionsSchema = z.object({
  apiKey: z.optional(headerValueSchema),
  orgId: z.optional(headerValueSchema),
  baseUrl: z.optional(addressSchema),
  proxyUrl: z.optional(addressSchema),
  timeout: z.optional(timeoutSchema),
  streamIdleTimeout: z.optional(timeoutSchema),
  streamTimeout: z.optional(timeoutSchema),
  maxRetries: z.optional(samplingSchemas.maxRetries),
  maxResponseBytes: z.optional(
    z
      .number({ error: "must be a number" })
      .check(
        z.int({ error: "must be a positive integer" }),
        z.positive({ error: "must be a positive integer" }),
      ),
  ),
  defaultHeaders: z.optional(
    z.record(
      z.string(),
      z.string({ error: "values must be strings" }).check(
        z.regex(HEADER_VALUE, {
          error: `values must be header-safe: one ${HEADER_VALUE_ERROR}`,
        }),
      ),
      { error: "must be an object of header name to string" },
    ),
  ),
  connections: z.optional(
    z
      .number({ error: "must be a number" })
      .check(
        z.int({ error: "must be an integer >= 1" }),
        z.gte(1, { error: "must be an integer >= 1" }),
      ),
  ),
  dispatcher: z.optional(
    z.custom<Dispatcher>((v) => typeof (v as { dispatch?: unknown })?.dispatch === "function", {
      error: "must be an undici Dispatcher (Agent, Pool, Client, MockAgent...)",
    }),
  ),
  fetch: z.optional(
    z.custom<FetchLike>((v) => typeof v === "function", { error: "must be a fetch function" }),
  ),
});

function env(name: string): string | undefined {
  // `process` is absent on some edge runtimes that the fetch transport targets.
  const value = typeof process === "undefined" ? undefined : process.env[name];
  return nonEmpty(value);
}

/**
 * "" counts as unset. Surrounding whitespace is dropped: a key read from a file or a heredoc ends
 * with a newline, and a header value cannot carry it (fetch trims it, undici refuses it).
 */
function nonEmpty(value: string | undefined): string | undefined {
  const text = typeof value === "string" ? value.trim() : value;
  return text === "" ? undefined : text;
}

export function resolveConfig(options: StudioClientOptions): ResolvedConfig {
  const merged = {
    ...options,
    apiKey: nonEmpty(options.apiKey) ?? env(ENV.apiKey),
    orgId: nonEmpty(options.orgId) ?? env(ENV.orgId),
    baseUrl: nonEmpty(options.baseUrl) ?? env(ENV.baseUrl),
    proxyUrl: nonEmpty(options.proxyUrl) ?? env(ENV.proxyUrl),
  };
  const result = optionsSchema.safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0];
    const option = String(issue?.path[0] ?? "options");
    const fromEnv =
      option in ENV && !nonEmpty(options[option as keyof typeof ENV])
        ? ` (from ${ENV[option as keyof typeof ENV]})`
        : "";
    throw new StudioValidationError(option, `${issue?.message ?? "is invalid"}${fromEnv}`);
  }
  const o = result.data;
  registerSecret(o.apiKey);
  return {
    apiKey: o.apiKey,
    orgId: o.orgId,
    studio: o.baseUrl === undefined ? undefined : toEndpoint(o.baseUrl),
    proxy: o.proxyUrl === undefined ? undefined : toEndpoint(o.proxyUrl),
    timeout: o.timeout ?? DEFAULT_TIMEOUT_MS,
    streamIdleTimeout: o.streamIdleTimeout,
    streamTimeout:
      o.streamTimeout ?? Math.max(DEFAULT_STREAM_TIMEOUT_MS, o.timeout ?? DEFAULT_TIMEOUT_MS),
    maxRetries: o.maxRetries ?? DEFAULT_MAX_RETRIES,
    maxResponseBytes: o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    // Names and credentials checked at construction, like every other option.
    defaultHeaders: callerHeaders("defaultHeaders", o.defaultHeaders),
    dispatcher: o.dispatcher,
    connections: o.connections ?? DEFAULT_CONNECTIONS,
    fetch: o.fetch,
  };
}

export function toEndpoint(address: string): Endpoint {
  const url = new URL(address);
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, "") };
}

/** The endpoint a call needs, or the config error naming the option and its variable. */
export function requireEndpoint(config: ResolvedConfig, target: "studio" | "proxy"): Endpoint {
  const endpoint = target === "studio" ? config.studio : config.proxy;
  if (endpoint) return endpoint;
  throw target === "studio"
    ? new StudioConfigError("baseUrl", ENV.baseUrl)
    : new StudioConfigError("proxyUrl", ENV.proxyUrl);
}

export function missingKeyError(): StudioConfigError {
  return new StudioConfigError("apiKey", ENV.apiKey);
}

/**
 * Per-call overrides, checked without zod because they run on every call. (Per-call `headers`
 * are checked where they are merged, in headers.ts.) A `signal` that is not an AbortSignal would
 * otherwise fail as a TypeError deep in the request, after it may have been sent.
 */
export function checkCallOverrides(timeout: unknown, maxRetries: unknown, signal?: unknown): void {
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw new StudioValidationError(
      "signal",
      "must be an AbortSignal (for example AbortSignal.timeout(ms) or controller.signal)",
    );
  }
  if (
    timeout !== undefined &&
    (typeof timeout !== "number" || !(timeout > 0) || timeout > MAX_TIMER_MS)
  ) {
    throw new StudioValidationError("timeout", `must be a number of ms in (0, ${MAX_TIMER_MS}]`);
  }
  if (
    maxRetries !== undefined &&
    (typeof maxRetries !== "number" || !Number.isInteger(maxRetries) || maxRetries < 0)
  ) {
    throw new StudioValidationError("maxRetries", "must be an integer >= 0");
  }
}

/**
 * `instanceof AbortSignal` fails for a signal from another realm or polyfill, so the check is on
 * what the client uses: `aborted`, `reason` and the listener methods.
 */
function isAbortSignal(value: unknown): value is AbortSignal {
  if (typeof AbortSignal !== "undefined" && value instanceof AbortSignal) return true;
  const candidate = value as Partial<AbortSignal> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.aborted === "boolean" &&
    typeof candidate.addEventListener === "function" &&
    typeof candidate.removeEventListener === "function"
  );
}
