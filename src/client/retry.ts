/**
 * When to retry and how long to wait. Pure functions so the policy is tested on its own; the
 * client's call loop (src/client/request.ts) is the only place that retries.
 */
import { StudioAPIError, StudioConnectionError, StudioError, StudioTimeoutError } from "../errors";

/**
 * How a call may be retried.
 * - `read`: nothing is created on the server (reads, deletes, completions), so repeating the
 *   request is harmless and every retryable failure is retried.
 * - `create`: the call creates state (a thread, message or assistant); a repeat after the request
 *   may have reached the server could create it twice, so only failures that prove it did not
 *   (429, a connection refused before anything was written) are retried.
 */
export type RetryClass = "read" | "create";

const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504]);

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** Upper bound on a server-requested wait, so a bad `Retry-After` cannot stall a call for hours. */
export const MAX_RETRY_AFTER_MS = 60_000;

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUS.has(status);
}

/**
 * Whether `error`, raised by one attempt of a call of class `retryClass`, may be retried.
 *
 * Servers answering in the Connect format (`{code, message}`) say more than their status: they
 * send 409 for both `aborted` (a transaction lost a race: try again) and `already_exists` (it is
 * done: a repeat cannot succeed), so a 409 that names a code is retried only for `aborted`, one
 * without a code as the spec's list says. `unimplemented` means the server has no such call, which
 * no attempt changes, whatever status carries it.
 */
export function shouldRetry(error: unknown, retryClass: RetryClass): boolean {
  if (error instanceof StudioAPIError) {
    if (error.code === "unimplemented") return false;
    if (retryClass === "create") return error.status === 429;
    if (error.status === 409) return error.code === undefined || error.code === "aborted";
    return RETRYABLE_STATUS.has(error.status);
  }
  if (error instanceof StudioConnectionError) {
    return retryClass === "read" || !error.mayHaveReachedServer;
  }
  // A timeout is ambiguous: the server may be processing the request right now.
  if (error instanceof StudioTimeoutError) return retryClass === "read";
  return false;
}

/**
 * Milliseconds a `Retry-After` header asks for (seconds or an HTTP date), capped at
 * `MAX_RETRY_AFTER_MS`; undefined when absent or unreadable.
 */
export function parseRetryAfter(
  header: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (header === undefined || header === null) return undefined;
  const text = header.trim();
  if (text === "") return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    // Only an HTTP date (it has a weekday or month name): Date.parse("-5") would be a year.
    const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(date)) return undefined;
    ms = date - now;
  }
  return Math.min(Math.max(0, Math.round(ms)), MAX_RETRY_AFTER_MS);
}

/**
 * Wait before retry number `attempt` (0 for the first retry): the server's `Retry-After` when it
 * gave a usable one, else 0.5 s doubling up to 8 s, with up to 25% jitter taken off so that many
 * clients rate-limited together do not come back in lockstep.
 */
export function retryDelay(
  attempt: number,
  retryAfterHeader?: string | null,
  random: () => number = Math.random,
): number {
  const requested = parseRetryAfter(retryAfterHeader);
  if (requested !== undefined) return requested;
  const base = Math.min(INITIAL_DELAY_MS * 2 ** Math.max(0, attempt), MAX_DELAY_MS);
  return Math.round(base * (1 - random() * 0.25));
}

/** Resolves after `ms`, or rejects with `abortReason(signal)` as soon as the signal aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0 && !signal) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * What an aborted call throws: the signal's reason when it is an error (by default a DOMException
 * named `AbortError`, which LangChain recognises), else an `AbortError` carrying the reason.
 */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new StudioError("The request was aborted.", { cause: reason });
  error.name = "AbortError";
  return error;
}
