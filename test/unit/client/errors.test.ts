import { PassThrough } from "node:stream";
import { inspect } from "node:util";
import nock from "nock";
import { describe, expect, it } from "vitest";
import {
  excerpt,
  extractServerMessage,
  parseErrorBody,
} from "../../../src/client/errors-from-response";
import {
  StudioAPIError,
  StudioAuthenticationError,
  StudioBadRequestError,
  StudioConfigError,
  StudioConflictError,
  StudioConnectionError,
  StudioNotFoundError,
  StudioPermissionDeniedError,
  StudioRateLimitError,
  StudioResponseError,
  StudioServerError,
  StudioTimeoutError,
  StudioUnprocessableEntityError,
} from "../../../src/errors";
import {
  CHAT,
  failure,
  intercept,
  KEY,
  makeClient,
  PROXY,
  STUDIO,
  THREAD,
  useNock,
} from "./helpers";

useNock();

const body = { model: "owner/model", messages: [{ role: "user" as const, content: "hi" }] };

function expectNoKey(value: unknown): void {
  const views = [
    JSON.stringify(value),
    String(value),
    inspect(value, { depth: 10, showHidden: true }),
    value instanceof Error ? (value.stack ?? "") : "",
  ];
  for (const view of views) expect(view).not.toContain(KEY);
}

describe("API errors by status", () => {
  it.each([
    [400, StudioBadRequestError],
    [401, StudioAuthenticationError],
    [403, StudioPermissionDeniedError],
    [404, StudioNotFoundError],
    [409, StudioConflictError],
    [422, StudioUnprocessableEntityError],
    [429, StudioRateLimitError],
    [500, StudioServerError],
    [503, StudioServerError],
    [418, StudioAPIError],
  ])("%i -> %o", async (status, cls) => {
    intercept(STUDIO, "GET", "/v1/threads/t", () => [
      status,
      { error: { message: "went wrong", code: "E42" } },
      { "x-request-id": "req_9", "content-type": "application/json" },
    ]);
    const error = (await failure(makeClient({ maxRetries: 0 }).getThread("t"))) as StudioAPIError;
    expect(error).toBeInstanceOf(cls);
    expect(error).toBeInstanceOf(StudioAPIError);
    expect(error.status).toBe(status);
    expect(error.code).toBe("E42");
    expect(error.requestId).toBe("req_9");
    expect(error.method).toBe("GET");
    expect(error.path).toBe("/v1/threads/t");
    expect(error.message).toContain("went wrong");
    expect(error.message).toContain("req_9");
  });

  it("reads the request id from request-id too", async () => {
    intercept(STUDIO, "GET", "/v1/threads/t", () => [
      404,
      { message: "no" },
      { "request-id": "r2" },
    ]);
    const error = (await failure(makeClient().getThread("t"))) as StudioAPIError;
    expect(error.requestId).toBe("r2");
  });
});

describe("server message extraction", () => {
  it.each([
    [{ error: { message: "a" } }, "a"],
    [{ message: "b" }, "b"],
    [{ error: "c" }, "c"],
    [{ detail: "d" }, "d"],
    [{ detail: [{ msg: "field required", loc: ["body", "model"] }] }, "field required"],
    [{ error: { message: "" }, message: "fallback" }, "fallback"],
    [{ other: 1 }, undefined],
    [[1, 2], undefined],
  ])("%j -> %s", (input, expected) => {
    expect(extractServerMessage(input)).toBe(expected);
  });

  it("a status without a message still says what happened", async () => {
    intercept(STUDIO, "GET", "/v1/threads/t", () => [404, ""]);
    const error = await failure(makeClient().getThread("t"));
    expect(error.message).toContain("status 404");
    expect(error.message).toContain("no error message");
  });

  it("an HTML gateway page becomes a short excerpt", async () => {
    const html = `<html><head><style>body{}</style><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>${"<p>x</p>".repeat(200)}</body></html>`;
    intercept(PROXY, "POST", "/chat/completions", () => [
      502,
      html,
      { "content-type": "text/html" },
    ]);
    const error = (await failure(
      makeClient({ maxRetries: 0 }).chatCompletion(body),
    )) as StudioAPIError;
    expect(error).toBeInstanceOf(StudioServerError);
    expect(error.message).toContain("502 Bad Gateway");
    expect(error.message).not.toContain("<h1>");
    expect(error.message.length).toBeLessThan(500);
    expect(typeof error.body).toBe("string");
  });

  it("excerpt collapses whitespace and cuts long text", () => {
    expect(excerpt("  a \n\n b  ")).toBe("a b");
    expect(excerpt("x".repeat(500))).toHaveLength(203);
  });

  it("parseErrorBody scrubs a key the server echoes back", () => {
    makeClient(); // registers KEY
    const parsed = parseErrorBody(JSON.stringify({ error: { message: `bad key ${KEY}` } }));
    expect(parsed.message).toBe("bad key [REDACTED]");
    expectNoKey(parsed.body);
  });
});

