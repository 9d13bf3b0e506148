/**
 * The rules that make a stream a whole answer or an error, driven through the `fetch` option with
 * bodies written here (a ReadableStream per call, so the test decides every byte and counts what
 * the client read): n choices, [DONE] alone, errors inside a 200 stream, the size cap, the idle
 * clock per complete event, and the overall streamTimeout.
 */
import { describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import {
  StudioRateLimitError,
  StudioServerError,
  StudioStreamError,
  StudioTimeoutError,
} from "../../../src/errors";
import { useInstantRetries } from "./retry-clock";

const encoder = new TextEncoder();
const body = { model: "owner/model", messages: [{ role: "user" as const, content: "hi" }] };

function event(payload: unknown, name?: string): string {
  const data = typeof payload === "string" ? payload : JSON.stringify(payload);
  return `${name ? `event: ${name}\n` : ""}data: ${data}\n\n`;
}

const delta = (content: string, finish: string | null = null, index = 0) =>
  event({ id: "c", choices: [{ index, delta: { content }, finish_reason: finish }] });

const role = event({ id: "c", choices: [{ index: 0, delta: { role: "assistant", content: "" } }] });

/** A body of fixed pieces. */
function pieces(...parts: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
}

/**
 * A fetch answering call n (from 0) with `bodies[n]`, recording each call. Like a real fetch, an
 * abort of the request's signal errors the body being read.
 */
function scripted(...bodies: ((signal: AbortSignal) => ReadableStream<Uint8Array>)[]) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    const make = bodies[Math.min(calls.length - 1, bodies.length - 1)]!;
    const signal = init?.signal ?? new AbortController().signal;
    const source = make(signal).getReader();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        signal.addEventListener("abort", () => {
          controller.error(signal.reason);
          source.cancel(signal.reason).catch(() => {});
        });
      },
      async pull(controller) {
        const { done, value } = await source.read();
        if (signal.aborted) return;
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel(reason) {
        return source.cancel(reason);
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  return { fetch, calls };
}

function client(fetch: ReturnType<typeof scripted>["fetch"], options = {}): StudioClient {
  return new StudioClient({ apiKey: "k", proxyUrl: "http://proxy.test", fetch, ...options });
}

async function run(iterable: AsyncIterable<unknown>): Promise<{ seen: unknown[]; error?: Error }> {
  const seen: unknown[] = [];
  try {
    for await (const item of iterable) {
      seen.push(item);
      if (seen.length > 10_000) break;
    }
  } catch (error) {
    return { seen, error: error as Error };
  }
  return { seen };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a stream is a whole answer or an error", () => {
  it("[DONE] alone is a StudioStreamError from the client stream itself", async () => {
    const { fetch } = scripted(() => pieces("data: [DONE]\n\n"));
    const { seen, error } = await run(client(fetch).streamChatCompletion(body));
    expect(seen).toEqual([]);
    expect(error).toBeInstanceOf(StudioStreamError);
    expect(error!.message).toContain("before any choice arrived");
  });

  it("with n = 2, a stream that ends with one choice is a StudioStreamError", async () => {
    const { fetch } = scripted(() => pieces(delta("a", "stop", 0), "data: [DONE]\n\n"));
    const { error } = await run(client(fetch).streamChatCompletion({ ...body, n: 2 }));
    expect(error).toBeInstanceOf(StudioStreamError);
    expect(error!.message).toContain("asked for 2 choices");
    // Both choices: a whole answer.
    const both = scripted(() =>
      pieces(delta("a", "stop", 0), delta("b", "stop", 1), "data: [DONE]\n\n"),
    );
    const ok = await run(client(both.fetch).streamChatCompletion({ ...body, n: 2 }));
    expect(ok.error).toBeUndefined();
    expect(ok.seen).toHaveLength(2);
  });

  it("a choice seen but never finished is a whole answer when [DONE] ends the stream", async () => {
    const { fetch } = scripted(() => pieces(delta("4"), "data: [DONE]\n\n"));
    const { seen, error } = await run(client(fetch).streamChatCompletion(body));
    expect(error).toBeUndefined();
    expect(seen).toHaveLength(1);
  });

  it("text streams follow the same rules", async () => {
    const { fetch } = scripted(() => pieces("data: [DONE]\n\n"));
    const { error } = await run(
      client(fetch).streamTextCompletion({ model: "owner/model", prompt: "p" }),
    );
    expect(error).toBeInstanceOf(StudioStreamError);
  });
});

