/**
 * Deployments that name things differently (issue #23): the studio key header (`serviceKeyHeader`)
 * and what stands before the remote-call paths (`rpcPathPrefix`). Exact requests on the wire, the
 * key under no header of a call that must carry none, and bad values refused before sending.
 */
import { describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioValidationError } from "../../../src/errors";
import {
  type Captured,
  CHAT,
  failure,
  field,
  intercept,
  json,
  KEY,
  MODEL,
  makeClient,
  PROXY,
  STUDIO,
  THREAD,
  useNock,
} from "./helpers";

useNock();

const PAGE = { limit: 20, prevPageToken: "", nextPageToken: "", totalPage: 0 };
const MODELS = { models: [MODEL], page: PAGE };
const DATASET = { threadsMessages: [], page: PAGE };

/** Every header of the request that carries the key, by name. */
function keyHeaders(captured: Captured): string[] {
  return Object.entries(captured.headers)
    .filter(([, value]) => value.includes(KEY))
    .map(([name]) => name);
}

describe("serviceKeyHeader", () => {
  it("carries the key of studio calls under the deployment's name, and nowhere else", async () => {
    const thread = intercept(STUDIO, "GET", "/v1/threads/thread_1", json(200, THREAD));
    const created = intercept(STUDIO, "POST", "/v1/threads", json(200, THREAD));
    const chat = intercept(PROXY, "POST", "/chat/completions", json(200, CHAT));
    const models = intercept(STUDIO, "POST", "/svc.Studio/ListPublicModels", json(200, MODELS));
    const client = makeClient({ serviceKeyHeader: "X-Api-Key", orgId: "org_1" });
    await client.getThread("thread_1");
    await client.createThread({});
    await client.chatCompletion({ model: "o/m", messages: [] });
    await client.listPublicModels();

    for (const studio of [thread[0]!, created[0]!]) {
      expect(keyHeaders(studio)).toEqual(["x-api-key"]);
      expect(studio.headers["x-api-key"]).toBe(KEY);
      expect(studio.headers["x-service-key"]).toBeUndefined();
      expect(studio.headers["x-org-id"]).toBe("org_1");
    }
    // Completions keep the spec's Authorization; listing public models carries no key at all.
    expect(keyHeaders(chat[0]!)).toEqual(["authorization"]);
    expect(chat[0]!.headers["x-api-key"]).toBeUndefined();
    expect(keyHeaders(models[0]!)).toEqual([]);
    expect(models[0]!.headers["x-org-id"]).toBeUndefined();
  });

  it("may be Authorization, which then still stays off the listing of public models", async () => {
    const thread = intercept(STUDIO, "GET", "/v1/threads/thread_1", json(200, THREAD));
    const models = intercept(STUDIO, "POST", "/svc.Studio/ListPublicModels", json(200, MODELS));
    const client = makeClient({ serviceKeyHeader: "Authorization" });
    await client.getThread("thread_1");
    await client.listPublicModels();
    expect(keyHeaders(thread[0]!)).toEqual(["authorization"]);
    expect(keyHeaders(models[0]!)).toEqual([]);
  });

  it("defaults to the spec's X-Service-Key", async () => {
    const thread = intercept(STUDIO, "GET", "/v1/threads/thread_1", json(200, THREAD));
    await makeClient().getThread("thread_1");
    expect(keyHeaders(thread[0]!)).toEqual(["x-service-key"]);
    expect(makeClient().toJSON().serviceKeyHeader).toBe("x-service-key");
  });

  it.each([
    ["X Api Key", false],
    ["", false],
    ["X-Api-Key:", false],
    ["Content-Type", false],
    ["accept", false],
    ["User-Agent", false],
    ["X-Org-Id", false],
    ["Proxy-Authorization", false],
    ["proxy-anything", false],
    ["Cookie", false],
    ["Host", false],
    ["Connection", false],
    ["Sec-Token", false],
    [42, false],
    ["X-Api-Key", true],
    ["api-key", true],
    ["Grpc-Metadata-Service-Key", true],
    ["authorization", true],
  ])("%o is accepted: %s", (name, ok) => {
    expect(field(() => makeClient({ serviceKeyHeader: name as string }))).toBe(
      ok ? undefined : "serviceKeyHeader",
    );
  });

  it("is a credential header: defaultHeaders and per-call headers may not set it", async () => {
    expect(
      field(() =>
        makeClient({ serviceKeyHeader: "X-Api-Key", defaultHeaders: { "x-api-key": "other" } }),
      ),
    ).toBe("defaultHeaders");
    expect(
      field(() =>
        makeClient({ serviceKeyHeader: "x-api-key", defaultHeaders: { "X-API-KEY": "other" } }),
      ),
    ).toBe("defaultHeaders");
    // Refused before anything is sent (nock allows no request here).
    const client = makeClient({ serviceKeyHeader: "X-Api-Key" });
    const perCall = await failure(
      client.chatCompletion({ model: "o/m", messages: [] }, { headers: { "X-Api-Key": "k" } }),
    );
    expect(perCall).toBeInstanceOf(StudioValidationError);
    expect((perCall as StudioValidationError).field).toBe("headers");
    expect(perCall.message).toContain("apiKey");
    // The spec's name stays protected too.
    expect(field(() => makeClient({ defaultHeaders: { "X-Service-Key": "k" } }))).toBe(
      "defaultHeaders",
    );
  });
});

