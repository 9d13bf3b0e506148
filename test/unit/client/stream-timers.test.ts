/**
 * A stream's timers (`timeout`, `streamIdleTimeout`, `streamTimeout`) end with the request, however
 * it ends: aborted while the consumer holds a chunk and never comes back (what LangChain does when
 * its signal aborts), aborted while waiting, broken, finished, or left with `break` (issue #20:
 * one live 10-minute timer per aborted stream kept the process up). And after an abort no chunk is
 * handed out, not even one already received.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatCompletionChunk } from "../../../src/api-types";
import { StudioClient } from "../../../src/client";

const encoder = new TextEncoder();

function event(content: string, finish: string | null = null): string {
  const chunk = {
    id: "c",
    object: "chat.completion.chunk",
    created: 1,
    model: "owner/model",
    choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** A fetch whose one response streams what the test pushes, and fails as fetch does on abort. */
function streamingServer() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let signal: AbortSignal | undefined;
  let cancelled = false;
  const fetch = async (_input: string | URL | Request, init?: RequestInit) => {
    signal = init?.signal ?? undefined;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
      cancel() {
        cancelled = true;
      },
    });
    signal?.addEventListener("abort", () => controller.error(signal?.reason));
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  return {
    fetch,
    push: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
    cut: () => controller.error(new TypeError("terminated")),
    /** The request was stopped: aborted, or its body cancelled (the connection freed). */
    released: () => signal?.aborted === true || cancelled,
  };
}

const body = { model: "owner/model", messages: [{ role: "user" as const, content: "hi" }] };

function streamOn(server: ReturnType<typeof streamingServer>, signal?: AbortSignal) {
  const client = new StudioClient({
    apiKey: "sk-timers-test",
    proxyUrl: "http://proxy.test",
    fetch: server.fetch,
    maxRetries: 0,
  });
  return client.streamChatCompletion(body, signal ? { signal } : undefined)[Symbol.asyncIterator]();
}

/** Lets the client's promise chains run (fake timers leave microtasks and I/O alone). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => queueMicrotask(resolve));
}

function content(chunk: ChatCompletionChunk | undefined): unknown {
  return chunk?.choices[0]?.delta.content;
}

/** Asks for the first chunk, sends `text` once the request is under way, and returns the chunk. */
async function firstChunk(
  server: ReturnType<typeof streamingServer>,
  stream: AsyncIterator<ChatCompletionChunk>,
  text: string,
): Promise<ChatCompletionChunk | undefined> {
  const first = stream.next();
  await settle();
  server.push(text);
  return (await first).value;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("stream timers end with the request", () => {
  it("aborted while the consumer holds a chunk and never asks for another", async () => {
    const leftBehind: ReturnType<typeof streamingServer>[] = [];
    for (let i = 0; i < 20; i++) {
      const server = streamingServer();
      const controller = new AbortController();
      const stream = streamOn(server, controller.signal);
      expect(content(await firstChunk(server, stream, event("a")))).toBe("a");
      expect(vi.getTimerCount()).toBeGreaterThan(0);
      controller.abort();
      // The consumer drops the stream here: no next(), no return().
      leftBehind.push(server);
    }
    expect(vi.getTimerCount()).toBe(0);
    expect(leftBehind.every((server) => server.released())).toBe(true);
  });

  it("aborted while waiting for the next event", async () => {
    const server = streamingServer();
    const controller = new AbortController();
    const stream = streamOn(server, controller.signal);
    await firstChunk(server, stream, event("a"));
    const second = stream.next();
    await settle();
    controller.abort();
    await expect(second).rejects.toMatchObject({ name: "AbortError" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("broken by the server mid-stream", async () => {
    const server = streamingServer();
    const stream = streamOn(server);
    await firstChunk(server, stream, event("a"));
    const second = stream.next();
    await settle();
    server.cut();
    await expect(second).rejects.toThrow(/mid-stream/);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("finished", async () => {
    const server = streamingServer();
    const stream = streamOn(server);
    const first = stream.next();
    await settle();
    server.push(event("a") + event("b", "stop"));
    server.push("data: [DONE]\n\n");
    server.end();
    const seen = [content((await first).value)];
    for (let next = await stream.next(); !next.done; next = await stream.next()) {
      seen.push(content(next.value));
    }
    expect(seen).toEqual(["a", "b"]);
    await settle();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("left early with break (return)", async () => {
    const server = streamingServer();
    const stream = streamOn(server);
    await firstChunk(server, stream, event("a"));
    await stream.return?.();
    expect(vi.getTimerCount()).toBe(0);
    expect(server.released()).toBe(true);
  });
});

describe("after an abort", () => {
  it("no chunk is handed out, not even those already received", async () => {
    const server = streamingServer();
    const controller = new AbortController();
    const stream = streamOn(server, controller.signal);
    // Three events in one read: the last two are decoded before the consumer aborts.
    expect(content(await firstChunk(server, stream, event("a") + event("b") + event("c")))).toBe(
      "a",
    );
    controller.abort();
    await expect(stream.next()).rejects.toMatchObject({ name: "AbortError" });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(vi.getTimerCount()).toBe(0);
  });
});
