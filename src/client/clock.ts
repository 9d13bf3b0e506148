/**
 * The clock the client's retries wait on: the pause before each retry and the stream's overall
 * deadline. A seam, so that tests of retries and backoff run at once instead of waiting real
 * seconds (test/unit/client/retry-clock.ts); the timers of one attempt (`timeout`, the idle clock)
 * stay on real time, since what they measure is a real server's silence.
 */
import { sleep } from "./retry";

export interface RetryClock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
  /** Resolves after `ms`, or rejects with `abortReason(signal)` as soon as the signal aborts. */
  sleep(ms: number, signal: AbortSignal | undefined): Promise<void>;
}

export const systemClock: RetryClock = { now: Date.now, sleep };

let current: RetryClock = systemClock;

/** The clock in use (the system's unless a test replaced it). */
export function retryClock(): RetryClock {
  return current;
}

/**
 * Internal, for tests: makes `clock` the one every client's retries use, in this module graph;
 * returns the function that puts the previous one back.
 */
export function useRetryClock(clock: RetryClock): () => void {
  const previous = current;
  current = clock;
  return () => {
    current = previous;
  };
}
