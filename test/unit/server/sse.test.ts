/**
 * `sseResponse`'s heartbeats on a timer the test ticks: one after an interval with nothing
 * written, none after an interval with a frame, none once the stream ended or was cancelled.
 */
import { describe, expect, it } from "vitest";
import { HEARTBEAT, type HeartbeatTimer, sseResponse } from "../../../src/server/sse";
import { deferred } from "../../helpers/gate";

function manualTimer() {
  const ticks: (() => void)[] = [];
  let stopped = 0;
  const timer: HeartbeatTimer = {
    every(_ms, tick) {
      ticks.push(tick);
      return () => {
        stopped++;
      };
    },
  };
  return {
    timer,
    tick: () => {
      for (const tick of ticks) tick();
    },
    get stopped() {
      return stopped;
    },
    get started() {
      return ticks.length;
    },
  };
}

/** Frames the test hands out one by one. */
function frames() {
  let next = deferred<IteratorResult<string>>();
  const iterator: AsyncIterator<string> = {
    next: () => next.promise,
    return: async () => ({ done: true, value: undefined }),
  };
  return {
    iterator,
    send(value: string) {
      const current = next;
      next = deferred();
      current.resolve({ done: false, value });
    },
    end() {
      next.resolve({ done: true, value: undefined });
    },
  };
}

const decoder = new TextDecoder();

describe("sseResponse heartbeats", () => {
  it("writes a heartbeat for an interval with nothing written, none after a frame", async () => {
    const clock = manualTimer();
    const source = frames();
    const response = sseResponse(source.iterator, { heartbeatMs: 10, timer: clock.timer });
    const reader = response.body!.getReader();
    clock.tick();
    expect(decoder.decode((await reader.read()).value)).toBe(HEARTBEAT);
    source.send("event: values\ndata: 1\n\n");
    expect(decoder.decode((await reader.read()).value)).toBe("event: values\ndata: 1\n\n");
    // The interval had a frame: no heartbeat; the next one is silent again: a heartbeat.
    clock.tick();
    clock.tick();
    expect(decoder.decode((await reader.read()).value)).toBe(HEARTBEAT);
    source.end();
    expect((await reader.read()).done).toBe(true);
    expect(clock.stopped).toBe(1);
    expect(response.headers.get("Content-Type")).toBe("text/event-stream");
  });

  it("starts no timer for an interval of 0, and stops it when the reader leaves", async () => {
    const none = manualTimer();
    sseResponse(frames().iterator, { heartbeatMs: 0, timer: none.timer });
    expect(none.started).toBe(0);

    const clock = manualTimer();
    let left = 0;
    const response = sseResponse(frames().iterator, {
      heartbeatMs: 10,
      timer: clock.timer,
      onCancel: () => {
        left++;
      },
    });
    await response.body!.cancel();
    expect(clock.stopped).toBe(1);
    expect(left).toBe(1);
  });
});
