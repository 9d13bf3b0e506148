/**
 * Server-sent events writer for streamed completions. Events are batched into large writes (one
 * syscall per ~64 KB instead of one per token), which is what makes a 10,000-chunk stream cheap;
 * backpressure is honoured, and a stream-cut fault ends the connection after a few events.
 */
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { SseOut } from "./router";

const FLUSH_BYTES = 64 * 1024;

export interface SseOptions {
  /** Destroy the socket after this many events (a stream-cut fault). */
  cutAfter?: number | undefined;
  /** Flush and pause after every event. */
  chunkDelayMs?: number | undefined;
}

export function createSseOut(res: ServerResponse, options: SseOptions = {}): SseOut {
  const { cutAfter, chunkDelayMs = 0 } = options;
  let buffer = "";
  let count = 0;
  let closed = false;
  res.once("close", () => {
    closed = true;
  });
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
  });

  const flush = (): Promise<void> | undefined => {
    if (buffer === "") return undefined;
    const ok = res.write(buffer);
    buffer = "";
    return ok ? undefined : drained(res);
  };

  return {
    get closed() {
      return closed;
    },
    send(json) {
      if (closed) return undefined;
      buffer += `data: ${json}\n\n`;
      count += 1;
      if (cutAfter !== undefined && count >= cutAfter) {
        closed = true;
        // The events already produced reach the client; then the connection drops mid-body.
        res.write(buffer, () => res.socket?.destroy());
        buffer = "";
        return undefined;
      }
      if (chunkDelayMs > 0) {
        const waiting = flush();
        return (waiting ?? Promise.resolve()).then(() => sleep(chunkDelayMs));
      }
      return buffer.length >= FLUSH_BYTES ? flush() : undefined;
    },
    async done() {
      if (closed) return;
      closed = true;
      res.end(`${buffer}data: [DONE]\n\n`);
      buffer = "";
    },
  };
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const finish = () => {
      res.off("drain", finish);
      res.off("close", finish);
      resolve();
    };
    res.on("drain", finish);
    res.on("close", finish);
  });
}
