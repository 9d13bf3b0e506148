/**
 * The client options, written once: the schema below checks them, and everything else is derived
 * from it, the `StudioClientOptions` type, the list every class picks them from its fields with,
 * the per-call `RequestOptions` and their checks. An option added to the schema reaches all of
 * them, and fails to compile until `SERIALIZED` says whether a model's `toJSON()` keeps it
 * (test/unit/client/options.process.test.ts compiles this file with an option added, to prove
 * it).
 *
 * Every rule is the same for an option given to the client and for its per-call override: a
 * timeout of 1.5 ms is accepted in both places (timers take fractions of a millisecond).
 */
import type { Dispatcher } from "undici";
import * as z from "zod/v4/mini";
import { StudioValidationError } from "../errors";
import { describeFields } from "../field-docs";
import { type KnownKeys, parseFields, refuseUnknownKeys } from "../validation";
import { useEnglishMessages } from "../zod-locale";
import {
  DEFAULT_SERVICE_KEY_HEADER,
  HEADER_VALUE,
  HEADER_VALUE_ERROR,
  headersProblem,
  keyHeaderProblem,
} from "./headers";

useEnglishMessages();

/** A WHATWG `fetch` (the global one, or any compatible implementation). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Node's timers overflow above this and fire after 1 ms instead, so larger values are refused. */
export const MAX_TIMER_MS = 2_147_483_647;

const timeoutSchema = z
  .number({ error: "must be a number" })
  .check(
    z.positive({ error: `must be a number of ms in (0, ${MAX_TIMER_MS}]` }),
    z.lte(MAX_TIMER_MS, { error: `must be a number of ms in (0, ${MAX_TIMER_MS}]` }),
  );

const maxRetriesSchema = z
  .number({ error: "must be a number" })
  .check(
    z.int({ error: "must be an integer >= 0" }),
    z.gte(0, { error: "must be an integer >= 0" }),
  );

const positiveIntegerSchema = (error: string) =>
  z.number({ error: "must be a number" }).check(z.int({ error }), z.gte(1, { error }));

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

/**
 * Paths a newcomer copies into the inference address from other APIs' docs: the client appends
 * `/chat/completions` (or `/text/completions`) itself, and the spec's inference paths carry no
 * version segment, so either would be sent twice or where no route is.
 */
const COPIED_INFERENCE_PATH = /(?:\/v1|\/(?:chat|text)\/completions|\/completions)+\/*$/;

const proxyAddressSchema = addressSchema.check((ctx) => {
  if (!URL.canParse(ctx.value)) return;
  const url = new URL(ctx.value);
  const copied = url.pathname.match(COPIED_INFERENCE_PATH)?.[0];
  if (copied === undefined) return;
  const kept = url.pathname.slice(0, url.pathname.length - copied.length);
  const suggestion = `${url.origin}${kept}`;
  const why = [
    copied.includes("/v1") ? "the inference paths carry no version segment" : "",
    copied.includes("completions") ? "the client appends /chat/completions itself" : "",
  ]
    .filter(Boolean)
    .join("; ");
  ctx.issues.push({
    code: "custom",
    input: ctx.value,
    message: `ends in "${copied.replace(/\/+$/, "")}": drop the path (${why}); use ${suggestion}`,
  });
});

// Header values are checked before sending: anything else fails inside the transport instead,
// undici as a "connection" error that is retried and blames the network, fetch with the value (the
// key) in its message.

const headerValueSchema = z
  .string({ error: "must be a string" })
  .check(z.regex(HEADER_VALUE, { error: HEADER_VALUE_ERROR }));

const headersSchema = z.custom<Record<string, string>>().check((ctx) => {
  const problem = headersProblem(ctx.value);
  if (problem !== undefined)
    ctx.issues.push({ code: "custom", input: ctx.value, message: problem });
});

const keyHeaderSchema = z.string({ error: "must be a string" }).check((ctx) => {
  const problem = keyHeaderProblem(ctx.value);
  if (problem !== undefined)
    ctx.issues.push({ code: "custom", input: ctx.value, message: problem });
});

/**
 * What replaces the leading `/` of the remote-call paths (`/svc.Studio/...`): a path prefix
 * (`/api/`) or a package prefix (`/acme.`), so it ends where the service name starts. Only
 * unreserved characters, and no `.` or `..` segment, so the path is sent as written.
 */
const RPC_PATH_PREFIX = /^\/(?:[A-Za-z0-9_~-][A-Za-z0-9._~-]*[./])*$/;

const rpcPathPrefixSchema = z.string({ error: "must be a string" }).check(
  z.regex(RPC_PATH_PREFIX, {
    error:
      'must be "/" or a prefix that starts with "/" and ends with "/" or "." such as "/api/" or ' +
      '"/acme." (letters, digits, "-", "_", "~" and "." between the separators)',
  }),
);

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

