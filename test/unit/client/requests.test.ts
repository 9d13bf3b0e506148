/**
 * Exact request shape of every method (method, path, query, headers, body) through the `fetch`
 * option, and the header rules: the key only where the spec puts it.
 */
import { describe, expect, it } from "vitest";
import { VERSION } from "../../../src/client";
import { StudioValidationError } from "../../../src/errors";
import {
  ASSISTANT,
  CHAT,
  clientHeaders,
  collect,
  intercept,
  json,
  KEY,
  MESSAGE,
  MODEL,
  makeClient,
  PROXY,
  STUDIO,
  sse,
  TEXT,
  THREAD,
  useNock,
} from "./helpers";

useNock();

const UA = `langchain-studio/${VERSION}`;

const studioJson = {
  accept: "application/json",
  "content-type": "application/json",
  "user-agent": UA,
  "x-service-key": KEY,
};
const studioNoBody = { accept: "application/json", "user-agent": UA, "x-service-key": KEY };
const completionJson = {
  accept: "application/json",
  "content-type": "application/json",
  "user-agent": UA,
  authorization: KEY,
};

describe("request shapes", () => {
  it("listPublicModels: POST with a full page object and no key header", async () => {
    const calls = intercept(
      STUDIO,
      "POST",
      "/svc.Studio/ListPublicModels",
      json(200, { models: [MODEL] }),
    );
    const res = await makeClient().listPublicModels({ page: { limit: 5 } });
    expect(res.models[0]?.uri).toBe("owner/model");
    expect(calls[0]?.body).toEqual({
      page: { limit: 5, prevPageToken: "", nextPageToken: "", totalPage: 0 },
    });
    expect(clientHeaders(calls[0]!)).toEqual({
      accept: "application/json",
      "content-type": "application/json",
      "user-agent": UA,
    });
  });

  it("listPublicModels works without any key configured", async () => {
    const calls = intercept(
      STUDIO,
      "POST",
      "/svc.Studio/ListPublicModels",
      json(200, { models: [] }),
    );
    await makeClient({ apiKey: undefined }).listPublicModels();
    expect(calls[0]?.body).toEqual({
      page: { limit: 20, prevPageToken: "", nextPageToken: "", totalPage: 0 },
    });
  });

  it("chatCompletion: POST /chat/completions on proxyUrl with the raw key in Authorization", async () => {
    const calls = intercept(PROXY, "POST", "/chat/completions", json(200, CHAT));
    const body = {
      model: "owner/model",
      messages: [{ role: "user" as const, content: "hi" }],
      temperature: 0.5,
      max_tokens: 10,
      tools: [
        { type: "function" as const, function: { name: "f", parameters: { type: "object" } } },
      ],
    };
    const res = await makeClient().chatCompletion(body);
    expect(res.choices[0]?.message.content).toBe("hi");
    expect(calls[0]?.body).toEqual(body);
    expect(clientHeaders(calls[0]!)).toEqual(completionJson);
  });

  it("chatCompletion sends X-Org-Id only when an organization is configured", async () => {
    const calls = intercept(PROXY, "POST", "/chat/completions", json(200, CHAT), 2);
    const body = { model: "owner/model", messages: [{ role: "user" as const, content: "hi" }] };
    await makeClient({ orgId: "org_42" }).chatCompletion(body);
    await makeClient().chatCompletion(body);
    expect(calls[0]?.headers["x-org-id"]).toBe("org_42");
    expect(calls[1]?.headers["x-org-id"]).toBeUndefined();
  });

  it("chatCompletion forces stream:false when the body asks for a stream", async () => {
    const calls = intercept(PROXY, "POST", "/chat/completions", json(200, CHAT));
    await makeClient().chatCompletion({ model: "o/m", messages: [], stream: true });
    expect(calls[0]?.body).toEqual({ model: "o/m", messages: [], stream: false });
  });

  it("streamChatCompletion: same call with stream:true and Accept text/event-stream", async () => {
    const chunk = {
      id: "c",
      choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }],
    };
    const calls = intercept(PROXY, "POST", "/chat/completions", () => [
      200,
      sse(chunk, "[DONE]"),
      { "content-type": "text/event-stream" },
    ]);
    const body = { model: "owner/model", messages: [{ role: "user" as const, content: "hi" }] };
    const chunks = await collect(makeClient({ orgId: "org_1" }).streamChatCompletion(body));
    expect(chunks).toEqual([chunk]);
    expect(calls[0]?.body).toEqual({ ...body, stream: true });
    expect(clientHeaders(calls[0]!)).toEqual({
      ...completionJson,
      accept: "text/event-stream",
      "x-org-id": "org_1",
    });
  });

  it("textCompletion: POST /text/completions with prompt", async () => {
    const calls = intercept(PROXY, "POST", "/text/completions", json(200, TEXT));
    const body = { model: "owner/model", prompt: "Say hi", echo: true, stop: ["\n"] };
    const res = await makeClient().textCompletion(body);
    expect(res.choices[0]?.text).toBe("hi");
    expect(calls[0]?.body).toEqual(body);
    expect(clientHeaders(calls[0]!)).toEqual(completionJson);
  });

  it("streamTextCompletion: stream:true, parsed text chunks", async () => {
    const chunk = { id: "t", choices: [{ index: 0, text: "hi", finish_reason: "stop" }] };
    const calls = intercept(PROXY, "POST", "/text/completions", () => [200, sse(chunk, "[DONE]")]);
    const chunks = await collect(
      makeClient().streamTextCompletion({ model: "owner/model", prompt: "p" }),
    );
    expect(chunks).toEqual([chunk]);
    expect(calls[0]?.body).toEqual({ model: "owner/model", prompt: "p", stream: true });
    expect(clientHeaders(calls[0]!)).toEqual({ ...completionJson, accept: "text/event-stream" });
  });

  it("createThread: POST /v1/threads with X-Service-Key", async () => {
    const calls = intercept(STUDIO, "POST", "/v1/threads", json(200, THREAD));
    const body = {
      messages: [{ role: "user" as const, content: "hello" }],
      metadata: { topic: "x" },
      title: "T",
      datasetId: "ds_1",
    };
    const thread = await makeClient().createThread(body);
    expect(thread.id).toBe("thread_1");
    expect(calls[0]?.body).toEqual(body);
    expect(clientHeaders(calls[0]!)).toEqual(studioJson);
  });

  it("getThread: GET /v1/threads/{id} without a body or Content-Type", async () => {
    const calls = intercept(STUDIO, "GET", "/v1/threads/thread_1", json(200, THREAD));
    expect((await makeClient().getThread("thread_1")).id).toBe("thread_1");
    expect(calls[0]?.body).toBeUndefined();
    expect(clientHeaders(calls[0]!)).toEqual(studioNoBody);
  });

  it("escapes ids in paths (ids with / ? # are refused before sending: A2's id rules)", async () => {
    const calls = intercept(STUDIO, "GET", "/v1/threads/a%20b%25c", json(200, THREAD));
    await makeClient().getThread("a b%c");
    expect(calls[0]?.path).toBe("/v1/threads/a%20b%25c");
  });

  it("deleteThread: DELETE /v1/threads/{id}", async () => {
    const deleted = { id: "thread_1", object: "thread.deleted", deleted: true };
    const calls = intercept(STUDIO, "DELETE", "/v1/threads/thread_1", json(200, deleted));
    expect(await makeClient().deleteThread("thread_1")).toEqual(deleted);
    expect(clientHeaders(calls[0]!)).toEqual(studioNoBody);
  });

  it("listThreads: GET /v1/threads with the query, order always sent", async () => {
    const page = {
      object: "list",
      data: [THREAD],
      firstId: "thread_1",
      lastId: "thread_1",
      hasMore: false,
    };
    const calls = intercept(STUDIO, "GET", /^\/v1\/threads\?/, json(200, page), 2);
    const client = makeClient();
    await client.listThreads();
    const res = await client.listThreads({
      limit: 5,
      order: "desc",
      after: "a 1",
      before: "b",
      datasetId: "ds",
    });
    expect(res.data[0]?.id).toBe("thread_1");
    expect(calls[0]?.path).toBe("/v1/threads?order=asc");
    const query = Object.fromEntries(new URL(calls[1]!.path, STUDIO).searchParams);
    expect(query).toEqual({
      limit: "5",
      order: "desc",
      after: "a 1",
      before: "b",
      datasetId: "ds",
    });
    expect(clientHeaders(calls[1]!)).toEqual(studioNoBody);
  });

  it("createMessage: POST /v1/threads/{id}/messages", async () => {
    const calls = intercept(STUDIO, "POST", "/v1/threads/thread_1/messages", json(200, MESSAGE));
    const body = { role: "user" as const, content: "hi", metadata: { k: "v" } };
    const msg = await makeClient().createMessage("thread_1", body);
    expect(msg.id).toBe("msg_1");
    expect(calls[0]?.body).toEqual(body);
    expect(clientHeaders(calls[0]!)).toEqual(studioJson);
  });

  it("listMessages: GET /v1/threads/{id}/messages with query", async () => {
    const page = { object: "list", data: [MESSAGE], hasMore: false };
    const calls = intercept(STUDIO, "GET", /^\/v1\/threads\/thread_1\/messages\?/, json(200, page));
    const res = await makeClient().listMessages("thread_1", { limit: 100, order: "desc" });
    expect(res.data).toHaveLength(1);
    const query = Object.fromEntries(new URL(calls[0]!.path, STUDIO).searchParams);
    expect(query).toEqual({ limit: "100", order: "desc" });
    expect(clientHeaders(calls[0]!)).toEqual(studioNoBody);
  });

  it("deleteMessage: DELETE /v1/threads/{id}/messages/{messageId}", async () => {
    const deleted = { id: "msg_1", object: "thread.message.deleted", deleted: true };
    const calls = intercept(
      STUDIO,
      "DELETE",
      "/v1/threads/thread_1/messages/msg_1",
      json(200, deleted),
    );
    expect((await makeClient().deleteMessage("thread_1", "msg_1")).deleted).toBe(true);
    expect(clientHeaders(calls[0]!)).toEqual(studioNoBody);
  });

  it("createAssistant: POST /v1/assistants", async () => {
    const calls = intercept(STUDIO, "POST", "/v1/assistants", json(200, ASSISTANT));
    const body = {
      assistantName: "helper",
      modelName: "owner/model",
      description: "d",
      instructions: "Be brief.",
      functionModel: { modelId: "m", temperature: 0.1, topP: 1 },
      responseModel: { modelId: "m", temperature: 0.2, topP: 0.9 },
      tools: [{ type: "function", function: { name: "f" } }],
      metadata: { a: "b" },
      userFilters: { team: "x" },
    };
    expect((await makeClient().createAssistant(body)).id).toBe("asst_1");
    expect(calls[0]?.body).toEqual(body);
    expect(clientHeaders(calls[0]!)).toEqual(studioJson);
  });

  it("getAssistant: GET /v1/assistants/{id}", async () => {
    const calls = intercept(STUDIO, "GET", "/v1/assistants/asst_1", json(200, ASSISTANT));
    expect((await makeClient().getAssistant("asst_1")).assistantName).toBe("helper");
    expect(clientHeaders(calls[0]!)).toEqual(studioNoBody);
  });

  it("listAssistants: GET /v1/assistants with query", async () => {
    const page = { object: "list", data: [ASSISTANT], hasMore: false };
    const calls = intercept(STUDIO, "GET", /^\/v1\/assistants\?/, json(200, page));
    await makeClient().listAssistants({ limit: 2, after: "asst_0" });
    const query = Object.fromEntries(new URL(calls[0]!.path, STUDIO).searchParams);
    expect(query).toEqual({ limit: "2", order: "asc", after: "asst_0" });
    expect(clientHeaders(calls[0]!)).toEqual(studioNoBody);
  });

  it("listDatasetThreadsMessages: POST with auth, datasetId, full page and order", async () => {
    const path = "/svc.dataset.ThreadDatasetService/ListThreadDatasetThreadsMessages";
    const answer = {
      threadsMessages: [{ threadId: "thread_1", messages: [MESSAGE], createdAt: "2024" }],
      page: { limit: 10, nextPageToken: "" },
    };
    const calls = intercept(STUDIO, "POST", path, json(200, answer));
    const res = await makeClient().listDatasetThreadsMessages({
      auth: { organization: "org", cluster: "c1" },
      datasetId: "ds_1",
      page: { limit: 10 },
      order: "desc",
    });
    expect(res.threadsMessages[0]?.messages[0]?.id).toBe("msg_1");
    expect(calls[0]?.body).toEqual({
      auth: { organization: "org", cluster: "c1" },
      datasetId: "ds_1",
      page: { limit: 10, prevPageToken: "", nextPageToken: "", totalPage: 0 },
      order: "desc",
    });
    expect(clientHeaders(calls[0]!)).toEqual(studioJson);
  });

  it("keeps fields the schemas do not name", async () => {
    intercept(STUDIO, "GET", "/v1/threads/thread_1", json(200, { ...THREAD, extra: { a: 1 } }));
    const thread = await makeClient().getThread("thread_1");
    expect(thread.extra).toEqual({ a: 1 });
  });
});

