/**
 * How long thread writes wait before trying again: the client's backoff (src/client/retry.ts),
 * started at the pause the caller chose, and the one loop that repeats a write safe to repeat.
 */
import { retryDelay, sleep } from "../client/retry";

export interface WritePolicy {
  /** Attempts per write, the first one included. */
  maxAttempts: number;
  /** Pause before the first retry or read-back; the later ones double, as the client's do. */
  confirmDelayMs: number;
}

/** The history's defaults (`maxWriteAttempts`, `confirmDelayMs`), and the checkpointer's. */
export const DEFAULT_WRITE_POLICY: WritePolicy = { maxAttempts: 3, confirmDelayMs: 250 };

/** The client's first pause without jitter: the pause `confirmDelayMs` replaces. */
const CLIENT_FIRST_PAUSE_MS = retryDelay(0, undefined, () => 0);

/**
 * Waits after try number `attempt` (from 1) of a thread write failed. It is the client's backoff
 * (doubling, capped at 16 times the first pause, jittered), scaled so that the first pause is
 * `policy.confirmDelayMs` instead of the client's. Why not the client's as it is: these pauses
 * follow failures the client does not retry (the write may be stored and is read back), the
 * history lets its users choose them (`confirmDelayMs`, 0 in tests), and the default 250 ms reads
 * back sooner than the client's 0.5 s, which is sized for rate limits and overloaded servers.
 */
export function pauseBeforeRetry(policy: WritePolicy, attempt: number): Promise<void> {
  const scale = policy.confirmDelayMs / CLIENT_FIRST_PAUSE_MS;
  return sleep(Math.round(retryDelay(attempt - 1) * scale), undefined);
}

/**
 * Runs `task`, safe to repeat (a listing, an idempotent record), until it succeeds, `canRetry`
 * refuses its error or `policy.maxAttempts` tries are made; the last error is thrown.
 */
export async function retried<T>(
  policy: WritePolicy,
  task: () => Promise<T>,
  canRetry: (error: unknown) => boolean,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await task();
    } catch (error) {
      if (attempt >= policy.maxAttempts || !canRetry(error)) throw error;
    }
    await pauseBeforeRetry(policy, attempt);
  }
}
