/**
 * Server-sent events writer for streamed completions. Events are batched into large writes (one
 * write per ~64 KB instead of one per token), which is what makes a 10,000-chunk stream cheap;
 * backpressure is honoured, and a stream-cut fault ends the connection after a few events. Where
 * the bytes go is a sink: a Node response (`nodeSseSink`) or a web stream (`sse-stream.ts`).
 */
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { SseOut } from "./router";

const FLUSH_BYTES = 64 * 1024;

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
} as const;

export interface SseOptions {
  /** Destroy the connection after this many events (a stream-cut fault). */
  cutAfter?: number | undefined;
  /** Flush and pause after every event. */
  chunkDelayMs?: number | undefined;
}

/** Where a stream's bytes go. */
export interface SseSink {
  /** True once the client went away. */
  readonly closed: boolean;
  /** Writes the text; a promise when the writer must wait for the client to read. */
  write(text: string): Promise<void> | undefined;
  /** Writes the text, then drops the connection mid-body (the events reach the client first). */
  cut(text: string): void;
  /** Writes the text and ends the body. */
  end(text: string): void;
}

export function createSseOut(sink: SseSink, options: SseOptions = {}): SseOut {
  const { cutAfter, chunkDelayMs = 0 } = options;
  let buffer = "";
  let count = 0;
  let closed = false;

  const flush = (): Promise<void> | undefined => {
    if (buffer === "") return undefined;
    const text = buffer;
    buffer = "";
    return sink.write(text);
  };

  return {
    get closed() {
      return closed || sink.closed;
    },
    send(json) {
      if (this.closed) return undefined;
      buffer += `data: ${json}\n\n`;
      count += 1;
      if (cutAfter !== undefined && count >= cutAfter) {
        closed = true;
        sink.cut(buffer);
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
      if (this.closed) return;
      closed = true;
      sink.end(`${buffer}data: [DONE]\n\n`);
      buffer = "";
    },
  };
}

/** A Node response as a sink; writes the 200 and the event-stream headers at once. */
export function nodeSseSink(res: ServerResponse): SseSink {
  let closed = false;
  res.once("close", () => {
    closed = true;
  });
  res.writeHead(200, SSE_HEADERS);
  return {
    get closed() {
      return closed;
    },
    write(text) {
      return res.write(text) ? undefined : drained(res);
    },
    cut(text) {
      res.write(text, () => res.socket?.destroy());
    },
    end(text) {
      res.end(text);
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
