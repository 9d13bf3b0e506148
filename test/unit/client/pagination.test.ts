import { describe, expect, it } from "vitest";
import { StudioResponseError, StudioValidationError } from "../../../src/errors";
import {
  ASSISTANT,
  collect,
  failure,
  intercept,
  json,
  MESSAGE,
  MODEL,
  makeClient,
  STUDIO,
  THREAD,
  useNock,
} from "./helpers";

useNock();

function queryOf(path: string): Record<string, string> {
  return Object.fromEntries(new URL(path, STUDIO).searchParams);
}

describe("/v1 lists (hasMore + after)", () => {
  it("iterateThreads walks three pages with after = lastId and order asc", async () => {
    const pages = [
      {
        data: [
          { ...THREAD, id: "t1" },
          { ...THREAD, id: "t2" },
        ],
        lastId: "t2",
        hasMore: true,
      },
      {
        data: [
          { ...THREAD, id: "t3" },
          { ...THREAD, id: "t4" },
        ],
        lastId: "t4",
        hasMore: true,
      },
      { data: [{ ...THREAD, id: "t5" }], lastId: "t5", hasMore: false },
    ];
    const calls = intercept(
      STUDIO,
      "GET",
      /^\/v1\/threads\?/,
      (n) => [200, { object: "list", ...pages[n - 1] }],
      3,
    );
    const threads = await collect(makeClient().iterateThreads({ limit: 2, datasetId: "ds" }));
    expect(threads.map((t) => t.id)).toEqual(["t1", "t2", "t3", "t4", "t5"]);
    expect(calls.map((c) => queryOf(c.path))).toEqual([
      { limit: "2", order: "asc", datasetId: "ds" },
      { limit: "2", order: "asc", after: "t2", datasetId: "ds" },
      { limit: "2", order: "asc", after: "t4", datasetId: "ds" },
    ]);
  });

  it("iterateMessages falls back to the last item's id when lastId is missing", async () => {
    const pages = [
      { data: [{ ...MESSAGE, id: "m1" }], hasMore: true },
      { data: [{ ...MESSAGE, id: "m2" }], hasMore: false },
    ];
    const calls = intercept(
      STUDIO,
      "GET",
      /^\/v1\/threads\/th\/messages\?/,
      (n) => [200, pages[n - 1]],
      2,
    );
    const messages = await collect(makeClient().iterateMessages("th", { order: "desc" }));
    expect(messages.map((m) => m.id)).toEqual(["m1", "m2"]);
    expect(queryOf(calls[1]!.path)).toEqual({ order: "desc", after: "m1" });
  });

  it("an empty page that says hasMore but names no cursor is an error, not a silent stop", async () => {
    const pages = [
      { data: [ASSISTANT], lastId: "asst_1", hasMore: true },
      { data: [], hasMore: true },
    ];
    intercept(STUDIO, "GET", /^\/v1\/assistants\?/, (n) => [200, pages[n - 1]], 2);
    const seen: unknown[] = [];
    const error = await failure(
      (async function* () {
        for await (const a of makeClient().iterateAssistants()) {
          seen.push(a);
          yield a;
        }
      })(),
    );
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(StudioResponseError);
    expect(error.message).toBe(
      "Unexpected response from GET /v1/assistants: iterateAssistants stopped after 2 page(s): hasMore is true but the empty page has no lastId (nor an item id) to continue from. The server's paging is broken; the items so far were returned.",
    );
  });

  it("empty pages with fresh cursors: a couple are followed, the third in a row is an error", async () => {
    const pages = [
      { data: [], lastId: "c1", hasMore: true },
      { data: [], lastId: "c2", hasMore: true },
      { data: [{ ...THREAD, id: "t1" }], lastId: "t1", hasMore: true },
      { data: [], lastId: "c3", hasMore: true },
      { data: [], lastId: "c4", hasMore: true },
      { data: [], lastId: "c5", hasMore: true },
    ];
    const calls = intercept(STUDIO, "GET", /^\/v1\/threads\?/, (n) => [200, pages[n - 1]], 6);
    const threads: string[] = [];
    const error = await failure(
      (async function* () {
        for await (const t of makeClient().iterateThreads()) {
          threads.push(t.id);
          yield t;
        }
      })(),
    );
    expect(threads).toEqual(["t1"]);
    expect(calls).toHaveLength(6);
    expect(error).toBeInstanceOf(StudioResponseError);
    expect(error.message).toContain("iterateThreads stopped after 6 page(s)");
    expect(error.message).toContain(
      '3 empty pages in a row still said there was more (last cursor (lastId) "c5")',
    );
  });

  it("a cursor that comes back twice is an error, not an endless loop", async () => {
    intercept(
      STUDIO,
      "GET",
      /^\/v1\/threads\?/,
      () => [200, { data: [THREAD], lastId: "same", hasMore: true }],
      2,
    );
    const error = await failure(makeClient().iterateThreads());
    expect(error).toBeInstanceOf(StudioResponseError);
    expect(error.message).toContain(
      'iterateThreads stopped after 2 page(s): the cursor (lastId) "same" came back twice',
    );
  });

  it("any cursor seen before counts, not only the last one (a cycle a -> b -> a)", async () => {
    const cursors = ["a", "b", "a"];
    const calls = intercept(
      STUDIO,
      "GET",
      /^\/v1\/threads\/th\/messages\?/,
      (n) => [200, { data: [{ ...MESSAGE, id: `m${n}` }], lastId: cursors[n - 1], hasMore: true }],
      3,
    );
    const error = await failure(makeClient().iterateMessages("th"));
    expect(calls).toHaveLength(3);
    expect(error.message).toContain(
      'iterateMessages stopped after 3 page(s): the cursor (lastId) "a" came back twice',
    );
  });

  it("a cursor equal to the caller's own `after` is a repeat too", async () => {
    intercept(
      STUDIO,
      "GET",
      /^\/v1\/assistants\?/,
      () => [200, { data: [ASSISTANT], lastId: "start", hasMore: true }],
      1,
    );
    const error = await failure(makeClient().iterateAssistants({ after: "start" }));
    expect(error.message).toContain(
      'iterateAssistants stopped after 1 page(s): the cursor (lastId) "start" came back twice',
    );
  });

  it("breaking out early stops fetching pages", async () => {
    const calls = intercept(
      STUDIO,
      "GET",
      /^\/v1\/threads\?/,
      () => [200, { data: [THREAD, { ...THREAD, id: "t2" }], lastId: "t2", hasMore: true }],
      1,
    );
    const first = await collect(makeClient().iterateThreads(), 1);
    expect(first).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  it("limit outside 1..100 is refused before sending", async () => {
    const client = makeClient();
    await expect(client.listThreads({ limit: 0 })).rejects.toThrow(StudioValidationError);
    await expect(client.listMessages("t", { limit: 101 })).rejects.toThrow(/limit/);
    expect(await failure(client.iterateAssistants({ limit: 1.5 }))).toBeInstanceOf(
      StudioValidationError,
    );
  });
});

describe("page-token lists", () => {
  it("iteratePublicModels follows nextPageToken and fills every page field", async () => {
    const answers = [
      { models: [{ ...MODEL, id: "a" }], page: { nextPageToken: "p2" } },
      { models: [{ ...MODEL, id: "b" }], page: { nextPageToken: "p3", prevPageToken: "p1" } },
      { models: [{ ...MODEL, id: "c" }], page: { nextPageToken: "" } },
    ];
    const calls = intercept(
      STUDIO,
      "POST",
      "/svc.Studio/ListPublicModels",
      (n) => [200, answers[n - 1]],
      3,
    );
    const models = await collect(
      makeClient({ apiKey: undefined }).iteratePublicModels({ limit: 1 }),
    );
    expect(models.map((m) => m.id)).toEqual(["a", "b", "c"]);
    expect(calls.map((c) => c.body)).toEqual([
      { page: { limit: 1, prevPageToken: "", nextPageToken: "", totalPage: 0 } },
      { page: { limit: 1, prevPageToken: "", nextPageToken: "p2", totalPage: 0 } },
      { page: { limit: 1, prevPageToken: "", nextPageToken: "p3", totalPage: 0 } },
    ]);
  });

  it("iteratePublicModels stops after one page when the answer has no page object", async () => {
    intercept(STUDIO, "POST", "/svc.Studio/ListPublicModels", json(200, { models: [MODEL] }));
    expect(await collect(makeClient().iteratePublicModels())).toHaveLength(1);
  });

  it("iterateDatasetThreadsMessages walks pages with the caller's body", async () => {
    const path = "/svc.dataset.ThreadDatasetService/ListThreadDatasetThreadsMessages";
    const answers = [
      { threadsMessages: [{ threadId: "t1", messages: [MESSAGE] }], page: { nextPageToken: "n2" } },
      { threadsMessages: [{ threadId: "t2", messages: [] }], page: { nextPageToken: "" } },
    ];
    const calls = intercept(STUDIO, "POST", path, (n) => [200, answers[n - 1]], 2);
    const items = await collect(
      makeClient().iterateDatasetThreadsMessages({
        datasetId: "ds",
        auth: { organization: "o", cluster: "c" },
        order: "asc",
        pageSize: 1,
      }),
    );
    expect(items.map((i) => i.threadId)).toEqual(["t1", "t2"]);
    expect(calls[1]?.body).toEqual({
      datasetId: "ds",
      auth: { organization: "o", cluster: "c" },
      order: "asc",
      page: { limit: 1, prevPageToken: "", nextPageToken: "n2", totalPage: 0 },
    });
  });

  it("a repeated page token is an error naming the call", async () => {
    intercept(
      STUDIO,
      "POST",
      "/svc.Studio/ListPublicModels",
      () => [200, { models: [MODEL], page: { nextPageToken: "again" } }],
      2,
    );
    const error = await failure(makeClient().iteratePublicModels());
    expect(error).toBeInstanceOf(StudioResponseError);
    expect(error.message).toContain(
      'POST /svc.Studio/ListPublicModels: iteratePublicModels stopped after 2 page(s): the page token (nextPageToken) "again" came back twice',
    );
  });

  it("empty pages with fresh tokens: the third in a row is an error", async () => {
    const path = "/svc.dataset.ThreadDatasetService/ListThreadDatasetThreadsMessages";
    const calls = intercept(
      STUDIO,
      "POST",
      path,
      (n) => [200, { threadsMessages: [], page: { nextPageToken: `tok${n}` } }],
      3,
    );
    const error = await failure(makeClient().iterateDatasetThreadsMessages({ datasetId: "ds" }));
    expect(calls).toHaveLength(3);
    expect(error).toBeInstanceOf(StudioResponseError);
    expect(error.message).toContain(
      'iterateDatasetThreadsMessages stopped after 3 page(s): 3 empty pages in a row still said there was more (last page token (nextPageToken) "tok3")',
    );
  });

  it("a cycle of page tokens (p1 -> p2 -> p1) is caught", async () => {
    const tokens = ["p1", "p2", "p1"];
    intercept(
      STUDIO,
      "POST",
      "/svc.Studio/ListPublicModels",
      (n) => [200, { models: [{ ...MODEL, id: `m${n}` }], page: { nextPageToken: tokens[n - 1] } }],
      3,
    );
    const error = await failure(makeClient().iteratePublicModels());
    expect(error.message).toContain('the page token (nextPageToken) "p1" came back twice');
  });
});
