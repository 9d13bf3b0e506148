/**
 * The seam between the client and the wire. Two implementations: undici (default, one keep-alive
 * pool per client) and WHATWG fetch (nock-based tests, runtimes without undici). Neither follows
 * redirects: a 3xx comes back as a response, so the key is never replayed to another address.
 *
 * Two shapes of call: `buffered` (the whole body in memory, for JSON answers: the hot path, so
 * the undici side skips stream objects entirely) and `open` (a body read as it arrives, for SSE).
 */

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

/** A response whose body has been read completely. */
export interface BufferedResponse extends ResponseHead {
  /** The body as text (for a non-2xx answer: its first `ERROR_BODY_LIMIT` bytes). */
  text(): string;
}

/** A response whose body is read as it arrives. */
export interface StreamingResponse extends ResponseHead {
  /**
   * The whole body as text; past `limit` bytes it throws `ResponseTooLargeError`, or with
   * `truncate` keeps the first `limit` bytes (an error page only feeds a message).
   */
  text(limit: number, truncate?: boolean): Promise<string>;
  /** The body as it arrives. */
  chunks(): AsyncIterator<Uint8Array>;
  /** Stops reading and frees the connection (the rest of the body is discarded). */
  cancel(): void;
  /** The caller is done after a complete read; lets a keep-alive socket go back to its pool. */
  release(): void;
}

export interface Transport {
  readonly name: "undici" | "fetch";
  /** Sends and reads the whole body; a 2xx body past `limit` bytes is a `ResponseTooLargeError`. */
  buffered(
    request: TransportRequest,
    control: AttemptControl,
    limit: number,
  ): Promise<BufferedResponse>;
  /** Sends and resolves once the headers are in. */
  open(request: TransportRequest, control: AttemptControl): Promise<StreamingResponse>;
  close(): Promise<void>;
}

/** Anything that can stop a request: an AbortController, an undici dispatch handler... */
export interface Abortable {
  abort(reason: Error): void;
}

/**
 * One attempt's cancellation and progress, shared by the client and the transport. The client's
 * timers and the caller's signal call `abort`; the transport binds what actually stops its request
 * and reports when a response began (a failure after that may have reached the server).
 */
export class AttemptControl {
  reason: Error | undefined;
  responseStarted = false;
  #target: Abortable | undefined;

  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.#target?.abort(reason);
  }

  /** Stops `target` when this attempt is aborted (at once if it already was). */
  bind(target: Abortable): void {
    this.#target = target;
    if (this.reason) target.abort(this.reason);
  }
}

/** Error bodies are small; a gateway's error page is not worth more than this. */
export const ERROR_BODY_LIMIT = 64 * 1024;

/** Internal: a body passed the size cap. The client turns it into a `StudioResponseError`. */
export class ResponseTooLargeError extends Error {
  constructor(
    readonly limit: number,
    readonly declared: number | undefined,
  ) {
    super(`response body exceeds ${limit} bytes`);
  }
}

/** Stateless, so one instance serves every whole-body decode. */
export const utf8 = new TextDecoder();

export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}
