import nock from "nock";
import { describe, expect, it } from "vitest";
import { parseRetryAfter, retryDelay, shouldRetry } from "../../../src/client";
import {
  StudioAPIError,
  StudioBadRequestError,
  StudioConnectionError,
  StudioRateLimitError,
  StudioServerError,
  StudioStreamError,
  StudioTimeoutError,
  StudioValidationError,
} from "../../../src/errors";
import {
  ASSISTANT,
  CHAT,
  failure,
  intercept,
  MESSAGE,
  makeClient,
  PROXY,
  STUDIO,
  sse,
  THREAD,
  useNock,
} from "./helpers";
import { useInstantRetries } from "./retry-clock";

function apiError(status: number): StudioAPIError {
  return StudioAPIError.fromResponse({ status, method: "GET", path: "/x", serverMessage: "m" });
}

describe("shouldRetry (pure)", () => {
  it.each([408, 409, 429, 500, 502, 503, 504])("retries a read after %i", (status) => {
    expect(shouldRetry(apiError(status), "read")).toBe(true);
  });

  it.each([400, 401, 403, 404, 413, 422, 501, 302])("never retries %i", (status) => {
    expect(shouldRetry(apiError(status), "read")).toBe(false);
    expect(shouldRetry(apiError(status), "create")).toBe(false);
  });

  it("retries a create only after 429 or a failure before anything was sent", () => {
    expect(shouldRetry(apiError(429), "create")).toBe(true);
    for (const status of [408, 409, 500, 502, 503, 504]) {
      expect(shouldRetry(apiError(status), "create")).toBe(false);
    }
    const refused = new StudioConnectionError("POST", "/v1/threads", "refused", false);
    const reset = new StudioConnectionError("POST", "/v1/threads", "reset", true);
    expect(shouldRetry(refused, "create")).toBe(true);
    expect(shouldRetry(reset, "create")).toBe(false);
    expect(shouldRetry(reset, "read")).toBe(true);
  });

  it("timeouts are retried for reads only; other errors never", () => {
    const timeout = new StudioTimeoutError("GET", "/x", 10);
    expect(shouldRetry(timeout, "read")).toBe(true);
    expect(shouldRetry(timeout, "create")).toBe(false);
    expect(shouldRetry(new StudioValidationError("f", "bad"), "read")).toBe(false);
    expect(shouldRetry(new StudioStreamError("/x", "cut"), "read")).toBe(false);
    expect(shouldRetry(new Error("boom"), "read")).toBe(false);
  });
});

describe("shouldRetry on Connect-format errors ({code, message})", () => {
  function connect(status: number, code: string): StudioAPIError {
    return StudioAPIError.fromResponse({
      status,
      method: "POST",
      path: "/x",
      serverMessage: "m",
      code,
    });
  }

  it("retries a 409 only when its code is aborted", () => {
    expect(shouldRetry(connect(409, "aborted"), "read")).toBe(true);
    expect(shouldRetry(connect(409, "already_exists"), "read")).toBe(false);
    expect(shouldRetry(connect(409, "failed_precondition"), "read")).toBe(false);
    // Without a code, the spec's list holds: 409 is retryable.
    expect(shouldRetry(apiError(409), "read")).toBe(true);
    // A create is still retried only when it certainly did not happen.
    expect(shouldRetry(connect(409, "aborted"), "create")).toBe(false);
  });

  it("never retries unimplemented, whatever status carries it", () => {
    for (const status of [501, 404, 500, 503, 429]) {
      expect(shouldRetry(connect(status, "unimplemented"), "read")).toBe(false);
      expect(shouldRetry(connect(status, "unimplemented"), "create")).toBe(false);
    }
    expect(shouldRetry(connect(503, "unavailable"), "read")).toBe(true);
  });
});