describe("an error inside a 200 stream", () => {
  // The retries' pauses pass on the retry clock, at once; each test checks how many there were.
  const clock = useInstantRetries();
  const rateLimited = event({ error: { code: 429, message: "slow down" } });

  it("before the first token: retried like the same HTTP status, nothing shown twice", async () => {
    const { fetch, calls } = scripted(
      () => pieces(role, rateLimited),
      () => pieces(role, delta("ok", "stop"), "data: [DONE]\n\n"),
    );
    const { seen, error } = await run(client(fetch, { maxRetries: 1 }).streamChatCompletion(body));
    expect(error).toBeUndefined();
    expect(calls).toHaveLength(2);
    // One role chunk (the failed attempt's was held back with it), then the token.
    expect(seen).toHaveLength(2);
    expect(clock.sleeps).toHaveLength(1);
  });

  it("an `event: error` with a status_code is retried the same way", async () => {
    const { fetch, calls } = scripted(
      () => pieces(event({ error: { message: "overloaded", status_code: 503 } }, "error")),
      () => pieces(delta("ok", "stop"), "data: [DONE]\n\n"),
    );
    const { error } = await run(client(fetch, { maxRetries: 1 }).streamChatCompletion(body));
    expect(error).toBeUndefined();
    expect(calls).toHaveLength(2);
    expect(clock.sleeps).toHaveLength(1);
  });

  it("retries exhausted: the typed error of that status, carrying it", async () => {
    const { fetch, calls } = scripted(() => pieces(rateLimited));
    const { error } = await run(client(fetch, { maxRetries: 1 }).streamChatCompletion(body));
    expect(error).toBeInstanceOf(StudioRateLimitError);
    expect((error as StudioRateLimitError).status).toBe(429);
    expect(error!.message).toContain("slow down");
    expect(error!.message).toContain("inside the stream");
    expect(calls).toHaveLength(2);
    expect(clock.sleeps).toHaveLength(1);
  });

  it("after the first token: raised, not retried, after the chunks that came", async () => {
    const { fetch, calls } = scripted(() =>
      pieces(delta("a"), event({ error: { code: "500", message: "boom" } })),
    );
    const { seen, error } = await run(client(fetch, { maxRetries: 2 }).streamChatCompletion(body));
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(StudioServerError);
    expect((error as StudioServerError).status).toBe(500);
    expect(calls).toHaveLength(1);
  });

  it("an error without a status is a StudioStreamError, not retried", async () => {
    const { fetch, calls } = scripted(() =>
      pieces(event({ error: { code: "tool_use_failed", message: "bad call" } }, "error")),
    );
    const { error } = await run(client(fetch, { maxRetries: 2 }).streamChatCompletion(body));
    expect(error).toBeInstanceOf(StudioStreamError);
    expect(error!.message).toContain("bad call");
    expect(calls).toHaveLength(1);
  });
});

