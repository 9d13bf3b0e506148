/**
 * undici transport: `Dispatcher.request` on one Agent per client (created on first use, so a
 * client that is never called opens nothing), or on the caller's own dispatcher.
 *
 * undici's own headers/body timeouts are switched off per request: the client enforces its
 * `timeout` and `streamIdleTimeout` itself through the request's AbortSignal, and undici's
 * 300 s defaults would otherwise cut long streams that the caller allowed.
 */
import { Agent, type Dispatcher } from "undici";
import {
  ResponseTooLargeError,
  type Transport,
  type TransportRequest,
  type TransportResponse,
  utf8,
} from "./transport";

/** How long a stream's tail (after `[DONE]`) may take to arrive before the socket is dropped. */
const RELEASE_GRACE_MS = 1000;
const RELEASE_LIMIT_BYTES = 64 * 1024;

function noop(): void {}

/**
 * undici destroys an unfinished body with a "Request aborted" error event; with nobody listening
 * that would be an uncaught exception, so a no-op listener goes on first.
 */
function destroy(body: Dispatcher.ResponseData["body"]): void {
  if (!body.destroyed) body.on("error", noop).destroy();
}

class UndiciResponse implements TransportResponse {
  readonly status: number;
  readonly #data: Dispatcher.ResponseData;

  constructor(data: Dispatcher.ResponseData) {
    this.status = data.statusCode;
    this.#data = data;
  }

  header(name: string): string | undefined {
    const value = this.#data.headers[name];
    return Array.isArray(value) ? value.join(", ") : value;
  }

  headerRecord(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.#data.headers)) {
      if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
    }
    return out;
  }

  async text(limit: number): Promise<string> {
    const body = this.#data.body;
    const declared = this.header("content-length");
    if (declared !== undefined) {
      const size = Number(declared);
      if (size > limit) {
        destroy(body);
        throw new ResponseTooLargeError(limit, size);
      }
      // undici's parser rejects a body longer than its Content-Length, so the cap holds here
      // and the fast path (no per-chunk bookkeeping) can be used.
      return body.text();
    }
    const parts: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += (chunk as Uint8Array).byteLength;
      if (size > limit) {
        destroy(body);
        throw new ResponseTooLargeError(limit, undefined);
      }
      parts.push(chunk as Uint8Array);
    }
    return utf8.decode(parts.length === 1 ? parts[0] : Buffer.concat(parts, size));
  }

  chunks(): AsyncIterator<Uint8Array> {
    return this.#data.body[Symbol.asyncIterator]();
  }

  cancel(): void {
    destroy(this.#data.body);
  }

  release(): void {
    const body = this.#data.body;
    if (body.destroyed) return;
    // Reading the (normally empty) tail keeps the socket reusable; a server that never ends the
    // body loses the socket after a short grace instead of holding it forever.
    body
      .dump({ limit: RELEASE_LIMIT_BYTES, signal: AbortSignal.timeout(RELEASE_GRACE_MS) })
      .catch(noop);
  }
}

export class UndiciTransport implements Transport {
  readonly name = "undici";
  readonly #owned: boolean;
  #dispatcher: Dispatcher | undefined;

  constructor(dispatcher: Dispatcher | undefined) {
    this.#dispatcher = dispatcher;
    this.#owned = dispatcher === undefined;
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    this.#dispatcher ??= new Agent();
    const data = await this.#dispatcher.request({
      origin: request.origin,
      path: request.path,
      method: request.method,
      headers: request.headers as Record<string, string>,
      body: request.body,
      signal: request.signal,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    return new UndiciResponse(data);
  }

  /**
   * Destroys the client's own Agent; a caller's dispatcher stays open (its owner closes it).
   * Destroy, not a graceful close: a stream the caller abandoned without `break` would otherwise
   * keep `close()` waiting forever.
   */
  async close(): Promise<void> {
    const dispatcher = this.#dispatcher;
    this.#dispatcher = undefined;
    if (this.#owned && dispatcher) await dispatcher.destroy();
  }
}