describe("rpcPathPrefix", () => {
  const DATASET_PATH = "svc.dataset.ThreadDatasetService/ListThreadDatasetThreadsMessages";

  it("stands before the remote-call paths only, after baseUrl's own path", async () => {
    const models = intercept(
      STUDIO,
      "POST",
      "/gateway/api/svc.Studio/ListPublicModels",
      json(200, MODELS),
    );
    const dataset = intercept(STUDIO, "POST", `/gateway/api/${DATASET_PATH}`, json(200, DATASET));
    const thread = intercept(STUDIO, "GET", "/gateway/v1/threads/thread_1", json(200, THREAD));
    const client = makeClient({ baseUrl: `${STUDIO}/gateway/`, rpcPathPrefix: "/api/" });
    await client.listPublicModels();
    await client.listDatasetThreadsMessages({ datasetId: "ds" });
    await client.getThread("thread_1");
    expect(models).toHaveLength(1);
    expect(dataset).toHaveLength(1);
    expect(thread).toHaveLength(1);
    expect(client.toJSON().rpcPathPrefix).toBe("/api/");
  });

  it("can be another package prefix", async () => {
    const models = intercept(STUDIO, "POST", "/acme.v1.svc.Studio/ListPublicModels", () => [
      200,
      MODELS,
    ]);
    const dataset = intercept(STUDIO, "POST", `/acme.v1.${DATASET_PATH}`, json(200, DATASET));
    const client = makeClient({ rpcPathPrefix: "/acme.v1." });
    await client.listPublicModels();
    await client.listDatasetThreadsMessages({ datasetId: "ds" });
    expect(models).toHaveLength(1);
    expect(dataset).toHaveLength(1);
  });

  it("defaults to the spec's paths", async () => {
    const models = intercept(STUDIO, "POST", "/svc.Studio/ListPublicModels", json(200, MODELS));
    await makeClient().listPublicModels();
    expect(models).toHaveLength(1);
    expect(makeClient().toJSON().rpcPathPrefix).toBe("/");
  });

  it.each([
    ["/", true],
    ["/api/", true],
    ["/acme.", true],
    ["/a/b.c/", true],
    ["/x_y~z-1.", true],
    ["", false],
    ["api/", false],
    ["/api", false],
    ["//", false],
    ["/api//", false],
    ["/../", false],
    ["/./", false],
    ["/a b/", false],
    ["/a?b/", false],
    ["/a%2F/", false],
    ["/a#/", false],
    [7, false],
  ])("%o is accepted: %s", (prefix, ok) => {
    expect(field(() => makeClient({ rpcPathPrefix: prefix as string }))).toBe(
      ok ? undefined : "rpcPathPrefix",
    );
  });

  it("a bad prefix is refused with the shape it must have", () => {
    expect(() => new StudioClient({ rpcPathPrefix: "/api" })).toThrow(
      /Invalid rpcPathPrefix: must be "\/" or a prefix/,
    );
  });
});
