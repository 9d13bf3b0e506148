/**
 * The request log keeps the latest requests only (issues 19 and 23): an emulator serving a whole
 * suite or a load test must not hold every request it ever received.
 */
import { afterEach, describe, expect, it } from "vitest";
import { PATHS } from "../../../src/api-types";
import { type EmulatorHandle, type EmulatorOptions, startEmulator } from "../../../src/emulator";
import { studio } from "./http";

const running: EmulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.close()));
});

async function start(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const handle = await startEmulator({ port: 0, ...options });
  running.push(handle);
  return handle;
}

/** `count` list calls, numbered in their query so the log's window can be read back. */
async function send(handle: EmulatorHandle, count: number): Promise<void> {
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, (_, j) =>
        studio(handle, "GET", `${PATHS.threads}?limit=1&after=thread_${i + j}`).then((r) =>
          expect(r.status).toBe(400),
        ),
      ),
    );
  }
}

const numbers = (handle: EmulatorHandle) =>
  handle.requests.map((r) => Number(r.query.after?.slice("thread_".length)));

describe("request log", () => {
  it("keeps the last 1,000 requests by default, oldest first", async () => {
    const handle = await start();
    await send(handle, 1_020);
    expect(handle.requests).toHaveLength(1_000);
    expect(new Set(numbers(handle)).size).toBe(1_000);
    expect(Math.min(...numbers(handle))).toBeGreaterThanOrEqual(20);
    expect(numbers(handle)[0]).toBeLessThan(70);
    expect(numbers(handle).at(-1)).toBeGreaterThanOrEqual(1_000);
  });

  it("keeps as many as recordRequests says, none with false, every one with Infinity", async () => {
    const three = await start({ recordRequests: 3 });
    const none = await start({ recordRequests: false });
    const every = await start({ recordRequests: Number.POSITIVE_INFINITY });
    await Promise.all([send(three, 10), send(none, 10), send(every, 1_100)]);
    expect(three.requests).toHaveLength(3);
    expect(none.requests).toHaveLength(0);
    expect(every.requests).toHaveLength(1_100);
  });

  it("refuses a recordRequests that is not a count", async () => {
    for (const bad of [-1, 1.5, Number.NaN]) {
      await expect(startEmulator({ port: 0, recordRequests: bad })).rejects.toThrow(
        /recordRequests must be true, false, a whole number >= 0 or Infinity/,
      );
    }
  });
});
