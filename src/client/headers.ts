/**
 * Request headers, built once per client for each kind of call so a call only copies them when the
 * caller adds per-call headers.
 *
 * Which key header goes where is fixed by the spec: completions carry the raw key in
 * `Authorization` (no `Bearer`), studio calls carry it in `X-Service-Key` (or the header a
 * deployment names instead, `serviceKeyHeader`), listing public models carries none. An
 * organization (`orgId`) goes in `X-Org-Id` on every call that carries the key. Caller headers may
 * not name those headers at all: a credential in `defaultHeaders` or per-call `headers` is
 * refused, so it can neither leak to a call that must not have it nor be dropped without a word.
 *
 * The rules for caller headers are here (`headersProblem`), applied by the options schema before
 * anything is sent: a bad name or a value with a line break would otherwise fail inside the
 * transport, as an error that blames the network.
 */
import { VERSION } from "./version";

export type AuthKind = "none" | "completion" | "service";

/** Header names the caller may not set, and the option that sets each instead. */
const PROTECTED: Readonly<Record<string, string>> = {
  authorization: "apiKey",
  "x-service-key": "apiKey",
  "proxy-authorization": "apiKey",
  "x-org-id": "orgId",
};

/** The spec's studio key header, lower-cased like every header the client sends. */
export const DEFAULT_SERVICE_KEY_HEADER = "x-service-key";

/** An HTTP header name: a token (RFC 9110, section 5.1). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_NAME_ERROR =
  "is not a valid HTTP header name (letters, digits and !#$%&'*+.^_`|~- only)";

/**
 * Names the key cannot travel under: the headers the client sets itself (the key would replace
 * them or be replaced), those fetch drops or refuses (the key would silently not be sent), and
 * `Proxy-*` (read by proxies on the way, which is where the key must not go).
 */
const NOT_A_KEY_HEADER = new RegExp(
  "^(accept|accept-charset|accept-encoding|content-type|content-length|user-agent|x-org-id|" +
    "host|connection|keep-alive|transfer-encoding|te|trailer|upgrade|expect|cookie|cookie2|" +
    "set-cookie|date|dnt|origin|referer|via|proxy-.*|sec-.*)$",
  "i",
);

/**
 * What an HTTP header value may hold: no line break, no other control character but tab. The
 * value is never quoted in errors (it may be a credential).
 */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
export const HEADER_VALUE_ERROR =
  "contains a line break or another character an HTTP header cannot carry";

const USER_AGENT = `langchain-studio/${VERSION}`;

export interface HeaderSets {
  /** POST with a JSON body, JSON answer. */
  readonly json: Record<AuthKind, Readonly<Record<string, string>>>;
  /** GET / DELETE: no body, so no Content-Type. */
  readonly noBody: Record<AuthKind, Readonly<Record<string, string>>>;
  /** POST with a JSON body, answered with server-sent events. */
  readonly sse: Record<AuthKind, Readonly<Record<string, string>>>;
}

/**
 * What is wrong with caller headers (`defaultHeaders` or per-call `headers`), or undefined when
 * they can be sent: a name that is not a token, a credential header, a value that is not a
 * header-safe string. Unset values (undefined, null) are skipped.
 */
export function headersProblem(
  headers: unknown,
  serviceKeyHeader: string = DEFAULT_SERVICE_KEY_HEADER,
): string | undefined {
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
    return "must be an object of header name to string";
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || value === null) continue;
    if (!HEADER_NAME.test(name)) return `${JSON.stringify(name)} ${HEADER_NAME_ERROR}`;
    const lower = name.toLowerCase();
    const owner = lower === serviceKeyHeader ? "apiKey" : PROTECTED[lower];
    if (owner !== undefined) {
      return (
        `must not set ${name}: the client sets it from the "${owner}" option, in the ` +
        "header each call needs"
      );
    }
    if (typeof value !== "string") return `the value of ${name} must be a string`;
    if (!HEADER_VALUE.test(value)) return `the value of ${name} ${HEADER_VALUE_ERROR}`;
  }
  return undefined;
}

/** What is wrong with `name` as the header of the studio key (`serviceKeyHeader`), if anything. */
export function keyHeaderProblem(name: string): string | undefined {
  if (!HEADER_NAME.test(name)) return HEADER_NAME_ERROR;
  if (NOT_A_KEY_HEADER.test(name)) {
    return (
      `must not be ${name}: the client or HTTP itself sets that header, so the key would ` +
      "be replaced, dropped or sent to a proxy"
    );
  }
  return undefined;
}

/** Caller headers (already checked) with lower-cased names and the unset ones left out. */
export function lowerCaseHeaders(
  headers: Record<string, string> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined && value !== null) out[name.toLowerCase()] = value;
  }
  return out;
}

/** What the header sets are built from (the resolved config). */
export interface HeaderSettings {
  readonly apiKey: string | undefined;
  readonly orgId: string | undefined;
  readonly defaultHeaders: Record<string, string>;
  /** Lower-case. */
  readonly serviceKeyHeader: string;
}

function authHeaders(kind: AuthKind, settings: HeaderSettings): Record<string, string> {
  const { apiKey, orgId } = settings;
  if (kind === "none" || apiKey === undefined) return {};
  const key: Record<string, string> =
    kind === "service" ? { [settings.serviceKeyHeader]: apiKey } : { authorization: apiKey };
  return orgId ? { ...key, "x-org-id": orgId } : key;
}

export function buildHeaderSets(settings: HeaderSettings): HeaderSets {
  const make = (accept: string, contentType: boolean) => {
    const base: Record<string, string> = { accept, "user-agent": USER_AGENT };
    if (contentType) base["content-type"] = "application/json";
    const build = (kind: AuthKind) =>
      Object.freeze({ ...base, ...settings.defaultHeaders, ...authHeaders(kind, settings) });
    return { none: build("none"), completion: build("completion"), service: build("service") };
  };
  return {
    json: make("application/json", true),
    noBody: make("application/json", false),
    sse: make("text/event-stream", true),
  };
}

/** The preset with per-call headers merged under it (the preset's auth headers always win). */
export function withCallHeaders(
  preset: Readonly<Record<string, string>>,
  extra: Record<string, string> | undefined,
): Readonly<Record<string, string>> {
  if (extra === undefined) return preset;
  // The protected names were refused (headersProblem), so the preset's auth headers survive.
  return { ...preset, ...lowerCaseHeaders(extra) };
}
