/**
 * WHATWG fetch transport. Selected by the `fetch` option: nock intercepts only the global fetch,
 * and edge runtimes have nothing else. `redirect: "manual"` keeps the key on the configured origin.
 */
import {
  ResponseTooLargeError,
  type Transport,
  type TransportRequest,
  type TransportResponse,
  utf8,
} from "./transport";
import type { FetchLike } from "./types";

function noop(): void {}

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

class FetchResponse implements TransportResponse {
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

  async text(limit: number): Promise<string> {
    // Content-Length is not trusted here: fetch decompresses, so it may count compressed bytes.
    const declared = Number(this.header("content-length"));
    if (declared > limit) {
      this.cancel();
      throw new ResponseTooLargeError(limit, declared);
    }
    const reader = this.#getReader();
    if (!reader) return "";
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        this.cancel();
        throw new ResponseTooLargeError(limit, undefined);
      }
      parts.push(value);
    }
    if (parts.length === 1) return utf8.decode(parts[0]);
    const all = new Uint8Array(size);
    let offset = 0;
    for (const part of parts) {
      all.set(part, offset);
      offset += part.byteLength;
    }
    return utf8.decode(all);
  }

  chunks(): AsyncIterator<Uint8Array> {
    const reader = this.#getReader();
    if (!reader) {
      return { next: async () => ({ done: true, value: undefined }) };
    }
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

export class FetchTransport implements Transport {
  readonly name = "fetch";
  readonly #fetch: FetchLike;

  constructor(fetchImpl: FetchLike) {
    this.#fetch = fetchImpl;
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    const response = await this.#fetch(request.origin + request.path, {
      method: request.method,
      headers: request.headers as Record<string, string>,
      body: request.body ?? null,
      signal: request.signal,
      redirect: "manual",
    });
    return new FetchResponse(response);
  }

  async close(): Promise<void> {}
}
