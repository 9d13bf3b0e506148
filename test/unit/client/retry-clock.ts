/**
 * Retries without real waiting: the client's retry clock (src/client/clock.ts) replaced by one
 * that records each pause and lets virtual time pass at once, so a test of backoff asserts the
 * pause the client chose instead of sleeping through it.
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import { type RetryClock, useRetryClock } from "../../../src/client/clock";
import { abortReason } from "../../../src/client/retry";

export class InstantClock implements RetryClock {
  /** Every pause the client asked for, in ms, in order. */
  readonly sleeps: number[] = [];
  /** Called as a pause starts, before it ends: a test may act "during the backoff". */
  onSleep: ((ms: number) => void | Promise<void>) | undefined;
  #elapsed = 0;

  now(): number {
    return Date.now() + this.#elapsed;
  }

  async sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) throw abortReason(signal);
    this.sleeps.push(ms);
    this.#elapsed += Math.max(0, ms);
    await this.onSleep?.(ms);
    if (signal?.aborted) throw abortReason(signal);
  }

  /** Forgets the pauses seen so far. */
  reset(): void {
    this.sleeps.length = 0;
    this.onSleep = undefined;
  }
}

/**
 * Installs an `InstantClock` for the tests of the calling file (or `describe` block); the pauses
 * are forgotten after each test.
 */
export function useInstantRetries(): InstantClock {
  const clock = new InstantClock();
  let restore: (() => void) | undefined;
  beforeAll(() => {
    restore = useRetryClock(clock);
  });
  afterEach(() => clock.reset());
  afterAll(() => restore?.());
  return clock;
}