describe("retryDelay / parseRetryAfter (pure)", () => {
  it("doubles from 0.5 s to a cap of 8 s", () => {
    const none = () => 0;
    expect([0, 1, 2, 3, 4, 5, 10].map((a) => retryDelay(a, undefined, none))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
  });

  it("takes up to 25% off as jitter", () => {
    expect(retryDelay(0, undefined, () => 1)).toBe(375);
    for (let i = 0; i < 50; i++) {
      const d = retryDelay(2, undefined);
      expect(d).toBeGreaterThanOrEqual(1500);
      expect(d).toBeLessThanOrEqual(2000);
    }
  });

  it("honours Retry-After in seconds and as an HTTP date, capped at 60 s", () => {
    expect(retryDelay(0, "2")).toBe(2000);
    expect(retryDelay(3, "0")).toBe(0);
    expect(retryDelay(0, "1.5")).toBe(1500);
    expect(retryDelay(0, "3600")).toBe(60_000);
    const now = Date.parse("2024-01-01T00:00:00Z");
    expect(parseRetryAfter("Mon, 01 Jan 2024 00:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Mon, 01 Jan 2024 01:00:00 GMT", now)).toBe(60_000);
    expect(parseRetryAfter("Sun, 31 Dec 2023 23:00:00 GMT", now)).toBe(0);
  });

  it("ignores an unusable Retry-After", () => {
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter("-5")).toBeUndefined();
    expect(parseRetryAfter("")).toBeUndefined();
    expect(retryDelay(1, "soon", () => 0)).toBe(1000);
  });
});

