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
    const request = new Request(input, init);
    const { signal } = request;
    signal.throwIfAborted();
    if (isClosed())
      throw fetchFailed("ECONNREFUSED", "connect ECONNREFUSED (the in-process emulator is closed)");
    const requestId = pipeline.nextRequestId();
    const raw = Buffer.from(await request.arrayBuffer());
    if (raw.length > MAX_BODY_BYTES) return errorResponse(bodyTooLarge(), requestId);
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
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
