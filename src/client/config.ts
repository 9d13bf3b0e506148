/**
 * Turns constructor options (else environment variables) into a resolved, validated config.
 *
 * Invalid values fail at construction with a `StudioValidationError` naming the option; missing
 * addresses and keys fail later, at the first call that needs them, because some calls need
 * neither (listing public models needs no key, a chat-only client never needs `baseUrl`).
 */
import type { Dispatcher } from "undici";
import { registerSecret, StudioConfigError } from "../errors";
import { DEFAULT_SERVICE_KEY_HEADER, lowerCaseHeaders } from "./headers";
import { type FetchLike, parseClientOptions, type StudioClientOptions } from "./options";

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
/** The spec's remote-call paths start `/svc.`: the prefix is what stands before `svc.`. */
export const DEFAULT_RPC_PATH_PREFIX = "/";

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
  /** Lower-case. */
  readonly serviceKeyHeader: string;
  readonly rpcPathPrefix: string;
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
  const o = parseClientOptions(merged, (option) =>
    option in ENV && !nonEmpty(options[option as keyof typeof ENV])
      ? ` (from ${ENV[option as keyof typeof ENV]})`
      : "",
  );
  registerSecret(o.apiKey);
  return {
    apiKey: o.apiKey,
    orgId: o.orgId,
    serviceKeyHeader: o.serviceKeyHeader?.toLowerCase() ?? DEFAULT_SERVICE_KEY_HEADER,
    rpcPathPrefix: o.rpcPathPrefix ?? DEFAULT_RPC_PATH_PREFIX,
    studio: o.baseUrl === undefined ? undefined : toEndpoint(o.baseUrl),
    proxy: o.proxyUrl === undefined ? undefined : toEndpoint(o.proxyUrl),
    timeout: o.timeout ?? DEFAULT_TIMEOUT_MS,
    streamIdleTimeout: o.streamIdleTimeout,
    streamTimeout:
      o.streamTimeout ?? Math.max(DEFAULT_STREAM_TIMEOUT_MS, o.timeout ?? DEFAULT_TIMEOUT_MS),
    maxRetries: o.maxRetries ?? DEFAULT_MAX_RETRIES,
    maxResponseBytes: o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    defaultHeaders: lowerCaseHeaders(o.defaultHeaders),
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
