/**
 * A web `ReadableStream` as the sink of a streamed answer, for the in-process fetch. The stream is
 * pulled: text waits in a queue until the reader asks, so a reader that stops reading holds the
 * writer back (backpressure) as a socket would, and a cut delivers the queued events before the
 * error, as the bytes already sent reach a client before the connection drops.
 */
import type { SseSink } from "./sse";

/** Queued bytes past which the writer waits for the reader. */
const HIGH_WATER_CHARS = 256 * 1024;

export interface StreamSink extends SseSink {
  readonly body: ReadableStream<Uint8Array>;
  /** Ends the body with this error now (the request was aborted). */
  abort(reason: unknown): void;
}

/** `cutError`: what a read meets where the connection dropped (undici's words for it). */
export function streamSseSink(cutError: () => unknown): StreamSink {
  const encoder = new TextEncoder();
  const queue: string[] = [];
  let queued = 0;
  let ended = false;
  let failure: { reason: unknown } | undefined;
  let closed = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let wakeReader: (() => void) | undefined;
  let wakeWriter: (() => void) | undefined;
  const wake = (which: "reader" | "writer") => {
    const resolve = which === "reader" ? wakeReader : wakeWriter;
    if (which === "reader") wakeReader = undefined;
    else wakeWriter = undefined;
    resolve?.();
  };
  const push = (text: string) => {
    if (closed) return;
    queue.push(text);
    queued += text.length;
    wake("reader");
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      async pull(c) {
        while (queue.length === 0 && !ended && failure === undefined) {
          await new Promise<void>((resolve) => {
            wakeReader = resolve;
          });
        }
        const text = queue.shift();
        if (text !== undefined) {
          queued -= text.length;
          if (queued < HIGH_WATER_CHARS) wake("writer");
          c.enqueue(encoder.encode(text));
        } else if (failure !== undefined) {
          c.error(failure.reason);
        } else {
          c.close();
        }
      },
      cancel() {
        // The reader went away: the writer stops at its next event, as on a closed socket.
        closed = true;
        queue.length = 0;
        wake("writer");
      },
    },
    { highWaterMark: 0 },
  );

  return {
    body,
    get closed() {
      return closed;
    },
    write(text) {
      push(text);
      if (queued < HIGH_WATER_CHARS || closed) return undefined;
      return new Promise<void>((resolve) => {
        wakeWriter = resolve;
      });
    },
    cut(text) {
      push(text);
      closed = true;
      failure = { reason: cutError() };
      wake("reader");
    },
    end(text) {
      push(text);
      closed = true;
      ended = true;
      wake("reader");
    },
    abort(reason) {
      if (ended && queue.length === 0) return;
      closed = true;
      queue.length = 0;
      failure = { reason };
      controller?.error(reason);
      wake("reader");
      wake("writer");
    },
  };
}
