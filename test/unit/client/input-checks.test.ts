/**
 * Caller input that must never reach the wire: ids that would change the path, a `signal` that is
 * not an AbortSignal, header names that are not tokens, header values with line breaks, and
 * credential headers in `defaultHeaders` or per-call `headers`. Each is a `StudioValidationError`
 * naming the field, raised before anything is sent (nock refuses every request nobody expects, so
 * a request that left would fail differently), and never retried.
 */
import { describe, expect, it } from "vitest";
import type { StudioClient } from "../../../src/client";
import { checkRequestOptions } from "../../../src/client/options";
import { StudioValidationError } from "../../../src/errors";
import {
  ASSISTANT,
  collect,
  failure,
  intercept,
  json,
  MESSAGE,
  makeClient,
  STUDIO,
  THREAD,
  useNock,
} from "./helpers";

useNock();

async function refused(work: Promise<unknown> | AsyncIterable<unknown>, field: string) {
  const error = await failure(work);
  expect(error, String(error)).toBeInstanceOf(StudioValidationError);
  expect((error as StudioValidationError).field).toBe(field);
  return error as StudioValidationError;
}

describe("ids", () => {
  const BAD_IDS: [string, unknown][] = [
    ["empty", ""],
    ["a dot", "."],
    ["two dots", ".."],
    ["a slash", "a/b"],
    ["a slash and dots", "../t2"],
    ["a question mark", "t1?x=1"],
    ["a hash", "t1#x"],
    ["a line feed", "t1\nx"],
    ["a NUL", "t\u0000"],
    ["DEL", "t\u007f"],
    ["a C1 control (NEL)", "t\u0085"],
    ["not a string", 42],
  ];

  /** Every method that takes an id, with the field its error must name. */
  const METHODS: [string, string, (c: StudioClient, id: string) => unknown][] = [
    ["getThread", "threadId", (c, id) => c.getThread(id)],
    ["deleteThread", "threadId", (c, id) => c.deleteThread(id)],
    ["createMessage", "threadId", (c, id) => c.createMessage(id, { role: "user", content: "x" })],
    ["listMessages", "threadId", (c, id) => c.listMessages(id)],
    ["iterateMessages", "threadId", (c, id) => c.iterateMessages(id)],
    ["deleteMessage (thread)", "threadId", (c, id) => c.deleteMessage(id, "msg_1")],
    ["deleteMessage (message)", "messageId", (c, id) => c.deleteMessage("thread_1", id)],
    ["getAssistant", "assistantId", (c, id) => c.getAssistant(id)],
    ["deleteAssistant", "assistantId", (c, id) => c.deleteAssistant(id)],
    [
      "listDatasetThreadsMessages",
      "datasetId",
      (c, id) => c.listDatasetThreadsMessages({ datasetId: id }),
    ],
    [
      "iterateDatasetThreadsMessages",
      "datasetId",
      (c, id) => c.iterateDatasetThreadsMessages({ datasetId: id }),
    ],
  ];

  for (const [method, field, call] of METHODS) {
    it(`${method} refuses bad ${field}s before sending`, async () => {
      const client = makeClient({ maxRetries: 3 });
      for (const [what, id] of BAD_IDS) {
        const error = await refused(
          call(client, id as string) as Promise<unknown> | AsyncIterable<unknown>,
          field,
        );
        expect(error.message, what).toMatch(new RegExp(`^Invalid ${field}: must `));
      }
    });
  }

  it('deleteMessage("T1", "..") is refused: it must never become DELETE .../threads/T1/', async () => {
    const error = await refused(makeClient().deleteMessage("T1", ".."), "messageId");
    expect(error.message).toBe(
      'Invalid messageId: must not be "..": as a path segment it names another resource',
    );
  });

  it("other ids are sent percent-encoded, as one path segment", async () => {
    const id = "a b%c+ü...~'()*!";
    const calls = [
      intercept(STUDIO, "GET", /^\/v1\/threads\/[^/]+$/, json(200, THREAD)),
      intercept(STUDIO, "DELETE", /^\/v1\/threads\/[^/]+\/messages\/[^/]+$/, () => [
        200,
        { id: "m", deleted: true },
      ]),
      intercept(STUDIO, "GET", /^\/v1\/assistants\/[^/]+$/, json(200, ASSISTANT)),
    ];
    const client = makeClient();
    await client.getThread(id);
    await client.deleteMessage(id, id);
    await client.getAssistant(id);
    const encoded = "a%20b%25c%2B%C3%BC...~'()*!";
    expect(encodeURIComponent(id)).toBe(encoded);
    expect(calls.map((c) => c[0]!.path)).toEqual([
      `/v1/threads/${encoded}`,
      `/v1/threads/${encoded}/messages/${encoded}`,
      `/v1/assistants/${encoded}`,
    ]);
  });

  it("a dataset id with unusual characters goes in the body unchanged", async () => {
    const path = "/svc.dataset.ThreadDatasetService/ListThreadDatasetThreadsMessages";
    const calls = intercept(STUDIO, "POST", path, json(200, { threadsMessages: [] }));
    await makeClient().listDatasetThreadsMessages({ datasetId: "ds 1%ü" });
    expect((calls[0]!.body as { datasetId: string }).datasetId).toBe("ds 1%ü");
  });
});

