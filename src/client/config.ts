/**
 * Turns constructor options (else environment variables) into a resolved, validated config.
 *
 * Invalid values fail at construction with a `StudioValidationError` naming the option; missing
 * addresses and keys fail later, at the first call that needs them, because some calls need
 * neither (listing public models needs no key, a chat-only client never needs `baseUrl`).
 */
import { registerSecret, StudioConfigError } from "../errors";
import { DEFAULT_SERVICE_KEY_HEADER, lowerCaseHeaders } from "./headers";
import {
  CLIENT_OPTION_NAMES,
  type ClientOptionName,
  parseClientOptions,
  type StudioClientOptions,
} from "./options";

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

type ParsedOptions = ReturnType<typeof parseClientOptions>;

/**
 * The default of every option that has one. `streamTimeout`'s is the longer of this and
 * `timeout`; `streamIdleTimeout` has none (unset, the per-call `timeout` counts), nor do the key,
 * the org id, the addresses and the live objects.
 */
const DEFAULTS = {
  serviceKeyHeader: DEFAULT_SERVICE_KEY_HEADER,
  rpcPathPrefix: DEFAULT_RPC_PATH_PREFIX,
  timeout: DEFAULT_TIMEOUT_MS,
  streamTimeout: DEFAULT_STREAM_TIMEOUT_MS,
  maxRetries: DEFAULT_MAX_RETRIES,
  maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
  defaultHeaders: {},
  connections: DEFAULT_CONNECTIONS,
} satisfies { [K in keyof ParsedOptions]?: NonNullable<ParsedOptions[K]> };

type Defaulted = keyof typeof DEFAULTS;

/** The options the config holds in another form: the addresses, split for the transports. */
type Converted = "baseUrl" | "proxyUrl";

/**
 * The client's settings after defaults and the environment: derived from the options schema
 * (client/options.ts) and `DEFAULTS`, so an option added to the schema is here without an edit.
 * An option with a default is always set; the others may be undefined. `serviceKeyHeader` and the
 * names of `defaultHeaders` are lower-case.
 */
export type ResolvedConfig = Readonly<
  { [K in Exclude<keyof ParsedOptions, Defaulted | Converted>]-?: ParsedOptions[K] | undefined } & {
    [K in Defaulted]-?: NonNullable<ParsedOptions[K]>;
  } & {
    /** `baseUrl`, split. */
    studio: Endpoint | undefined;
    /** `proxyUrl`, split. */
    proxy: Endpoint | undefined;
  }
>;

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
  const given: Partial<Record<ClientOptionName, unknown>> = o;
  const defaults: Partial<Record<ClientOptionName, unknown>> = DEFAULTS;
  // Every option in the schema, from the list `ResolvedConfig` is derived from with the same rule.
  const values: Partial<Record<ClientOptionName, unknown>> = {};
  for (const name of CLIENT_OPTION_NAMES) values[name] = given[name] ?? defaults[name];
  const { baseUrl, proxyUrl, ...settings } = values as Omit<ResolvedConfig, "studio" | "proxy"> &
    Pick<ParsedOptions, Converted>;
  return {
    ...settings,
    serviceKeyHeader: settings.serviceKeyHeader.toLowerCase(),
    defaultHeaders: lowerCaseHeaders(settings.defaultHeaders),
    streamTimeout: o.streamTimeout ?? Math.max(DEFAULT_STREAM_TIMEOUT_MS, settings.timeout),
    studio: baseUrl === undefined ? undefined : toEndpoint(baseUrl),
    proxy: proxyUrl === undefined ? undefined : toEndpoint(proxyUrl),
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
