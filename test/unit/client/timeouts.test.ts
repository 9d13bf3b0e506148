import { PassThrough } from "node:stream";
import nock from "nock";
import { describe, expect, it } from "vitest";
import { StudioTimeoutError } from "../../../src/errors";
import { CHAT, failure, intercept, makeClient, PROXY, STUDIO, THREAD, useNock } from "./helpers";
import { useInstantRetries } from "./retry-clock";

useNock();

const body = { model: "owner/model", messages: [{ role: "user" as const, content: "hi" }] };

/** A response body that sends `first`, then nothing until the test ends it. */
function stalledBody(first: string): PassThrough {
  const stream = new PassThrough();
  stream.write(first);
  return stream;
}

describe("timeouts", () => {
  // The pause between a timed-out attempt and its retry passes on the retry clock, at once.
  // (The abort tests below keep real time: the real pause must end as the signal aborts.)
  const clock = useInstantRetries();
  it("a call slower than `timeout` fails with StudioTimeoutError", async () => {
    nock(PROXY).post("/chat/completions").delay(2000).reply(200, CHAT);
    const started = Date.now();
    const error = await failure(makeClient({ timeout: 50, maxRetries: 0 }).chatCompletion(body));
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect((error as StudioTimeoutError).timeoutMs).toBe(50);
    expect(error.message).toContain("POST /chat/completions timed out");
    // Bounded, not a speed claim: it must not have waited for the 2 s answer.
    expect(Date.now() - started).toBeLessThan(1900);
  });

  it("the per-call timeout overrides the client's", async () => {
    nock(STUDIO).get("/v1/threads/t").delay(2000).reply(200, THREAD);
    const error = await failure(
      makeClient({ timeout: 60_000, maxRetries: 0 }).getThread("t", { timeout: 30 }),
    );
    expect((error as StudioTimeoutError).timeoutMs).toBe(30);
  });

  it("a read that timed out is retried; a create is not", async () => {
    nock(STUDIO).get("/v1/threads/t").delay(2000).reply(200, THREAD);
    intercept(STUDIO, "GET", "/v1/threads/t", () => [200, THREAD]);
    const client = makeClient({ timeout: 50, maxRetries: 1 });
    expect((await client.getThread("t")).id).toBe("thread_1");
    expect(clock.sleeps).toHaveLength(1);

    nock(STUDIO).post("/v1/threads").delay(2000).reply(200, THREAD);
    expect(await failure(client.createThread({}))).toBeInstanceOf(StudioTimeoutError);
    // Only the delayed interceptor existed; a retry would have failed with "no match" instead.
  });

  it("a stream whose server goes quiet fails with an idle timeout after the chunks it sent", async () => {
    const chunk = { id: "c", choices: [{ index: 0, delta: { content: "a" } }] };
    const stream = stalledBody(`data: ${JSON.stringify(chunk)}\n\n`);
    nock(PROXY)
      .post("/chat/completions")
      .reply(200, () => stream);
    const client = makeClient({ streamIdleTimeout: 80, maxRetries: 0 });
    const seen: unknown[] = [];
    let error: unknown;
    try {
      for await (const c of client.streamChatCompletion(body)) seen.push(c);
    } catch (e) {
      error = e;
    }
    stream.end();
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect((error as Error).message).toContain("no stream event within 80 ms");
  });

  it("time the consumer spends between chunks does not count as idle", async () => {
    const parts = [
      'data: {"id":"c","choices":[{"index":0,"delta":{"content":"a"}}]}\n\n',
      'data: {"id":"c","choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}\n\n',
      "data: [DONE]\n\n",
    ];
    nock(PROXY).post("/chat/completions").reply(200, parts.join(""));
    const client = makeClient({ streamIdleTimeout: 40 });
    const seen: unknown[] = [];
    for await (const c of client.streamChatCompletion(body)) {
      seen.push(c);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toHaveLength(2);
  });
});

describe("abort", () => {
  it("an already-aborted signal rejects at once and sends nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(makeClient().chatCompletion(body, { signal: controller.signal }));
    expect(error.name).toBe("AbortError");
    expect(nock.isDone()).toBe(true);
  });

  it("aborting during a call rejects with an AbortError", async () => {
    nock(PROXY).post("/chat/completions").delay(2000).reply(200, CHAT);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const error = await failure(makeClient().chatCompletion(body, { signal: controller.signal }));
    expect(error.name).toBe("AbortError");
  });

  it("the signal's own reason is what the call throws", async () => {
    nock(STUDIO).get("/v1/threads/t").delay(2000).reply(200, THREAD);
    const controller = new AbortController();
    const reason = new Error("user left");
    setTimeout(() => controller.abort(reason), 20);
    const error = await failure(makeClient().getThread("t", { signal: controller.signal }));
    expect(error).toBe(reason);
  });

  it("a non-error reason becomes an AbortError carrying it", async () => {
    nock(STUDIO).get("/v1/threads/t").delay(2000).reply(200, THREAD);
    const controller = new AbortController();
    setTimeout(() => controller.abort("stop"), 20);
    const error = await failure(makeClient().getThread("t", { signal: controller.signal }));
    expect(error.name).toBe("AbortError");
    expect(error.cause).toBe("stop");
  });

  it("aborting during the backoff between retries stops at once", async () => {
    intercept(STUDIO, "GET", "/v1/threads/t", () => [503, {}, { "retry-after": "30" }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const error = await failure(makeClient().getThread("t", { signal: controller.signal }));
    expect(error.name).toBe("AbortError");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("aborting a stream mid-way throws the AbortError to the reader", async () => {
    const chunk = { id: "c", choices: [{ index: 0, delta: { content: "a" } }] };
    const stream = stalledBody(`data: ${JSON.stringify(chunk)}\n\n`);
    nock(PROXY)
      .post("/chat/completions")
      .reply(200, () => stream);
    const controller = new AbortController();
    const seen: unknown[] = [];
    let error: unknown;
    try {
      for await (const c of makeClient().streamChatCompletion(body, {
        signal: controller.signal,
      })) {
        seen.push(c);
        controller.abort();
      }
    } catch (e) {
      error = e;
    }
    stream.end();
    expect(seen).toHaveLength(1);
    expect((error as Error).name).toBe("AbortError");
  });

  it("an aborted stream never starts", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(
      makeClient().streamTextCompletion(
        { model: "o/m", prompt: "p" },
        { signal: controller.signal },
      ),
    );
    expect(error.name).toBe("AbortError");
  });
});