describe("signal", () => {
  const NOT_SIGNALS: unknown[] = [{}, "abort", 1, { aborted: false }, new AbortController()];

  it("checkRequestOptions refuses anything but an AbortSignal, and takes real ones", () => {
    for (const signal of NOT_SIGNALS) {
      expect(() => checkRequestOptions({ signal: signal as AbortSignal })).toThrow(
        StudioValidationError,
      );
    }
    checkRequestOptions({ signal: new AbortController().signal });
    checkRequestOptions({ signal: AbortSignal.timeout(1000) });
    checkRequestOptions({ signal: undefined });
  });

  it("a call with a signal that is not an AbortSignal is refused naming `signal`, nothing sent", async () => {
    const client = makeClient({ maxRetries: 3 });
    for (const signal of NOT_SIGNALS) {
      const options = { signal: signal as AbortSignal };
      const error = await refused(client.getThread("thread_1", options), "signal");
      expect(error.message).toBe(
        "Invalid signal: must be an AbortSignal (for example AbortSignal.timeout(ms) or controller.signal)",
      );
      await refused(client.streamChatCompletion({ model: "o/m", messages: [] }, options), "signal");
      await refused(client.iterateThreads(undefined, options), "signal");
    }
  });
});

describe("headers", () => {
  const BAD_NAMES = ["X Bad", "x:y", "", "x-é", "x\r\ny", "(x)"];

  it("defaultHeaders with a name that is not a token fail at construction, naming defaultHeaders", () => {
    for (const name of BAD_NAMES) {
      let error: unknown;
      try {
        makeClient({ defaultHeaders: { [name]: "v" } });
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(name)).toBeInstanceOf(StudioValidationError);
      expect((error as StudioValidationError).field).toBe("defaultHeaders");
      expect((error as Error).message).toContain(
        `${JSON.stringify(name)} is not a valid HTTP header name`,
      );
    }
  });

  it("per-call headers with a bad name or a value with a line break are refused naming headers", async () => {
    const client = makeClient({ maxRetries: 3 });
    for (const name of BAD_NAMES) {
      await refused(client.getThread("thread_1", { headers: { [name]: "v" } }), "headers");
    }
    for (const value of ["a\r\nInjected: 1", "a\nb", "a\rb", "a\u0000b"]) {
      const error = await refused(
        client.chatCompletion({ model: "o/m", messages: [] }, { headers: { "X-Trace": value } }),
        "headers",
      );
      expect(error.message).toBe(
        "Invalid headers: the value of X-Trace contains a line break or another character an HTTP header cannot carry",
      );
      await refused(
        client.streamChatCompletion(
          { model: "o/m", messages: [] },
          { headers: { "X-Trace": value } },
        ),
        "headers",
      );
    }
    await refused(
      client.getThread("thread_1", { headers: { "X-Trace": 1 as unknown as string } }),
      "headers",
    );
  });

  it("credential headers in defaultHeaders fail at construction, naming the header and the option to use", () => {
    const cases: [string, string][] = [
      ["Authorization", "apiKey"],
      ["x-service-key", "apiKey"],
      ["Proxy-Authorization", "apiKey"],
      ["X-Org-Id", "orgId"],
    ];
    for (const [name, option] of cases) {
      let error: unknown;
      try {
        makeClient({ defaultHeaders: { "X-Team": "a", [name]: "Bearer something" } });
      } catch (e) {
        error = e;
      }
      expect(error, name).toBeInstanceOf(StudioValidationError);
      expect((error as StudioValidationError).field).toBe("defaultHeaders");
      expect((error as Error).message).toBe(
        `Invalid defaultHeaders: must not set ${name}: the client sets it from the "${option}" option, in the header each call needs`,
      );
    }
  });

  it("credential headers per call are refused too, before sending", async () => {
    const client = makeClient();
    for (const name of ["authorization", "X-Service-Key", "x-org-id"]) {
      const error = await refused(
        client.listPublicModels(undefined, { headers: { [name]: "x" } }),
        "headers",
      );
      expect(error.message).toContain(`must not set ${name}`);
    }
  });

  it("good headers are still sent, lower-cased, and undefined values skipped", async () => {
    const calls = intercept(STUDIO, "GET", "/v1/threads/thread_1", json(200, THREAD));
    const client = makeClient({ defaultHeaders: { "X-Team": "a b\tc" } });
    await client.getThread("thread_1", {
      headers: { "X-Trace": "t1", "x-skip": undefined as unknown as string },
    });
    expect(calls[0]!.headers["x-team"]).toBe("a b\tc");
    expect(calls[0]!.headers["x-trace"]).toBe("t1");
    expect(calls[0]!.headers["x-skip"]).toBeUndefined();
  });
});

describe("messages can still be listed after these checks", () => {
  it("iterateMessages with a plain id works", async () => {
    intercept(
      STUDIO,
      "GET",
      /^\/v1\/threads\/th\/messages\?/,
      json(200, { data: [MESSAGE], hasMore: false }),
    );
    expect(await collect(makeClient().iterateMessages("th"))).toHaveLength(1);
  });
});