describe("client retries", () => {
  useNock();
  // Pauses pass on the retry clock at once, and are recorded: the tests assert the wait chosen.
  const clock = useInstantRetries();
  const body = { model: "owner/model", messages: [{ role: "user" as const, content: "hi" }] };
  const fast = { "retry-after": "0", "content-type": "application/json" };

  it("retries a 429 after the Retry-After the server asked for", async () => {
    const calls = intercept(
      PROXY,
      "POST",
      "/chat/completions",
      (n) =>
        n === 1 ? [429, { error: { message: "slow down" } }, { "retry-after": "1" }] : [200, CHAT],
      2,
    );
    const res = await makeClient().chatCompletion(body);
    expect(res.id).toBe(CHAT.id);
    expect(calls).toHaveLength(2);
    // Retry-After: 1 means the second attempt may not come sooner than a second later.
    expect(clock.sleeps).toEqual([1000]);
  });

  it("retries 503 with backoff when the server gives no Retry-After", async () => {
    const calls = intercept(
      STUDIO,
      "GET",
      "/v1/threads/thread_1",
      (n) => (n === 1 ? [503, "unavailable"] : [200, THREAD]),
      2,
    );
    expect((await makeClient().getThread("thread_1")).id).toBe("thread_1");
    expect(calls).toHaveLength(2);
    // The first backoff: 0.5 s less up to 25% jitter.
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(375);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(500);
  });

  it("makes at most 1 + maxRetries attempts, then throws the last error", async () => {
    const calls = intercept(PROXY, "POST", "/chat/completions", () => [503, {}, fast], 3);
    const error = await failure(makeClient().chatCompletion(body));
    expect(error).toBeInstanceOf(StudioServerError);
    expect(calls).toHaveLength(3);
  });

  it("respects maxRetries from the options and per call", async () => {
    const calls = intercept(PROXY, "POST", "/chat/completions", () => [503, {}, fast], 3);
    await failure(makeClient({ maxRetries: 0 }).chatCompletion(body));
    expect(calls).toHaveLength(1);
    await failure(makeClient({ maxRetries: 0 }).chatCompletion(body, { maxRetries: 1 }));
    expect(calls).toHaveLength(3);
  });

  it.each([408, 409, 500, 502, 504])("retries a read after %i", async (status) => {
    const calls = intercept(
      STUDIO,
      "GET",
      "/v1/assistants/asst_1",
      (n) => (n === 1 ? [status, {}, fast] : [200, ASSISTANT]),
      2,
    );
    await makeClient().getAssistant("asst_1");
    expect(calls).toHaveLength(2);
  });

  it("does not retry a 400", async () => {
    const calls = intercept(PROXY, "POST", "/chat/completions", () => [400, { message: "bad" }], 1);
    expect(await failure(makeClient().chatCompletion(body))).toBeInstanceOf(StudioBadRequestError);
    expect(calls).toHaveLength(1);
  });

  it("does not retry createThread / createMessage / createAssistant after a 5xx", async () => {
    const client = makeClient();
    const threads = intercept(STUDIO, "POST", "/v1/threads", () => [500, {}, fast], 1);
    const messages = intercept(STUDIO, "POST", "/v1/threads/t/messages", () => [502, {}, fast], 1);
    const assistants = intercept(STUDIO, "POST", "/v1/assistants", () => [503, {}, fast], 1);
    expect(await failure(client.createThread({}))).toBeInstanceOf(StudioServerError);
    expect(await failure(client.createMessage("t", { role: "user", content: "x" }))).toBeInstanceOf(
      StudioServerError,
    );
    expect(await failure(client.createAssistant({ assistantName: "a" }))).toBeInstanceOf(
      StudioServerError,
    );
    expect([threads.length, messages.length, assistants.length]).toEqual([1, 1, 1]);
  });

  it("does not retry a create after a connection reset, and says it may have reached the server", async () => {
    const client = makeClient();
    for (const path of ["/v1/threads", "/v1/threads/t/messages", "/v1/assistants"]) {
      nock(STUDIO).post(path).replyWithError({ code: "ECONNRESET", message: "socket hang up" });
    }
    const errors = [
      await failure(client.createThread({})),
      await failure(client.createMessage("t", { role: "user", content: "x" })),
      await failure(client.createAssistant({ assistantName: "a" })),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(StudioConnectionError);
      expect((error as StudioConnectionError).mayHaveReachedServer).toBe(true);
    }
    // nock would throw "no match" on a second attempt; none was made.
    expect(nock.isDone()).toBe(true);
  });

  it("retries a create that was refused before anything was sent", async () => {
    nock(STUDIO).post("/v1/threads").replyWithError({ code: "ECONNREFUSED", message: "refused" });
    const calls = intercept(STUDIO, "POST", "/v1/threads", () => [200, THREAD]);
    const thread = await makeClient().createThread({});
    expect(thread.id).toBe("thread_1");
    expect(calls).toHaveLength(1);
  });

  it("retries a create after 429", async () => {
    const calls = intercept(
      STUDIO,
      "POST",
      "/v1/threads/t/messages",
      (n) => (n === 1 ? [429, {}, fast] : [200, MESSAGE]),
      2,
    );
    await makeClient().createMessage("t", { role: "user", content: "x" });
    expect(calls).toHaveLength(2);
  });

  it("retries a read after a connection reset", async () => {
    nock(STUDIO).get("/v1/threads/t").replyWithError({ code: "ECONNRESET", message: "reset" });
    intercept(STUDIO, "GET", "/v1/threads/t", () => [200, THREAD]);
    expect((await makeClient().getThread("t")).id).toBe("thread_1");
  });

  it("a rate limit error that runs out of retries carries retryAfter", async () => {
    intercept(PROXY, "POST", "/chat/completions", () => [429, {}, { "retry-after": "0" }], 1);
    const error = await failure(makeClient({ maxRetries: 0 }).chatCompletion(body));
    expect(error).toBeInstanceOf(StudioRateLimitError);
    expect((error as StudioRateLimitError).retryAfter).toBe(0);
  });

  it("reads the Connect code from the body: 409 aborted is retried, already_exists is not", async () => {
    const aborted = intercept(
      STUDIO,
      "GET",
      "/v1/threads/t",
      (n) =>
        n === 1 ? [409, { code: "aborted", message: "transaction aborted" }, fast] : [200, THREAD],
      2,
    );
    expect((await makeClient().getThread("t")).id).toBe("thread_1");
    expect(aborted).toHaveLength(2);

    const exists = intercept(
      STUDIO,
      "GET",
      "/v1/threads/u",
      () => [409, { code: "already_exists", message: "it exists" }, fast],
      1,
    );
    const error = await failure(makeClient().getThread("u"));
    expect(error).toMatchObject({ status: 409, code: "already_exists" });
    expect(error.message).toContain("it exists");
    expect(exists).toHaveLength(1);
  });

  it("does not retry a 503 whose Connect code is unimplemented", async () => {
    const calls = intercept(
      STUDIO,
      "DELETE",
      "/v1/threads/t/messages/m",
      () => [503, { code: "unimplemented", message: "no such method" }, fast],
      1,
    );
    expect(await failure(makeClient().deleteMessage("t", "m"))).toMatchObject({
      code: "unimplemented",
    });
    expect(calls).toHaveLength(1);
  });

  it("retries a stream that fails before its first byte", async () => {
    const chunk = {
      id: "c",
      choices: [{ index: 0, delta: { content: "x" }, finish_reason: "stop" }],
    };
    const calls = intercept(
      PROXY,
      "POST",
      "/chat/completions",
      (n) => (n === 1 ? [503, {}, fast] : [200, sse(chunk, "[DONE]")]),
      2,
    );
    const chunks = [];
    for await (const c of makeClient().streamChatCompletion(body)) chunks.push(c);
    expect(chunks).toHaveLength(1);
    expect(calls).toHaveLength(2);
  });
});
