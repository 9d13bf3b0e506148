/**
 * Request headers, built once per client for each kind of call so a call only copies them when the
 * caller adds per-call headers.
 *
 * Which key header goes where is fixed by the spec: completions carry the raw key in
 * `Authorization` (no `Bearer`), studio calls carry it in `X-Service-Key`, listing public models
 * carries none. Caller headers can never add or replace those, so a stray `Authorization` in
 * `defaultHeaders` cannot leak the key to a call that must not have it.
 */
import { VERSION } from "./version";

export type AuthKind = "none" | "completion" | "service";

/** Header names the caller may not set: they carry (or scope) the credentials. */
const PROTECTED = new Set(["authorization", "x-service-key", "x-org-id", "proxy-authorization"]);

const USER_AGENT = `langchain-studio/${VERSION}`;

export interface HeaderSets {
  /** POST with a JSON body, JSON answer. */
  readonly json: Record<AuthKind, Readonly<Record<string, string>>>;
  /** GET / DELETE: no body, so no Content-Type. */
  readonly noBody: Record<AuthKind, Readonly<Record<string, string>>>;
  /** POST with a JSON body, answered with server-sent events. */
  readonly sse: Record<AuthKind, Readonly<Record<string, string>>>;
}

/** Lower-cased copy of caller headers without the protected ones. */
export function callerHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    const lower = name.toLowerCase();
    if (value === undefined || value === null || PROTECTED.has(lower)) continue;
    out[lower] = String(value);
  }
  return out;
}

function authHeaders(
  kind: AuthKind,
  apiKey: string | undefined,
  orgId: string | undefined,
): Record<string, string> {
  if (kind === "none" || apiKey === undefined) return {};
  if (kind === "service") return { "x-service-key": apiKey };
  return orgId ? { authorization: apiKey, "x-org-id": orgId } : { authorization: apiKey };
}

export function buildHeaderSets(
  apiKey: string | undefined,
  orgId: string | undefined,
  defaultHeaders: Record<string, string>,
): HeaderSets {
  const defaults = callerHeaders(defaultHeaders);
  const make = (accept: string, contentType: boolean) => {
    const base: Record<string, string> = { accept, "user-agent": USER_AGENT };
    if (contentType) base["content-type"] = "application/json";
    const build = (kind: AuthKind) =>
      Object.freeze({ ...base, ...defaults, ...authHeaders(kind, apiKey, orgId) });
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
  if (!extra) return preset;
  // callerHeaders drops the protected names, so the preset's auth headers survive the spread.
  return { ...preset, ...callerHeaders(extra) };
}