describe("header rules", () => {
  it("defaultHeaders and per-call headers are sent beside the key headers", async () => {
    const calls = intercept(STUDIO, "GET", "/v1/threads/thread_1", json(200, THREAD));
    const client = makeClient({ defaultHeaders: { "X-Team": "a" } });
    await client.getThread("thread_1", { headers: { "x-trace": "t1" } });
    const h = calls[0]!.headers;
    expect(h["x-team"]).toBe("a");
    expect(h["x-trace"]).toBe("t1");
    expect(h["x-service-key"]).toBe(KEY);
    expect(h.authorization).toBeUndefined();
  });

  it("a caller's key header is refused before anything is sent (never reaches the wire)", async () => {
    expect(() => makeClient({ defaultHeaders: { authorization: KEY } })).toThrow(
      StudioValidationError,
    );
    const client = makeClient();
    await expect(
      client.listPublicModels(undefined, { headers: { "X-Service-Key": KEY } }),
    ).rejects.toBeInstanceOf(StudioValidationError);
  });

  it("completions never carry X-Service-Key; studio calls never carry Authorization", async () => {
    const chat = intercept(PROXY, "POST", "/chat/completions", json(200, CHAT));
    const studio = intercept(STUDIO, "POST", "/v1/threads", json(200, THREAD));
    const client = makeClient({ orgId: "org" });
    await client.chatCompletion({ model: "o/m", messages: [] });
    await client.createThread({});
    expect(chat[0]!.headers["x-service-key"]).toBeUndefined();
    expect(studio[0]!.headers.authorization).toBeUndefined();
  });

  it("path prefixes of the addresses are kept and trailing slashes never give //", async () => {
    const calls = intercept(STUDIO, "GET", "/api/v1/threads/thread_1", json(200, THREAD));
    const chat = intercept(PROXY, "POST", "/inference/chat/completions", json(200, CHAT));
    const client = makeClient({ baseUrl: `${STUDIO}/api//`, proxyUrl: `${PROXY}/inference/` });
    await client.getThread("thread_1");
    await client.chatCompletion({ model: "o/m", messages: [] });
    expect(calls[0]!.path).toBe("/api/v1/threads/thread_1");
    expect(chat[0]!.path).toBe("/inference/chat/completions");
  });
});
