/**
 * The seam between the client and the wire. Two implementations: undici (default, one keep-alive
 * pool per client) and WHATWG fetch (nock-based tests, runtimes without undici). Neither follows
 * redirects: a 3xx comes back as a response, so the key is never replayed to another address.
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
  /** Aborting it must stop the request at once and release the socket. */
  readonly signal: AbortSignal;
}

export interface TransportResponse {
  readonly status: number;
  /** A response header by lower-case name. */
  header(name: string): string | undefined;
  /** All headers with lower-case names (only built for errors). */
  headerRecord(): Record<string, string>;
  /** The whole body as text; throws `ResponseTooLargeError` past `limit` bytes. */
  text(limit: number): Promise<string>;
  /** The body as it arrives. */
  chunks(): AsyncIterator<Uint8Array>;
  /** Stops reading and frees the connection (the rest of the body is discarded). */
  cancel(): void;
  /** The caller is done after a complete read; lets a keep-alive socket go back to its pool. */
  release(): void;
}

export interface Transport {
  readonly name: "undici" | "fetch";
  send(request: TransportRequest): Promise<TransportResponse>;
  close(): Promise<void>;
}

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
