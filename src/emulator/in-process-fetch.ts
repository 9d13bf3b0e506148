/**
 * The in-process transport: a WHATWG `fetch` that hands each request to the emulator's pipeline
 * and builds the `Response` from its outcome, with no port, socket or loopback. The origin of the
 * URL is not looked at; the path picks the route, as on the HTTP server. Failures look as they do
 * over undici's fetch: a dropped connection rejects with `TypeError("fetch failed")` whose cause
 * has code `UND_ERR_SOCKET`, a cut stream errors its body with `TypeError("terminated")`, a closed
 * emulator refuses with `ECONNREFUSED`, an aborted signal rejects with its reason.
 */
import { Readable } from "node:stream";
import type { HttpError } from "./http-error";
import { bodyTooLarge, MAX_BODY_BYTES, type Outcome, type RequestPipeline } from "./pipeline";
import { createSseOut, SSE_HEADERS } from "./sse";
import { streamSseSink } from "./sse-stream";
import type { EmulatorFetch } from "./types";

export interface InProcessFetchOptions {
  pipeline: RequestPipeline;
  chunkDelayMs: number;
  /** True once the emulator is closed: requests are refused as by a port nobody listens on. */
  isClosed: () => boolean;
}

export function createInProcessFetch(options: InProcessFetchOptions): EmulatorFetch {
  const { pipeline, chunkDelayMs, isClosed } = options;
  return async (input, init) => {
    const request = plainRequest(input, init) ?? (await webRequest(new Request(input, init)));
    const { signal } = request;
    signal.throwIfAborted();
    if (isClosed())
      throw fetchFailed("ECONNREFUSED", "connect ECONNREFUSED (the in-process emulator is closed)");
    const requestId = pipeline.nextRequestId();
    const { raw, headers } = request;
    if (raw.length > MAX_BODY_BYTES) return errorResponse(bodyTooLarge(), requestId);
    const url = new URL(request.url);
    const processed = await untilAborted(
      pipeline.process(
        { method: request.method, url: url.pathname + url.search, headers, raw },
        requestId,
      ),
      signal,
    );
    try {
      const response = await respond(processed.outcome, requestId, chunkDelayMs, signal);
      processed.finished(response.status);
      return response;
    } catch (error) {
      processed.finished("reset");
      throw error;
    }
  };
}

/** What the pipeline reads of a request. */
interface RequestParts {
  method: string;
  url: string;
  /** Names in lower case, as `Headers` gives them. */
  headers: Record<string, string>;
  raw: Buffer;
  signal: AbortSignal;
}

/** A signal that never aborts, for a request sent without one. */
const NEVER = new AbortController().signal;
/** A header name `Headers` takes. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What `Headers` strips from both ends of a value. */
const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
/** The methods `Request` refuses. */
const FORBIDDEN = new Set(["CONNECT", "TRACE", "TRACK"]);
/** The methods `Request` writes in upper case (any other is kept as given). */
const NORMALIZED = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);

async function webRequest(request: Request): Promise<RequestParts> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const raw = Buffer.from(await request.arrayBuffer());
  return { method: request.method, url: request.url, headers, raw, signal: request.signal };
}

/**
 * The request as `new Request(input, init)` would read it, without building one (a `Request`
 * was a fifth of an in-process call's CPU), for the calls clients make: a URL, a string body or
 * none, headers as a plain object. Undefined for anything else, which takes the `Request` path.
 */
function plainRequest(input: unknown, init: RequestInit | undefined): RequestParts | undefined {
  if (typeof input !== "string" && !(input instanceof URL)) return undefined;
  const body = init?.body;
  const given = init?.headers;
  if (body != null && typeof body !== "string") return undefined;
  if (given != null && (typeof given !== "object" || Symbol.iterator in given)) return undefined;
  const method = init?.method ?? "GET";
  const upper = method.toUpperCase();
  // What `Request` refuses (a body on GET or HEAD, a forbidden or malformed method) it throws.
  if (body != null && (upper === "GET" || upper === "HEAD")) return undefined;
  if (!TOKEN.test(method) || FORBIDDEN.has(upper)) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, raw] of Object.entries(given ?? {})) {
    const lower = name.toLowerCase();
    const value = String(raw).replace(HTTP_WHITESPACE, "");
    // Repeated names are combined, and invalid ones refused, by `Headers`: left to it.
    if (lower in headers || !TOKEN.test(name) || /[\r\n]/.test(value) || value.includes("\0"))
      return undefined;
    headers[lower] = value;
  }
  if (body != null && headers["content-type"] === undefined) {
    headers["content-type"] = "text/plain;charset=UTF-8";
  }
  return {
    method: NORMALIZED.has(upper) ? upper : method,
    url: String(input),
    headers,
    raw: body == null ? Buffer.alloc(0) : Buffer.from(body),
    signal: init?.signal ?? NEVER,
  };
}

async function respond(
  outcome: Outcome,
  requestId: string,
  chunkDelayMs: number,
  signal: AbortSignal,
): Promise<Response> {
  if (outcome.kind === "drop") throw fetchFailed("UND_ERR_SOCKET", "other side closed");
  if (outcome.kind === "error") return errorResponse(outcome.error, requestId);
  const { result, cutAfter } = outcome;
  switch (result.kind) {
    case "json":
      return jsonResponse(result.status ?? 200, result.body, { "x-request-id": requestId });
    case "sse": {
      const sink = streamSseSink(() => terminated());
      const abort = () => sink.abort(signal.reason);
      signal.addEventListener("abort", abort, { once: true });
      const out = createSseOut(sink, { cutAfter, chunkDelayMs });
      result
        .produce(out)
        .catch((error: unknown) => sink.abort(error))
        .finally(() => signal.removeEventListener("abort", abort));
      return new Response(sink.body, {
        status: 200,
        headers: { ...SSE_HEADERS, "x-request-id": requestId },
      });
    }
    case "proxy": {
      const body = Readable.toWeb(result.body) as ReadableStream<Uint8Array>;
      return new Response(body, {
        status: result.status,
        headers: { ...result.headers, "x-request-id": requestId },
      });
    }
  }
}

function errorResponse(error: HttpError, requestId: string): Response {
  return jsonResponse(error.status, error.toBody(), {
    ...error.headers,
    "x-request-id": requestId,
  });
}

function jsonResponse(status: number, body: unknown, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...headers, "content-type": "application/json" },
  });
}

/** The work goes on (as on a server whose client left); the caller stops waiting for it. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** What undici's fetch rejects with when the connection fails: the socket error is the cause. */
function fetchFailed(code: string, message: string): TypeError {
  return new TypeError("fetch failed", { cause: Object.assign(new Error(message), { code }) });
}

/** What a read of an undici body meets when the connection drops mid-body. */
function terminated(): TypeError {
  return new TypeError("terminated", {
    cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
  });
}
