/**
 * The organization (`orgId` / STUDIO_ORG_ID) reaches every call that can carry it: `X-Org-Id` on
 * completions and on studio calls, `auth.organization` in the remote-call body that has an `auth`
 * object (listDatasetThreadsMessages) unless the caller gave its own `auth`. Without an
 * organization none of it is sent. Also the exact request of `deleteAssistant`.
 */
import { describe, expect, it } from "vitest";
import { VERSION } from "../../../src/client";
import { StudioNotFoundError } from "../../../src/errors";
import {
  CHAT,
  clientHeaders,
  collect,
  failure,
  intercept,
  json,
  KEY,
  makeClient,
  PROXY,
  STUDIO,
  THREAD,
  useNock,
} from "./helpers";

useNock();

const UA = `langchain-studio/${VERSION}`;
const DATASET_PATH = "/svc.dataset.ThreadDatasetService/ListThreadDatasetThreadsMessages";

const PAGE = { limit: 20, prevPageToken: "", nextPageToken: "", totalPage: 0 };

describe("X-Org-Id", () => {
  it("goes on studio calls (GET, POST, DELETE) and completions when an organization is set", async () => {
    const get = intercept(STUDIO, "GET", "/v1/threads/thread_1", json(200, THREAD));
    const post = intercept(STUDIO, "POST", "/v1/threads", json(200, THREAD));
    const del = intercept(STUDIO, "DELETE", "/v1/assistants/asst_1", () => [
      200,
      { id: "asst_1", object: "assistant.deleted", deleted: true },
    ]);
    const chat = intercept(PROXY, "POST", "/chat/completions", json(200, CHAT));
    const client = makeClient({ orgId: "org_7" });
    await client.getThread("thread_1");
    await client.createThread({});
    await client.deleteAssistant("asst_1");
    await client.chatCompletion({ model: "o/m", messages: [] });
    expect(clientHeaders(get[0]!)).toEqual({
      accept: "application/json",
      "user-agent": UA,
      "x-service-key": KEY,
      "x-org-id": "org_7",
    });
    expect(clientHeaders(post[0]!)).toEqual({
      accept: "application/json",
      "content-type": "application/json",
      "user-agent": UA,
      "x-service-key": KEY,
      "x-org-id": "org_7",
    });
    expect(clientHeaders(del[0]!)).toEqual(clientHeaders(get[0]!));
    expect(clientHeaders(chat[0]!)).toEqual({
      accept: "application/json",
      "content-type": "application/json",
      "user-agent": UA,
      authorization: KEY,
      "x-org-id": "org_7",
    });
  });

  it("never on listPublicModels (no credentials at all), nor anywhere without an organization", async () => {
    const models = intercept(
      STUDIO,
      "POST",
      "/svc.Studio/ListPublicModels",
      json(200, { models: [] }),
    );
    const get = intercept(STUDIO, "GET", "/v1/threads/thread_1", json(200, THREAD));
    const chat = intercept(PROXY, "POST", "/chat/completions", json(200, CHAT));
    await makeClient({ orgId: "org_7" }).listPublicModels();
    const plain = makeClient();
    await plain.getThread("thread_1");
    await plain.chatCompletion({ model: "o/m", messages: [] });
    expect(models[0]!.headers["x-org-id"]).toBeUndefined();
    expect(get[0]!.headers["x-org-id"]).toBeUndefined();
    expect(chat[0]!.headers["x-org-id"]).toBeUndefined();
  });
});

describe("auth.organization in listDatasetThreadsMessages", () => {
  it("is filled from the organization, with X-Org-Id as well", async () => {
    const calls = intercept(STUDIO, "POST", DATASET_PATH, json(200, { threadsMessages: [] }));
    await makeClient({ orgId: "org_7" }).listDatasetThreadsMessages({ datasetId: "ds" });
    expect(calls[0]!.body).toEqual({
      datasetId: "ds",
      auth: { organization: "org_7" },
      page: PAGE,
    });
    expect(calls[0]!.headers["x-org-id"]).toBe("org_7");
  });

  it("the caller's own auth object is sent as given", async () => {
    const calls = intercept(STUDIO, "POST", DATASET_PATH, json(200, { threadsMessages: [] }), 2);
    const client = makeClient({ orgId: "org_7" });
    await client.listDatasetThreadsMessages({
      datasetId: "ds",
      auth: { organization: "other", cluster: "c1" },
    });
    await client.listDatasetThreadsMessages({ datasetId: "ds", auth: { cluster: "c2" } });
    expect(calls.map((c) => c.body)).toEqual([
      { datasetId: "ds", auth: { organization: "other", cluster: "c1" }, page: PAGE },
      { datasetId: "ds", auth: { cluster: "c2" }, page: PAGE },
    ]);
  });

  it("is absent without an organization", async () => {
    const calls = intercept(STUDIO, "POST", DATASET_PATH, json(200, { threadsMessages: [] }));
    await makeClient().listDatasetThreadsMessages({ datasetId: "ds", order: "desc" });
    expect(calls[0]!.body).toEqual({ datasetId: "ds", order: "desc", page: PAGE });
  });

  it("every page of iterateDatasetThreadsMessages carries it", async () => {
    const answers = [
      { threadsMessages: [{ threadId: "t1", messages: [] }], page: { nextPageToken: "n2" } },
      { threadsMessages: [{ threadId: "t2", messages: [] }], page: { nextPageToken: "" } },
    ];
    const calls = intercept(STUDIO, "POST", DATASET_PATH, (n) => [200, answers[n - 1]], 2);
    const items = await collect(
      makeClient({ orgId: "org_7" }).iterateDatasetThreadsMessages({
        datasetId: "ds",
        pageSize: 1,
      }),
    );
    expect(items).toHaveLength(2);
    expect(calls.map((c) => c.body)).toEqual([
      { datasetId: "ds", auth: { organization: "org_7" }, page: { ...PAGE, limit: 1 } },
      {
        datasetId: "ds",
        auth: { organization: "org_7" },
        page: { ...PAGE, limit: 1, nextPageToken: "n2" },
      },
    ]);
  });
});

describe("deleteAssistant", () => {
  it("is DELETE {baseUrl}/v1/assistants/{id}: no body, X-Service-Key, the deletion returned", async () => {
    const calls = intercept(STUDIO, "DELETE", "/v1/assistants/asst%201", () => [
      200,
      { id: "asst 1", object: "assistant.deleted", deleted: true },
    ]);
    const result = await makeClient().deleteAssistant("asst 1");
    expect(result).toEqual({ id: "asst 1", object: "assistant.deleted", deleted: true });
    expect(calls[0]!.method).toBe("DELETE");
    expect(calls[0]!.body).toBeUndefined();
    expect(clientHeaders(calls[0]!)).toEqual({
      accept: "application/json",
      "user-agent": UA,
      "x-service-key": KEY,
    });
  });

  it("a 404 is a StudioNotFoundError naming the path", async () => {
    intercept(
      STUDIO,
      "DELETE",
      "/v1/assistants/gone",
      json(404, { error: { message: "no such assistant" } }),
    );
    const error = await failure(makeClient({ maxRetries: 0 }).deleteAssistant("gone"));
    expect(error).toBeInstanceOf(StudioNotFoundError);
    expect(error.message).toContain(
      "DELETE /v1/assistants/gone failed with status 404: no such assistant",
    );
  });
});
