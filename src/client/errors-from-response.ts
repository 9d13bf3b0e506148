/**
 * Turning failed responses and transport failures into the package's error classes. The spec does
 * not give error bodies, so messages are read from every shape the notes list.
 */
import { StudioAPIError, StudioConnectionError } from "../errors";
import { redactDeep, redactText } from "../errors/redact";
import { parseRetryAfter } from "./retry";
import type { ResponseHead } from "./transport";

const EXCERPT_CHARS = 200;
/** The server's own message is kept whole up to this length, then cut. */
const MESSAGE_CHARS = 1000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The server's message from `error.message` | `message` | `error` (string) | `detail`. */
export function extractServerMessage(body: unknown): string | undefined {
  if (typeof body === "string") return body || undefined;
  if (!isRecord(body)) return undefined;
  const { error, message, detail } = body;
  if (isRecord(error) && typeof error.message === "string" && error.message) return error.message;
  if (typeof message === "string" && message) return message;
  if (typeof error === "string" && error) return error;
  if (typeof detail === "string" && detail) return detail;
  // FastAPI-style validation details arrive as a list of {msg, loc}.
  if (Array.isArray(detail) && detail.length > 0) {
    const first: unknown = detail[0];
    if (isRecord(first) && typeof first.msg === "string") return first.msg;
    return JSON.stringify(detail).slice(0, EXCERPT_CHARS);
  }
  return undefined;
}

/** `error.code` or `code`, as a string. */
export function extractCode(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const nested = isRecord(body.error) ? body.error.code : undefined;
  const code = nested ?? body.code;
  return typeof code === "string" || typeof code === "number" ? String(code) : undefined;
}

/** How much of a body an excerpt looks at (an error body is at most this long anyway). */
const EXCERPT_SOURCE_CHARS = 64 * 1024;

/**
 * A short, single-line excerpt of a non-JSON body (an HTML gateway page, a proxy's text). Any
 * echoed secret is redacted before the cut, so the cut never leaves a piece of it behind.
 */
export function excerpt(text: string): string {
  const plain = redactText(text.slice(0, EXCERPT_SOURCE_CHARS))
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return plain.length > EXCERPT_CHARS ? `${plain.slice(0, EXCERPT_CHARS)}...` : plain;
}

/**
 * Parses an error body: JSON when it is JSON, else an excerpt. Secrets are scrubbed after parsing
 * (so a JSON-escaped key is seen decoded) and before any cut (so no cut hides a piece of one).
 */
export function parseErrorBody(text: string): { body: unknown; message: string | undefined } {
  if (text.trim() === "") return { body: undefined, message: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const short = excerpt(text);
    return { body: short, message: short || undefined };
  }
  const body = redactDeep(parsed);
  const message = extractServerMessage(body);
  return {
    body,
    message:
      message && message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS)}...` : message,
  };
}

/** Response headers for an error object, with any echoed secret scrubbed (in any encoding). */
function safeHeaders(response: ResponseHead): Record<string, string> {
  return redactDeep(response.headerRecord()) as Record<string, string>;
}

/** Where a call whose path holds no id was sent. */
export interface AddressUsed {
  readonly option: "baseUrl" | "proxyUrl";
  readonly address: string;
  /** The other address, when it is set and differs. */
  readonly other: string | undefined;
  /** A remote-call path (`/svc....`), which a deployment may prefix (`rpcPathPrefix`). */
  readonly remoteCall: boolean;
}

/** The code OpenAI-compatible servers (and the emulator) give a 404 for an unknown model. */
const MODEL_NOT_FOUND = "model_not_found";

/**
 * The advice for a 404 on a path that holds no id: no resource can be missing, so the address is
 * wrong, and with both addresses set the likeliest mistake is one in place of the other. (A 404
 * naming the model is about the model.)
 */
function wrongAddressHint(sent: AddressUsed): string {
  const [kind, otherOption] =
    sent.option === "baseUrl"
      ? ["studio address (threads, assistants, models, datasets)", "proxyUrl"]
      : ["inference address (chat and text completions)", "baseUrl"];
  const swap =
    sent.other === undefined
      ? ""
      : ` baseUrl and proxyUrl may be swapped (${otherOption} is ${sent.other}); if so, ` +
        "exchange them.";
  const prefix = sent.remoteCall
    ? " If the deployment puts a prefix before the remote-call paths, set rpcPathPrefix."
    : "";
  return (
    `. ${sent.option} (${sent.address}) has no such path, so it is not the ` +
    `${kind}.${swap}${prefix}`
  );
}

/**
 * Builds the `StudioAPIError` subclass for a non-2xx, non-3xx response and its body text. `sent`:
 * where a call without an id in its path went (a 404 then blames the address).
 */
export function apiErrorFromResponse(
  response: ResponseHead,
  text: string,
  method: string,
  path: string,
  sent?: AddressUsed,
): StudioAPIError {
  const { body, message } = parseErrorBody(text);
  const headers = safeHeaders(response);
  const code = extractCode(body);
  const wrongAddress = sent !== undefined && response.status === 404 && code !== MODEL_NOT_FOUND;
  return StudioAPIError.fromResponse({
    status: response.status,
    method,
    path,
    serverMessage: message ?? `no error message in the response (HTTP ${response.status})`,
    code,
    hint: wrongAddress ? wrongAddressHint(sent) : undefined,
    wrongAddress: wrongAddress ? sent.option : undefined,
    requestId: headers["x-request-id"] ?? headers["request-id"],
    headers,
    body,
    retryAfterMs: parseRetryAfter(headers["retry-after"]),
  });
}

/** A 3xx is never followed: it would replay the key to wherever `Location` points. */
export function redirectError(
  response: ResponseHead,
  method: string,
  path: string,
  requestUrl: string,
): StudioAPIError {
  const location = response.header("location");
  let target = "an unknown address";
  if (location) {
    try {
      target = new URL(location, requestUrl).origin;
    } catch {
      target = "an unreadable Location";
    }
  }
  const headers = safeHeaders(response);
  return StudioAPIError.fromResponse({
    status: response.status,
    method,
    path,
    serverMessage:
      `the service redirected to ${target}. Redirects are not followed so the API ` +
      "key never leaves the configured address; set baseUrl / proxyUrl to the final address",
    requestId: headers["x-request-id"] ?? headers["request-id"],
    headers,
  });
}

/** Codes that prove the request never left this machine (nothing reached the server). */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The first `code` on the error or its causes (fetch wraps the socket error in a TypeError). */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === "string") return code;
    current = cause;
  }
  return undefined;
}

/** "fetch failed: connect ECONNREFUSED 127.0.0.1:1": the wrapper's words alone say nothing. */
export function describeChain(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 3 && current !== undefined && current !== null; depth++) {
    const { message, cause } = (typeof current === "object" ? current : {}) as {
      message?: unknown;
      cause?: unknown;
    };
    const text = typeof message === "string" ? message : String(current);
    if (text && !parts.some((part) => part.includes(text))) parts.push(text);
    current = cause;
  }
  return parts.join(": ") || "unknown network error";
}

export function connectionError(
  error: unknown,
  method: string,
  path: string,
  responseStarted: boolean,
): StudioConnectionError {
  const code = errorCode(error);
  const mayHaveReachedServer = responseStarted || !(code && NOT_SENT_CODES.has(code));
  const reason = describeChain(error);
  const detail = code && !reason.includes(code) ? `${reason} (${code})` : reason;
  return new StudioConnectionError(method, path, detail, mayHaveReachedServer, { cause: error });
}
