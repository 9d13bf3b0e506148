/**
 * undici transport, on one Agent per client (created on first use, so a client that is never
 * called opens nothing) or on the caller's own dispatcher.
 *
 * JSON calls go through `dispatch` with a small handler that collects the body chunks itself: no
 * Readable stream, no AbortController, no body mixin per call, which is what keeps the client's
 * overhead over a bare `request()` + `body.json()` near zero. Streams use `request()`, whose
 * Readable body is the natural fit for reading as data arrives.
 *
 * undici's own headers/body timeouts are switched off per request: the client enforces `timeout`
 * and `streamIdleTimeout` itself, and undici's 300 s defaults would otherwise cut long streams
 * that the caller allowed.
 */
import type { IncomingHttpHeaders } from "node:http";
import { Agent, type Dispatcher } from "undici";
import {
  type AttemptControl,
  type BufferedResponse,
  ERROR_BODY_LIMIT,
  isSuccess,
  ResponseTooLargeError,
  type StreamingResponse,
  type Transport,
  type TransportRequest,
  utf8,
} from "./transport";

/** How long a stream's tail (after `[DONE]`) may take to arrive before the socket is dropped. */
const RELEASE_GRACE_MS = 1000;
const RELEASE_LIMIT_BYTES = 64 * 1024;
const NO_HEADERS: IncomingHttpHeaders = {};

function noop(): void {}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

function headerRecord(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = headerValue(headers, name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * undici destroys an unfinished body with a "Request aborted" error event; with nobody listening
 * that would be an uncaught exception, so a no-op listener goes on first.
 */
function destroy(body: Dispatcher.ResponseData["body"]): void {
  if (!body.destroyed) body.on("error", noop).destroy();
}

/**
 * Collects one response and is, once complete, that response. Settles its promise exactly once:
 * on the end of the body, on a transport error, or at once when the attempt is aborted (even
 * while the request still waits for a connection).
 */
class BufferedHandler implements Dispatcher.DispatchHandler, BufferedResponse {
  status = 0;
  #headers: IncomingHttpHeaders = NO_HEADERS;
  #chunks: Buffer[] = [];
  #size = 0;
  #keep: number;
  #controller: Dispatcher.DispatchController | undefined;
  #settled = false;
  #abortReason: Error | undefined;
  readonly #limit: number;
  readonly #control: AttemptControl;
  readonly #resolve: (response: BufferedResponse) => void;
  readonly #reject: (error: unknown) => void;

  constructor(
    control: AttemptControl,
    limit: number,
    resolve: (response: BufferedResponse) => void,
    reject: (error: unknown) => void,
  ) {
    this.#control = control;
    this.#limit = limit;
    this.#keep = limit;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  header(name: string): string | undefined {
    return headerValue(this.#headers, name);
  }

  headerRecord(): Record<string, string> {
    return headerRecord(this.#headers);
  }

  text(): string {
    const chunks = this.#chunks;
    if (chunks.length === 0) return "";
    return utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  }

  /** Called by the attempt's control (timeout, caller's signal). */
  abort(reason: Error): void {
    // Once settled the request is over; aborting its (reused) connection now would be harmful.
    if (this.#settled) return;
    this.#abortReason = reason;
    this.#fail(reason);
  }

  #fail(error: Error): void {
    if (!this.#settled) {
      this.#settled = true;
      this.#reject(error);
    }
    this.#controller?.abort(error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortReason) controller.abort(this.#abortReason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    if (statusCode < 200) return; // 1xx informational: the real answer follows
    this.status = statusCode;
    this.#headers = headers;
    this.#control.responseStarted = true;
    if (!isSuccess(statusCode)) {
      // An error body only feeds a message; keep its start and let the rest pass.
      this.#keep = ERROR_BODY_LIMIT;
      return;
    }
    const declared = Number(headerValue(headers, "content-length"));
    if (declared > this.#limit) this.#fail(new ResponseTooLargeError(this.#limit, declared));
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#size += chunk.length;
    if (this.#size <= this.#keep) {
      this.#chunks.push(chunk);
    } else if (isSuccess(this.status)) {
      this.#fail(new ResponseTooLargeError(this.#limit, undefined));
    }
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#resolve(this);
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#reject(error);
  }
}

class UndiciStreamingResponse implements StreamingResponse {
  readonly status: number;
  readonly #data: Dispatcher.ResponseData;

  constructor(data: Dispatcher.ResponseData) {
    this.status = data.statusCode;
    this.#data = data;
  }

  header(name: string): string | undefined {
    return headerValue(this.#data.headers, name);
  }

  headerRecord(): Record<string, string> {
    return headerRecord(this.#data.headers);
  }

  async text(limit: number, truncate = false): Promise<string> {
    const body = this.#data.body;
    const parts: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of body) {
      const bytes = chunk as Uint8Array;
      if (size + bytes.byteLength > limit) {
        destroy(body);
        if (!truncate) throw new ResponseTooLargeError(limit, undefined);
        parts.push(bytes.subarray(0, limit - size));
        size = limit;
        break;
      }
      size += bytes.byteLength;
      parts.push(bytes);
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
  #closed = false;

  readonly #connections: number;

  /** `connections`: sockets per origin in the client's own Agent (ignored for a caller's). */
  constructor(dispatcher: Dispatcher | undefined, connections: number) {
    this.#dispatcher = dispatcher;
    this.#owned = dispatcher === undefined;
    this.#connections = connections;
  }

  buffered(
    request: TransportRequest,
    control: AttemptControl,
    limit: number,
  ): Promise<BufferedResponse> {
    const dispatcher = this.#pool();
    return new Promise<BufferedResponse>((resolve, reject) => {
      const handler = new BufferedHandler(control, limit, resolve, reject);
      control.bind(handler);
      try {
        dispatcher.dispatch(
          {
            origin: request.origin,
            path: request.path,
            method: request.method,
            headers: request.headers as Record<string, string>,
            body: request.body,
            headersTimeout: 0,
            bodyTimeout: 0,
          },
          handler,
        );
      } catch (error) {
        reject(error);
      }
    });
  }

  async open(request: TransportRequest, control: AttemptControl): Promise<StreamingResponse> {
    const dispatcher = this.#pool();
    // Streams are long-lived; an AbortController per stream is noise next to the stream itself.
    const controller = new AbortController();
    control.bind(controller);
    const data = await dispatcher.request({
      origin: request.origin,
      path: request.path,
      method: request.method,
      headers: request.headers as Record<string, string>,
      body: request.body,
      signal: controller.signal,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    control.responseStarted = true;
    return new UndiciStreamingResponse(data);
  }

  /**
   * Destroys the client's own Agent; a caller's dispatcher stays open (its owner closes it).
   * Destroy, not a graceful close: a stream the caller abandoned without `break` would otherwise
   * keep `close()` waiting forever.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const dispatcher = this.#dispatcher;
    this.#dispatcher = undefined;
    if (this.#owned && dispatcher) await dispatcher.destroy();
  }

  /** The Agent, created on first use; never re-created once closed. */
  #pool(): Dispatcher {
    if (this.#closed) throw new Error("the transport is closed");
    this.#dispatcher ??= new Agent({ connections: this.#connections });
    return this.#dispatcher;
  }
}