describe("size: linear, and refused as soon as the cap is passed", () => {
  /** One endless `data:` line, produced lazily 64 KiB per pull; counts the bytes handed out. */
  function endlessLine() {
    const piece = encoder.encode("x".repeat(64 * 1024));
    const counter = { bytes: 0, cancelled: false };
    const stream = () =>
      new ReadableStream<Uint8Array>(
        {
          start(controller) {
            controller.enqueue(
              encoder.encode('data: {"id":"c","choices":[{"index":0,"delta":{"content":"'),
            );
          },
          pull(controller) {
            counter.bytes += piece.byteLength;
            // Bounded: 50 MB at most, whatever the client does.
            if (counter.bytes > 50_000_000) controller.close();
            else controller.enqueue(piece);
          },
          cancel() {
            counter.cancelled = true;
          },
        },
        { highWaterMark: 0 },
      );
    return { stream, counter };
  }

  it("a 50 MB line is refused once maxResponseBytes is passed, having read about that much", async () => {
    const { stream, counter } = endlessLine();
    const { fetch } = scripted(stream);
    const cap = 1024 * 1024;
    const { error } = await run(
      client(fetch, { maxResponseBytes: cap }).streamChatCompletion(body),
    );
    expect(error).toBeInstanceOf(StudioStreamError);
    expect(error!.message).toContain("maxResponseBytes");
    expect(counter.bytes).toBeGreaterThan(cap - 64 * 1024);
    // At most one read past the cap (plus the one a stream may pull ahead), never the 50 MB.
    expect(counter.bytes).toBeLessThanOrEqual(cap + 2 * 64 * 1024);
    expect(counter.cancelled).toBe(true);
  });

  it("one 16 MiB event, in 64 KiB reads, is parsed whole", async () => {
    const text = "y".repeat(16 * 1024 * 1024);
    const payload = event({
      id: "c",
      choices: [{ index: 0, delta: { content: text }, finish_reason: "stop" }],
    });
    const bytes = encoder.encode(`${payload}data: [DONE]\n\n`);
    const { fetch } = scripted(
      () =>
        new ReadableStream({
          start(controller) {
            for (let at = 0; at < bytes.length; at += 64 * 1024) {
              controller.enqueue(bytes.subarray(at, at + 64 * 1024));
            }
            controller.close();
          },
        }),
    );
    const { seen, error } = await run(client(fetch).streamChatCompletion(body));
    expect(error).toBeUndefined();
    const chunk = seen[0] as { choices: { delta: { content: string } }[] };
    expect(chunk.choices[0]!.delta.content).toHaveLength(text.length);
  });
});

describe("time", () => {
  /** A body that sends `piece` every `ms` until cancelled (bounded to 500 pieces). */
  function trickle(first: string, piece: string, ms: number) {
    const state = { sent: 0, cancelled: false };
    const stream = () =>
      new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode(first));
          while (!state.cancelled && state.sent < 500) {
            await sleep(ms);
            if (state.cancelled) break;
            controller.enqueue(encoder.encode(piece));
            state.sent++;
          }
        },
        cancel() {
          state.cancelled = true;
        },
      });
    return { stream, state };
  }

  it.each([
    ["one byte of a never-ending event", 'data: {"id":', "x"],
    ["blank lines", "", "\n"],
    ["comments", "", ": keep-alive\n"],
  ])(
    "%s do not reset the idle clock: idle timeout after the last complete event",
    async (_name, start, piece) => {
      const { stream, state } = trickle(`${delta("a")}${start}`, piece, 20);
      const { fetch } = scripted(stream);
      const { seen, error } = await run(
        client(fetch, { streamIdleTimeout: 200, maxRetries: 0 }).streamChatCompletion(body),
      );
      expect(seen).toHaveLength(1);
      expect(error).toBeInstanceOf(StudioTimeoutError);
      expect(error!.message).toContain("streamIdleTimeout");
      expect(state.sent).toBeGreaterThan(2);
      expect(state.cancelled).toBe(true);
    },
  );

  it("complete events that keep coming reset it; streamTimeout caps the whole stream", async () => {
    const { stream, state } = trickle(delta("a"), delta("b"), 20);
    const { fetch } = scripted(stream);
    const { seen, error } = await run(
      client(fetch, {
        streamIdleTimeout: 200,
        streamTimeout: 400,
        maxRetries: 2,
      }).streamChatCompletion(body),
    );
    // Many events arrived 20 ms apart, far past the idle bound, until the overall cap.
    expect(seen.length).toBeGreaterThan(200 / 20);
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect(error!.message).toContain("streamTimeout");
    expect((error as StudioTimeoutError).timeoutMs).toBe(400);
    expect(state.cancelled).toBe(true);
  });
});

describe("the fetch option", () => {
  it("is what sends: the URL, method, headers, body, no redirects followed, a signal", async () => {
    const { fetch, calls } = scripted(() => pieces(delta("a", "stop"), "data: [DONE]\n\n"));
    await run(client(fetch, { defaultHeaders: { "x-team": "t" } }).streamChatCompletion(body));
    expect(calls).toHaveLength(1);
    const { url, init } = calls[0]!;
    expect(url).toBe("http://proxy.test/chat/completions");
    expect(init.method).toBe("POST");
    expect(init.redirect).toBe("manual");
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect((init.headers as Record<string, string>)["x-team"]).toBe("t");
    expect(JSON.parse(init.body as string)).toMatchObject({ stream: true });
    // The client adds no stream_options of its own (the model class decides).
    expect(JSON.parse(init.body as string).stream_options).toBeUndefined();
  });
});