// `fetch` and `dispatcher` are live objects: their schemas only check the one method the client
// calls, so a wrong value fails at construction instead of at the first request.
const clientOptionsSchema = z.object({
  /** API key. Env: `STUDIO_API_KEY`. Needed by every call except listing public models. */
  apiKey: z.optional(headerValueSchema),
  /** Organization id, sent as `X-Org-Id` on completions when set. Env: `STUDIO_ORG_ID`. */
  orgId: z.optional(headerValueSchema),
  /**
   * The header studio calls carry the key in (default `X-Service-Key`, the spec's), for a
   * deployment that names it otherwise. Completions keep `Authorization`.
   */
  serviceKeyHeader: z.optional(keyHeaderSchema),
  /**
   * What comes before `svc.` in the remote-call paths (default `/`, the spec's:
   * `{baseUrl}/svc.Studio/ListPublicModels`): `/api/` sends `{baseUrl}/api/svc.Studio/...`,
   * `/acme.` sends `{baseUrl}/acme.svc.Studio/...`.
   */
  rpcPathPrefix: z.optional(rpcPathPrefixSchema),
  /** Studio address (threads, assistants, models, datasets). Env: `STUDIO_BASE_URL`. */
  baseUrl: z.optional(addressSchema),
  /** Inference address (chat and text completions). Env: `STUDIO_PROXY_URL`. */
  proxyUrl: z.optional(proxyAddressSchema),
  /** Overall request timeout in ms (default 60000). */
  timeout: z.optional(timeoutSchema),
  /** Longest wait between two complete stream events in ms (default: `timeout`). */
  streamIdleTimeout: z.optional(timeoutSchema),
  /**
   * Longest a whole stream may take, in ms, retries included: the last guard against a server that
   * never ends (default 600000, 10 minutes, or `timeout` when that is longer).
   */
  streamTimeout: z.optional(timeoutSchema),
  /** Retries after the first attempt on retryable failures (default 2). */
  maxRetries: z.optional(maxRetriesSchema),
  /** Headers added to every request (never overriding the auth headers). */
  defaultHeaders: z.optional(headersSchema),
  /**
   * Sockets per origin in the client's own keep-alive pool, on Node (default 64; ignored with
   * `dispatcher` or `fetch`).
   */
  connections: z.optional(positiveIntegerSchema("must be an integer >= 1")),
  /** An undici Dispatcher (Pool, Agent, MockAgent...), passed to fetch; its owner closes it. */
  dispatcher: z.optional(
    z.custom<Dispatcher>((v) => typeof (v as { dispatch?: unknown })?.dispatch === "function", {
      error: "must be an undici Dispatcher (Agent, Pool, Client, MockAgent...)",
    }),
  ),
  /**
   * A WHATWG fetch every request goes through. Default: undici's fetch on Node (loaded on the
   * first call), the runtime's own fetch elsewhere.
   */
  fetch: z.optional(
    z.custom<FetchLike>((v) => typeof v === "function", { error: "must be a fetch function" }),
  ),
  /** Largest response body accepted, in bytes (default 32 MiB); larger is a clear error. */
  maxResponseBytes: z.optional(positiveIntegerSchema("must be a positive integer")),
});

describeFields("client", clientOptionsSchema, {
  apiKey: "API key, needed by every call except listing public models. Env: `STUDIO_API_KEY`",
  orgId:
    "Organization id, sent as `X-Org-Id` (and `auth.organization` in dataset listings). " +
    "Env: `STUDIO_ORG_ID`",
  serviceKeyHeader:
    "The header studio calls carry the key in, for a deployment that names it otherwise " +
    "(completions keep `Authorization`)",
  rpcPathPrefix:
    "What stands before `svc.` in the remote-call paths: `/api/` sends " +
    "`{baseUrl}/api/svc.Studio/...`, `/acme.` sends `{baseUrl}/acme.svc.Studio/...`",
  baseUrl: "Studio address: threads, assistants, models, datasets. Env: `STUDIO_BASE_URL`",
  proxyUrl:
    "Inference address: chat and text completions, given without their path. " +
    "Env: `STUDIO_PROXY_URL`",
  timeout: "ms per attempt (plain calls: the whole response; streams: until the headers)",
  streamIdleTimeout:
    "Longest wait (ms) for the next complete stream event; bytes that complete none " +
    "(a trickle, blank lines, comments) do not reset it",
  streamTimeout:
    "Longest a whole stream may take (ms), retries included: the last guard against a " +
    "server that never ends",
  maxRetries: "Retries after the first attempt, on retryable failures only",
  defaultHeaders:
    "Extra headers on every request; `Authorization`, the key header, `Proxy-Authorization` " +
    "and `X-Org-Id` are refused (they come from `apiKey` and `orgId`)",
  connections: "Sockets per origin in the client's own keep-alive pool (Node)",
  dispatcher:
    "An undici `Dispatcher` (Agent, Pool, MockAgent...) requests go through (with `fetch`, " +
    "passed as its `dispatcher`); yours to close",
  fetch: "A WHATWG `fetch` every request goes through (a wrapper, a proxy, nock, a test double)",
  maxResponseBytes:
    "Largest response body (or single stream event) accepted, in bytes; refused as soon as " +
    "it is passed",
});

