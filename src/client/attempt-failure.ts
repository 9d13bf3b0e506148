/**
 * What a failed attempt throws, whatever happened: the caller's abort, one of the client's own
 * timers, an error the client already typed, a body past the size cap, a closed client, or a
 * lost connection (before the answer, or mid-stream).
 */
import { StudioError, StudioResponseError, StudioStreamError, StudioTimeoutError } from "../errors";
import { IDLE, STREAM_TIMEOUT, TIMEOUT } from "./attempt-timers";
import { connectionError, describeChain } from "./errors-from-response";
import { abortReason } from "./retry";
import { type AttemptControl, type HttpMethod, ResponseTooLargeError } from "./transport";

/** The limits an attempt ran under, named in its timeout errors. */
export interface AttemptLimits {
  /** Wait for the response headers. */
  readonly timeout: number;
  /** Wait between two complete events. */
  readonly idleMs: number;
  /** The whole stream, retries included. */
  readonly streamMs: number;
}

export interface FailedAttempt {
  /** The client method, named in the size error. */
  readonly name: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly control: AttemptControl;
  readonly signal: AbortSignal | undefined;
  readonly limits: AttemptLimits;
  /** close() was called on the client. */
  readonly closed: boolean;
  /** A stream's body had begun, so a lost connection cut the answer rather than missing it. */
  readonly streaming: boolean;
}

export function closedError(): StudioError {
  return new StudioError(
    "This StudioClient is closed (close() was called); create a new client to make more calls.",
  );
}

export function attemptFailure(error: unknown, attempt: FailedAttempt): Error {
  const { method, path, limits, control, signal } = attempt;
  if (signal?.aborted) return abortReason(signal);
  const reason = control.reason;
  if (reason === TIMEOUT) return new StudioTimeoutError(method, path, limits.timeout);
  if (reason === IDLE) return new StudioTimeoutError(method, path, limits.idleMs, "event");
  if (reason === STREAM_TIMEOUT)
    return new StudioTimeoutError(method, path, limits.streamMs, "stream");
  if (error instanceof StudioError) return error;
  if (error instanceof ResponseTooLargeError) {
    return new StudioResponseError(
      method,
      path,
      `${attempt.name} got a body larger than maxResponseBytes (${error.limit} bytes). Raise ` +
        "the maxResponseBytes option if this is expected.",
    );
  }
  if (attempt.closed) return closedError();
  if (attempt.streaming) {
    return new StudioStreamError(
      path,
      `the connection was lost mid-stream (${describeChain(error)}); the answer is incomplete`,
      { cause: error },
    );
  }
  return connectionError(error, method, path, control.responseStarted);
}
