/**
 * The seam between the client and the wire: one transport over the engine (engine.ts) that sends
 * on this runtime. Redirects are never followed: a 3xx comes back as a response, so the key is
 * never replayed to another address.
 */
import { type BodyReader, Engine, type EngineOptions, type EngineResponse } from "./engine";

export type HttpMethod = "GET" | "POST" | "DELETE";

export interface TransportRequest {
  readonly method: HttpMethod;
  /** `scheme://host[:port]`. */
  readonly origin: string;
  /** Path and query, starting with `/`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
}

/** Status and headers of a response. */
export interface ResponseHead {
  readonly status: number;
  /** A response header by lower-case name. */
  header(name: string): string | undefined;
  /** All headers with lower-case names (only built for errors). */
  headerRecord(): Record<string, string>;
}

/** A response seen through `ResponseHead`, with its body. */
export class WireResponse implements ResponseHead {
  readonly status: number;
  readonly #response: EngineResponse;

  constructor(response: EngineResponse) {
    this.status = response.status;
    this.#response = response;
  }

  header(name: string): string | undefined {
    return this.#response.headers.get(name) ?? undefined;
  }

  headerRecord(): Record<string, string> {
    const out: Record<string, string> = {};
    this.#response.headers.forEach((value, name) => {
      out[name] = value;
    });
    return out;
  }

  /** The body, read piece by piece; null when the response has none. */
  get body(): BodyReader | null {
    return this.#response.body;
  }

  /**
   * The whole body as text; past `limit` bytes it throws `ResponseTooLargeError` as soon as the
   * limit is passed, or with `truncate` keeps the first `limit` bytes (an error page only feeds a
   * message). Content-Length is not trusted: fetch decompresses, so it may count other bytes.
   */
  async text(limit: number, truncate = false): Promise<string> {
    const body = this.#response.body;
    if (!body) return "";
    const parts: Uint8Array[] = [];
    let size = 0;
    let complete = false;
    try {
      for (;;) {
        const { done, value } = await body.read();
        if (done || value === undefined) {
          complete = true;
          break;
        }
        if (size + value.byteLength > limit) {
          if (!truncate) throw new ResponseTooLargeError(limit);
          parts.push(value.subarray(0, limit - size));
          size = limit;
          break;
        }
        size += value.byteLength;
        parts.push(value);
      }
    } finally {
      // A body read only in part is stopped, which frees the connection.
      if (!complete) body.cancel().catch(noop);
    }
    return utf8.decode(concat(parts, size));
  }

  /** Frees the connection without reading the body. */
  cancel(): void {
    this.#response.body?.cancel().catch(noop);
  }
}

/**
 * One attempt's cancellation and progress, shared by the client and the transport. The client's
 * timers and the caller's signal call `abort`; the transport reports when a response began (a
 * failure after that may have reached the server).
 */
export class AttemptControl {
  reason: Error | undefined;
  responseStarted = false;
  readonly #controller = new AbortController();

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.#controller.abort(reason);
  }
}

/** Error bodies are small; a gateway's error page is not worth more than this. */
export const ERROR_BODY_LIMIT = 64 * 1024;

/** Internal: a body passed the size cap. The client turns it into a `StudioResponseError`. */
export class ResponseTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`response body exceeds ${limit} bytes`);
  }
}

/** Stateless, so one instance serves every whole-body decode. */
const utf8 = new TextDecoder();

function noop(): void {}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const all = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.byteLength;
  }
  return all;
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

export class Transport {
  readonly engine: Engine;

  constructor(options: EngineOptions) {
    this.engine = new Engine(options);
  }

  /** Sends and resolves once the headers are in; `control.signal` stops it at any point. */
  async send(request: TransportRequest, control: AttemptControl): Promise<WireResponse> {
    const response = await this.engine.send(request.origin + request.path, {
      method: request.method,
      headers: request.headers as Record<string, string>,
      body: request.body ?? null,
      signal: control.signal,
    });
    control.responseStarted = true;
    return new WireResponse(response);
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}
