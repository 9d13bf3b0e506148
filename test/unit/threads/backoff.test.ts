import { afterEach, describe, expect, it, vi } from "vitest";
import { pauseBeforeRetry, retried } from "../../../src/threads/backoff";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Milliseconds `pauseBeforeRetry` waits, read off fake timers (no jitter: random() is 0). */
async function pauseLength(confirmDelayMs: number, attempt: number): Promise<number> {
  vi.useFakeTimers();
  vi.spyOn(Math, "random").mockReturnValue(0);
  let done = false;
  void pauseBeforeRetry({ maxAttempts: 3, confirmDelayMs }, attempt).then(() => {
    done = true;
  });
  let waited = 0;
  await vi.advanceTimersByTimeAsync(0);
  while (!done) {
    await vi.advanceTimersByTimeAsync(1);
    waited += 1;
  }
  vi.useRealTimers();
  return waited;
}

describe("pauseBeforeRetry", () => {
  it("is the client's backoff started at confirmDelayMs: doubling, capped at 16 times it", async () => {
    expect(await pauseLength(40, 1)).toBe(40);
    expect(await pauseLength(40, 2)).toBe(80);
    expect(await pauseLength(40, 3)).toBe(160);
    expect(await pauseLength(40, 9)).toBe(640);
  });

  it("takes up to a quarter off with jitter, and does not wait at all for 0", async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, "random").mockReturnValue(0.999);
    let done = false;
    void pauseBeforeRetry({ maxAttempts: 3, confirmDelayMs: 100 }, 1).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(74);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(2);
    expect(done).toBe(true);
    vi.useRealTimers();
    expect(await pauseLength(0, 5)).toBe(0);
  });
});

describe("retried", () => {
  const policy = { maxAttempts: 3, confirmDelayMs: 0 };

  it("tries again while the error may be retried, up to maxAttempts, and throws the last", async () => {
    let calls = 0;
    const error = await retried(
      policy,
      async () => {
        calls += 1;
        throw new Error(`try ${calls}`);
      },
      () => true,
    ).catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect((error as Error).message).toBe("try 3");
  });

  it("returns the first success, and throws at once an error it may not retry", async () => {
    let calls = 0;
    const flaky = async () => {
      calls += 1;
      if (calls === 1) throw new Error("transient");
      return "ok";
    };
    await expect(retried(policy, flaky, () => true)).resolves.toBe("ok");
    expect(calls).toBe(2);

    calls = 0;
    await expect(
      retried(policy, flaky, (e) => (e as Error).message !== "transient"),
    ).rejects.toThrow("transient");
    expect(calls).toBe(1);
  });
});
