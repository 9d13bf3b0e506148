/**
 * What ends one attempt in time: the wait for the response headers (`timeout`), the stream's idle
 * clock (`streamIdleTimeout`) and its overall cap (`streamTimeout`), and the caller's signal. Each
 * aborts the attempt with its own reason, which attempt-failure.ts turns into the error thrown.
 */
import { abortReason } from "./retry";
import type { AttemptControl } from "./transport";

// Abort reasons of the client's own timers; never thrown to callers.
export const TIMEOUT = new Error("langchain-studio: request timeout");
export const IDLE = new Error("langchain-studio: stream idle timeout");
export const STREAM_TIMEOUT = new Error("langchain-studio: stream timeout");

function abortForTimeout(control: AttemptControl): void {
  control.abort(TIMEOUT);
}

function abortForIdle(control: AttemptControl): void {
  control.abort(IDLE);
}

function abortForStreamTimeout(control: AttemptControl): void {
  control.abort(STREAM_TIMEOUT);
}

/**
 * The stream idle clock: `ms` of waiting for the server between two complete events. It runs only
 * while the client waits for a read (not while the consumer holds a chunk), and only a complete
 * event winds it back up: bytes that complete none (a trickle, blank lines, comments) do not.
 */
export class IdleClock {
  readonly #control: AttemptControl;
  readonly #ms: number;
  #left: number;
  #since = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(control: AttemptControl, ms: number) {
    this.#control = control;
    this.#ms = ms;
    this.#left = ms;
  }

  /** Before a read. */
  wait(): void {
    this.#since = Date.now();
    this.#timer = setTimeout(abortForIdle, Math.max(0, this.#left), this.#control);
  }

  /** After a read: the time it took is spent. */
  pause(): void {
    clearTimeout(this.#timer);
    this.#left -= Date.now() - this.#since;
  }

  /** A complete event arrived. */
  event(): void {
    this.#left = this.#ms;
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}

/** A stream's clocks besides `timeout`: idle time between events, and what is left of its cap. */
export interface StreamClocks {
  readonly idleMs: number;
  readonly leftMs: number;
}

/**
 * The timers of one attempt, started together and stopped together. However the attempt ends
 * (the caller's signal, a timer), they stop with it, at once: a consumer that drops a stream while
 * holding a chunk (LangChain does when its signal aborts) never resumes the generator, so its
 * `finally` would never run.
 */
export class AttemptTimers {
  /** The stream's idle clock; undefined for a plain call. */
  readonly idle: IdleClock | undefined;
  readonly #headers: ReturnType<typeof setTimeout>;
  readonly #stream: ReturnType<typeof setTimeout> | undefined;
  readonly #unlink: (() => void) | undefined;

  constructor(
    control: AttemptControl,
    timeout: number,
    signal: AbortSignal | undefined,
    stream?: StreamClocks,
  ) {
    this.#headers = setTimeout(abortForTimeout, timeout, control);
    if (stream) {
      this.#stream = setTimeout(abortForStreamTimeout, Math.max(0, stream.leftMs), control);
      this.idle = new IdleClock(control, stream.idleMs);
    }
    control.signal.addEventListener("abort", () => this.stop(), { once: true });
    this.#unlink = signal === undefined ? undefined : linkSignal(signal, control);
  }

  /** The headers came: `timeout` is over; from here on the idle clock counts. */
  headersArrived(): void {
    clearTimeout(this.#headers);
  }

  stop(): void {
    clearTimeout(this.#headers);
    clearTimeout(this.#stream);
    this.idle?.stop();
    this.#unlink?.();
  }
}

function linkSignal(signal: AbortSignal, control: AttemptControl): () => void {
  const onAbort = () => control.abort(abortReason(signal));
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}
