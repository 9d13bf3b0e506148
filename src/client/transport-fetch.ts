/**
 * WHATWG fetch transport. Selected by the `fetch` option: nock intercepts only the global fetch,
 * and edge runtimes have nothing else. `redirect: "manual"` keeps the key on the configured origin.
 */
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
import type { FetchLike } from "./types";

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

/** Async iterator over a body reader; `return()` (an early `break`) cancels the body. */
class ReaderIterator implements AsyncIterator<Uint8Array> {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.#reader = reader;
  }

  async next(): Promise<IteratorResult<Uint8Array>> {
    const { done, value } = await this.#reader.read();
    return done ? { done: true, value: undefined } : { done: false, value };
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    await this.#reader.cancel().catch(noop);
    return { done: true, value: undefined };
  }
}

class FetchResponse implements StreamingResponse {
  readonly status: number;
  readonly #response: Response;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(response: Response) {
    // An opaque redirect (browsers) has status 0; report it as the redirect it is.
    this.status = response.type === "opaqueredirect" ? 302 : response.status;
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

  /**
   * Reads the body; past `limit` bytes it fails, or with `truncate` keeps the first `limit`.
   * Content-Length is not trusted: fetch decompresses, so it may count compressed bytes.
   */
  async text(limit: number, truncate = false): Promise<string> {
    const reader = this.#getReader();
    if (!reader) return "";
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > limit) {
        this.cancel();
        if (!truncate) throw new ResponseTooLargeError(limit, undefined);
        parts.push(value.subarray(0, limit - size));
        size = limit;
        break;
      }
      size += value.byteLength;
      parts.push(value);
    }
    return size === 0 ? "" : utf8.decode(concat(parts, size));
  }

  chunks(): AsyncIterator<Uint8Array> {
    const reader = this.#getReader();
    if (!reader) return { next: async () => ({ done: true, value: undefined }) };
    return new ReaderIterator(reader);
  }

  cancel(): void {
    if (this.#reader) {
      this.#reader.cancel().catch(noop);
    } else if (this.#response.body && !this.#response.bodyUsed) {
      this.#response.body.cancel().catch(noop);
    }
  }

  release(): void {
    this.cancel();
  }

  #getReader(): ReadableStreamDefaultReader<Uint8Array> | undefined {
    if (!this.#reader && this.#response.body) this.#reader = this.#response.body.getReader();
    return this.#reader;
  }
}

/** A fetch response read to the end. */
class FetchBuffered implements BufferedResponse {
  readonly status: number;
  readonly #head: FetchResponse;
  readonly #text: string;

  constructor(head: FetchResponse, text: string) {
    this.status = head.status;
    this.#head = head;
    this.#text = text;
  }

  header(name: string): string | undefined {
    return this.#head.header(name);
  }

  headerRecord(): Record<string, string> {
    return this.#head.headerRecord();
  }

  text(): string {
    return this.#text;
  }
}

export class FetchTransport implements Transport {
  readonly name = "fetch";
  readonly #fetch: FetchLike;

  constructor(fetchImpl: FetchLike) {
    this.#fetch = fetchImpl;
  }

  async buffered(
    request: TransportRequest,
    control: AttemptControl,
    limit: number,
  ): Promise<BufferedResponse> {
    const response = (await this.open(request, control)) as FetchResponse;
    const ok = isSuccess(response.status);
    const text = await response.text(ok ? limit : ERROR_BODY_LIMIT, !ok);
    return new FetchBuffered(response, text);
  }

  async open(request: TransportRequest, control: AttemptControl): Promise<StreamingResponse> {
    const controller = new AbortController();
    control.bind(controller);
    const response = await this.#fetch(request.origin + request.path, {
      method: request.method,
      headers: request.headers as Record<string, string>,
      body: request.body ?? null,
      signal: controller.signal,
      redirect: "manual",
    });
    control.responseStarted = true;
    return new FetchResponse(response);
  }

  async close(): Promise<void> {}
}