/** The options, and the rules that tie one option to another. */
const checkedClientOptionsSchema = clientOptionsSchema.check((ctx) => {
  // A renamed key header is a credential header like the spec's: a default header under that
  // name would go, with its value, on the calls that must carry no key.
  const { serviceKeyHeader, defaultHeaders } = ctx.value;
  if (serviceKeyHeader === undefined || defaultHeaders === undefined) return;
  const problem = headersProblem(defaultHeaders, serviceKeyHeader.toLowerCase());
  if (problem !== undefined) {
    ctx.issues.push({
      code: "custom",
      input: defaultHeaders,
      path: ["defaultHeaders"],
      message: problem,
    });
  }
});

const requestOptionsSchema = z.object({
  /** Aborts the call, and the stream it is reading. */
  signal: z.optional(
    z.custom<AbortSignal>(isAbortSignal, {
      error: "must be an AbortSignal (for example AbortSignal.timeout(ms) or controller.signal)",
    }),
  ),
  /** Overrides the client's timeout for this call. */
  timeout: clientOptionsSchema.shape.timeout,
  /** Overrides the client's maxRetries for this call. */
  maxRetries: clientOptionsSchema.shape.maxRetries,
  /** Extra headers for this call (never overriding the auth headers). */
  headers: clientOptionsSchema.shape.defaultHeaders,
});

/**
 * How to reach and talk to the service: given to `StudioClient`, or to any class beside `client`.
 */
export interface StudioClientOptions extends z.input<typeof clientOptionsSchema> {}

/** Per-call options accepted by every client method. */
export interface RequestOptions extends z.input<typeof requestOptionsSchema> {}

export type ClientOptionName = keyof StudioClientOptions;

/**
 * Whether each option goes into a model's `toJSON()`. Live objects (`fetch`, `dispatcher`) cannot;
 * `defaultHeaders` may carry credentials; `apiKey` is written back by core as a secret reference,
 * so a serialized model never holds the key.
 */
const SERIALIZED: Record<ClientOptionName, boolean> = {
  apiKey: false,
  orgId: true,
  serviceKeyHeader: true,
  rpcPathPrefix: true,
  baseUrl: true,
  proxyUrl: true,
  timeout: true,
  streamIdleTimeout: true,
  streamTimeout: true,
  maxRetries: true,
  defaultHeaders: false,
  connections: true,
  dispatcher: false,
  fetch: false,
  maxResponseBytes: true,
};

/** Every client option, in the schema's order. */
export const CLIENT_OPTION_NAMES = Object.freeze(
  Object.keys(clientOptionsSchema.shape) as ClientOptionName[],
);

/** The client options a model's `toJSON()` keeps. */
export const SERIALIZABLE_CLIENT_OPTION_NAMES = Object.freeze(
  CLIENT_OPTION_NAMES.filter((name) => SERIALIZED[name]),
);

/** The client options among `fields`, only those that are set. */
export function pickClientOptions(fields: StudioClientOptions): StudioClientOptions {
  const options: Record<string, unknown> = {};
  for (const name of CLIENT_OPTION_NAMES) {
    if (fields[name] !== undefined) options[name] = fields[name];
  }
  return options as StudioClientOptions;
}

/**
 * The options checked, or a `StudioValidationError` naming the first bad one (`suffix` is added to
 * its message, to say where the value came from).
 */
export function parseClientOptions(
  options: unknown,
  suffix: (option: string) => string,
): z.output<typeof clientOptionsSchema> {
  refuseUnknownKeys(options, CLIENT_KEYS);
  return parseFields(checkedClientOptionsSchema, options, "options", { suffix });
}

/** `StudioClient`'s options: a misspelt one is refused (a timeout set on nothing is no timeout). */
const CLIENT_KEYS: KnownKeys = {
  owner: "StudioClient",
  known: Object.keys(clientOptionsSchema.shape),
  hints: { baseURL: 'did you mean "baseUrl"?', headers: 'did you mean "defaultHeaders"?' },
};

/** A call's options: these, and nothing else, reach the client's methods. */
const REQUEST_KEYS: KnownKeys = {
  owner: "request",
  known: Object.keys(requestOptionsSchema.shape),
};

/**
 * Throws the `StudioValidationError` naming the first bad per-call option, before anything is sent.
 * `serviceKeyHeader` (lower-case) is the client's key header, which per-call headers may not set.
 */
export function checkRequestOptions(
  options: RequestOptions,
  serviceKeyHeader: string = DEFAULT_SERVICE_KEY_HEADER,
): void {
  refuseUnknownKeys(options, REQUEST_KEYS);
  parseFields(requestOptionsSchema, options, "options");
  if (options.headers === undefined || serviceKeyHeader === DEFAULT_SERVICE_KEY_HEADER) return;
  const problem = headersProblem(options.headers, serviceKeyHeader);
  if (problem !== undefined) throw new StudioValidationError("headers", problem);
}