describe("2xx bodies that are wrong", () => {
  it("a body of the wrong shape names the call, method, path and first bad field", async () => {
    // Servers' dialects are tolerated (a missing role or content), a wrong type is not.
    const bad = {
      ...CHAT,
      choices: [{ index: 0, message: { role: 7, content: "x" }, finish_reason: "stop" }],
    };
    intercept(PROXY, "POST", "/chat/completions", () => [200, bad]);
    const error = (await failure(makeClient().chatCompletion(body))) as StudioResponseError;
    expect(error).toBeInstanceOf(StudioResponseError);
    expect(error.method).toBe("POST");
    expect(error.path).toBe("/chat/completions");
    expect(error.message).toContain("chatCompletion");
    expect(error.message).toContain("choices[0].message.role");
  });

  it("a body that is not JSON is a StudioResponseError with an excerpt", async () => {
    intercept(STUDIO, "GET", "/v1/threads/t", () => [200, "<html>maintenance</html>"]);
    const error = await failure(makeClient().getThread("t"));
    expect(error).toBeInstanceOf(StudioResponseError);
    expect(error.message).toContain("maintenance");
  });

  it("a body over maxResponseBytes (declared length) is refused", async () => {
    intercept(STUDIO, "GET", "/v1/threads/t", () => [200, { ...THREAD, pad: "x".repeat(5000) }]);
    const error = await failure(makeClient({ maxResponseBytes: 1024 }).getThread("t"));
    expect(error).toBeInstanceOf(StudioResponseError);
    expect(error.message).toContain("maxResponseBytes (1024 bytes");
  });

  it("a chunked body that grows past maxResponseBytes is cut off", async () => {
    const stream = new PassThrough();
    nock(STUDIO)
      .get("/v1/threads/t")
      .reply(200, () => stream);
    setImmediate(() => {
      for (let i = 0; i < 10; i++) stream.write("x".repeat(512));
      stream.end();
    });
    const error = await failure(makeClient({ maxResponseBytes: 2048 }).getThread("t"));
    expect(error).toBeInstanceOf(StudioResponseError);
    expect(error.message).toContain("maxResponseBytes");
  });
});

describe("redirects", () => {
  it("a 3xx is an error naming the target origin; the redirect is not followed", async () => {
    intercept(STUDIO, "GET", "/v1/threads/t", () => [
      307,
      "",
      { location: "https://elsewhere.test:8443/v1/threads/t?token=abc" },
    ]);
    const error = (await failure(makeClient().getThread("t"))) as StudioAPIError;
    expect(error).toBeInstanceOf(StudioAPIError);
    expect(error.status).toBe(307);
    expect(error.message).toContain("https://elsewhere.test:8443");
    expect(error.message).not.toContain("token=abc");
    // disableNetConnect would have failed a followed redirect; nothing else was requested.
    expect(nock.isDone()).toBe(true);
  });
});

describe("the key never shows", () => {
  it("not in API errors, even when the server echoes it", async () => {
    intercept(PROXY, "POST", "/chat/completions", () => [
      401,
      { error: { message: `Invalid key ${KEY}` } },
      { "x-echo": KEY },
    ]);
    const error = await failure(makeClient().chatCompletion(body));
    expect(error).toBeInstanceOf(StudioAuthenticationError);
    expect(error.message).toContain("[REDACTED]");
    expectNoKey(error);
    expectNoKey((error as StudioAPIError).body);
  });

  it("not in connection errors", async () => {
    nock(STUDIO).get("/v1/threads/t").replyWithError({ code: "ECONNREFUSED", message: "refused" });
    const error = await failure(makeClient({ maxRetries: 0 }).getThread("t"));
    expect(error).toBeInstanceOf(StudioConnectionError);
    expect((error as StudioConnectionError).mayHaveReachedServer).toBe(false);
    expectNoKey(error);
  });

  it("not in JSON.stringify, inspect or toJSON of the client", () => {
    const client = makeClient({ orgId: "org_1" });
    expectNoKey(client);
    expect(JSON.parse(JSON.stringify(client))).toMatchObject({
      apiKey: "[REDACTED]",
      orgId: "org_1",
      baseUrl: STUDIO,
      proxyUrl: PROXY,
      transport: expect.stringContaining("fetch"),
    });
    expect(Object.keys(client)).toEqual([]);
  });

  it("not in config errors", async () => {
    const error = await failure(makeClient({ baseUrl: undefined }).getThread("t"));
    expect(error).toBeInstanceOf(StudioConfigError);
    expectNoKey(error);
  });
});

describe("timeout messages", () => {
  it("name the option that governs them", () => {
    const call = new StudioTimeoutError("POST", "/chat/completions", 50);
    expect(call.message).toContain('"timeout" option');
    const idle = new StudioTimeoutError("POST", "/chat/completions", 80, "event");
    expect(idle.message).toContain("no stream event within 80 ms");
    expect(idle.message).toContain('"streamIdleTimeout" option');
  });
});
