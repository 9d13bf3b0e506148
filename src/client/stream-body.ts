/**
 * A streamed response's body read into complete server-sent events, under the two rules a body
 * is read by: the idle clock (how long the server may stay silent) and the size cap (how far one
 * event may grow). It knows nothing of chunks or choices (src/client/stream-attempt.ts does).
 */
import { StudioStreamError } from "../errors";
import type { IdleClock } from "./attempt-timers";
import type { BodyReader } from "./engine";
import { SSEDecoder, type SSEEvent } from "./sse";

/**
 * After `[DONE]`, the rest of the body (normally nothing) is read briefly so the socket is reused.
 */
const DRAIN_GRACE_MS = 1000;
const DRAIN_LIMIT_BYTES = 64 * 1024;

function drain(reader: BodyReader): void {
  const timer = setTimeout(() => reader.cancel().catch(noop), DRAIN_GRACE_MS);
  let size = 0;
  const next = (): void => {
    reader.read().then(
      ({ done, value }) => {
        size += value?.byteLength ?? 0;
        if (done) clearTimeout(timer);
        else if (size > DRAIN_LIMIT_BYTES) {
          clearTimeout(timer);
          reader.cancel().catch(noop);
        } else next();
      },
      () => clearTimeout(timer),
    );
  };
  next();
}

function noop(): void {}

export class StreamBody {
  readonly #decoder = new SSEDecoder();
  readonly #idle: IdleClock;
  readonly #maxBytes: number;
  readonly #path: string;
  /** Undefined once the body ended or was handed back (drained or cancelled). */
  #reader: BodyReader | undefined;
  #ended = false;
  /** Bytes read since the last complete event: one event may not grow past the cap. */
  #pending = 0;

  constructor(reader: BodyReader | undefined, idle: IdleClock, maxBytes: number, path: string) {
    this.#reader = reader;
    this.#idle = idle;
    this.#maxBytes = maxBytes;
    this.#path = path;
  }

  /** The body ended: `read()` has returned its last events. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The complete events of the next read (often none); at the end, those the last bytes held. */
  async read(): Promise<SSEEvent[]> {
    let result: Awaited<ReturnType<BodyReader["read"]>> | undefined;
    if (this.#reader) {
      this.#idle.wait();
      result = await this.#reader.read();
      this.#idle.pause();
    }
    if (!result || result.done) {
      this.#ended = true;
      this.#reader = undefined;
      return this.#decoder.end();
    }
    const bytes = result.value ?? new Uint8Array(0);
    const events = this.#decoder.decode(bytes);
    if (events.length > 0) {
      this.#idle.event();
      this.#pending = this.#decoder.pending;
    } else {
      this.#pending += bytes.byteLength;
    }
    if (this.#pending > this.#maxBytes) {
      throw new StudioStreamError(
        this.#path,
        `one event grew past maxResponseBytes (${this.#maxBytes} bytes) without ending; the ` +
          "stream was abandoned. Raise the maxResponseBytes option if such events are expected.",
      );
    }
    return events;
  }

  /** `[DONE]` came: what follows is read briefly in the background, so the socket is reused. */
  finish(): void {
    this.#ended = true;
    if (this.#reader) drain(this.#reader);
    this.#reader = undefined;
  }

  /** The stream was left before its end: the connection is cancelled. False: there was no body. */
  cancel(): boolean {
    const reader = this.#reader;
    this.#reader = undefined;
    reader?.cancel().catch(noop);
    return reader !== undefined;
  }
}
