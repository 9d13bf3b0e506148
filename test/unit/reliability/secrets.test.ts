/**
 * The API key never shows: not in any error (message, stack, JSON), not in any class instance
 * (JSON.stringify, util.inspect), not in what LangChain hands to callbacks and tracers. The key is
 * a distinctive string so that any leak, in any form, is found by a plain substring search.
 */
import { inspect } from "node:util";
import { InMemoryCache } from "@langchain/core/caches";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import nock from "nock";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { loadAssistantAgent } from "../../../src/agents";
import type { Assistant } from "../../../src/api-types";
import { createAssistant } from "../../../src/assistants";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import {
  StudioAPIError,
  StudioConnectionError,
  StudioError,
  StudioStreamError,
  StudioTimeoutError,
  StudioValidationError,
} from "../../../src/errors";
import { StudioLLM } from "../../../src/llms";
import { useOfflineNock } from "../../helpers/nock";

const KEY = "sk-live-SECRET-b7d1e4f09a2c";
const ORIGIN = "https://studio.test";
const BASE_URL = `${ORIGIN}/studio`;
const PROXY_URL = `${ORIGIN}/inference`;
const MODEL = "studio/echo-small";

useOfflineNock();

function client(extra: ConstructorParameters<typeof StudioClient>[0] = {}): StudioClient {
  return new StudioClient({
    fetch: globalThis.fetch,
    apiKey: KEY,
    baseUrl: BASE_URL,
    proxyUrl: PROXY_URL,
    maxRetries: 0,
    ...extra,
  });
}

/** Every way an error is commonly shown: message, stack, JSON, inspect, and its causes' text. */
function errorViews(error: unknown): string[] {
  const e = error as Error;
  const views = [
    String(e.message),
    String(e.stack),
    JSON.stringify(e),
    String(e),
    inspect(e, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    JSON.stringify((e as { body?: unknown }).body ?? null),
    JSON.stringify((e as { headers?: unknown }).headers ?? null),
  ];
  let cause: unknown = (e as { cause?: unknown }).cause;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth++) {
    views.push(cause.message);
    cause = (cause as { cause?: unknown }).cause;
  }
  return views;
}

function expectNoKey(error: unknown): void {
  expect(error).toBeInstanceOf(StudioError);
  for (const view of errorViews(error)) expect(view).not.toContain(KEY);
}

async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

const chatBody = { model: MODEL, messages: [{ role: "user" as const, content: "hi" }] };

describe("errors never hold the key", () => {
  // Servers that echo what they were sent are common (debug gateways, proxies).
  const echo = {
    error: { message: `invalid key ${KEY}`, type: "auth", code: "bad_key" },
    received: { authorization: KEY },
  };

  const statuses = [400, 401, 403, 404, 409, 422, 429, 500, 502, 503];
  for (const status of statuses) {
    it(`status ${status} with a body echoing the key`, async () => {
      nock(ORIGIN).post("/inference/chat/completions").reply(status, echo);
      const error = await caught(() => client().chatCompletion(chatBody));
      expect(error).toBeInstanceOf(StudioAPIError);
      expectNoKey(error);
      expect(JSON.stringify((error as StudioAPIError).body)).not.toContain(KEY);
    });
  }

  it("a non-JSON error page echoing the key", async () => {
    nock(ORIGIN)
      .get("/studio/v1/threads/t1")
      .reply(502, `<html><body>upstream refused X-Service-Key: ${KEY}</body></html>`);
    expectNoKey(await caught(() => client().getThread("t1")));
  });

  it("a 2xx of the wrong shape echoing the key", async () => {
    nock(ORIGIN).post("/inference/chat/completions").reply(200, `oops ${KEY}`);
    expectNoKey(await caught(() => client().chatCompletion(chatBody)));
  });

  it("a timeout", async () => {
    nock(ORIGIN).post("/inference/chat/completions").delay(2000).reply(200, {});
    const error = await caught(() => client({ timeout: 50 }).chatCompletion(chatBody));
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expectNoKey(error);
  });

  it("a connection error whose text carries the key", async () => {
    nock(ORIGIN)
      .post("/inference/chat/completions")
      .replyWithError({ code: "ECONNRESET", message: `socket hang up (auth ${KEY})` });
    const error = await caught(() => client().chatCompletion(chatBody));
    expect(error).toBeInstanceOf(StudioConnectionError);
    expectNoKey(error);
  });

  it("a refused connection (undici transport, nothing listening)", async () => {
    nock.enableNetConnect("127.0.0.1");
    const c = new StudioClient({ apiKey: KEY, proxyUrl: "http://127.0.0.1:9", maxRetries: 0 });
    try {
      expectNoKey(await caught(() => c.chatCompletion(chatBody)));
    } finally {
      await c.close();
      nock.disableNetConnect();
    }
  });

  it("a redirect", async () => {
    nock(ORIGIN)
      .post("/inference/chat/completions")
      .reply(307, "", { location: `https://evil.test/steal?key=${KEY}` });
    const error = await caught(() => client().chatCompletion(chatBody));
    expect(error).toBeInstanceOf(StudioAPIError);
    expectNoKey(error);
  });

  it("stream errors: an error event echoing the key, and a cut stream", async () => {
    nock(ORIGIN)
      .post("/inference/chat/completions")
      .reply(200, `data: {"error":{"message":"bad key ${KEY}"}}\n\n`, {
        "content-type": "text/event-stream",
      });
    const model = new ChatStudio({ model: MODEL, client: client() });
    const first = await caught(async () => {
      for await (const _ of await model.stream("hi")) {
        // reading until the error
      }
    });
    expect(first).toBeInstanceOf(StudioStreamError);
    expectNoKey(first);

    nock(ORIGIN)
      .post("/inference/chat/completions")
      .reply(
        200,
        `data: {"id":"c","choices":[{"index":0,"delta":{"content":"${KEY}"},"finish_reason":null}]}\n\n`,
        { "content-type": "text/event-stream" },
      );
    const cut = await caught(() =>
      new ChatStudio({ model: MODEL, client: client(), streaming: true }).invoke("hi"),
    );
    expect(cut).toBeInstanceOf(StudioStreamError);
    expectNoKey(cut);
  });

  it("validation errors, even when the bad value is the key itself", async () => {
    const errors = [
      await caught(() => new ChatStudio({ model: KEY, apiKey: KEY })),
      await caught(() => new StudioClient({ apiKey: KEY, baseUrl: `https://${KEY}@studio.test` })),
      await caught(() => new StudioClient({ apiKey: KEY, proxyUrl: KEY })),
      await caught(
        () => new StudioChatMessageHistory({ client: client(), metadata: { k: KEY.repeat(60) } }),
      ),
      await caught(() => client().chatCompletion({ ...chatBody, model: KEY })),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(StudioValidationError);
      expectNoKey(error);
    }
  });

  it("config errors", async () => {
    const c = new StudioClient({ apiKey: KEY, fetch: globalThis.fetch });
    expectNoKey(await caught(() => c.chatCompletion(chatBody)));
  });
});

describe("class instances never show the key", () => {
  const assistant: Assistant = {
    id: "asst_1",
    assistantName: "helper",
    modelName: MODEL,
    instructions: "Be brief.",
    functionModel: { modelId: MODEL, temperature: 0 },
    tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
  };
  const lookup = tool(async () => "found", {
    name: "lookup",
    description: "Looks up",
    schema: z.object({}),
  });

  const instances: [string, () => Promise<unknown> | unknown][] = [
    ["StudioClient", () => new StudioClient({ apiKey: KEY, baseUrl: BASE_URL })],
    [
      "ChatStudio built from apiKey",
      () => new ChatStudio({ model: MODEL, apiKey: KEY, proxyUrl: PROXY_URL }),
    ],
    ["ChatStudio given a client", () => new ChatStudio({ model: MODEL, client: client() })],
    [
      "ChatStudio with tools bound",
      () => new ChatStudio({ model: MODEL, apiKey: KEY, proxyUrl: PROXY_URL }).bindTools([lookup]),
    ],
    [
      "StudioLLM built from apiKey",
      () => new StudioLLM({ model: MODEL, apiKey: KEY, proxyUrl: PROXY_URL }),
    ],
    [
      "StudioChatMessageHistory built from apiKey",
      () => new StudioChatMessageHistory({ apiKey: KEY, baseUrl: BASE_URL, threadId: "t1" }),
    ],
    [
      "StudioChatMessageHistory given a client",
      () => new StudioChatMessageHistory({ client: client(), threadId: "t1" }),
    ],
    [
      "an assistant agent",
      () => loadAssistantAgent({ assistant, tools: [lookup], client: client() }),
    ],
  ];

  for (const [name, make] of instances) {
    it(`${name}: JSON.stringify and util.inspect`, async () => {
      const instance = await make();
      // A lazily built client must exist before looking, or it could hide a leak.
      (instance as { client?: unknown }).client;
      expect(JSON.stringify(instance)).not.toContain(KEY);
      expect(inspect(instance, { depth: 8 })).not.toContain(KEY);
      expect(String(instance)).not.toContain(KEY);
    });
  }

  it("a serialized model keeps a secret reference in place of the key", () => {
    for (const model of [
      new ChatStudio({ model: MODEL, apiKey: KEY, proxyUrl: PROXY_URL }),
      new StudioLLM({ model: MODEL, apiKey: KEY, proxyUrl: PROXY_URL }),
    ]) {
      const json = model.toJSON() as { kwargs?: Record<string, unknown> };
      expect(JSON.stringify(json)).not.toContain(KEY);
      expect(json.kwargs?.api_key ?? json.kwargs?.apiKey).toEqual({
        lc: 1,
        type: "secret",
        id: ["STUDIO_API_KEY"],
      });
    }
  });
});

describe("LangChain run metadata never holds the key", () => {
  class Recorder extends BaseCallbackHandler {
    name = "recorder";
    seen: unknown[] = [];
    override handleChatModelStart(...args: unknown[]) {
      this.seen.push(args);
    }
    override handleLLMStart(...args: unknown[]) {
      this.seen.push(args);
    }
    override handleLLMEnd(...args: unknown[]) {
      this.seen.push(args);
    }
    override handleLLMError(...args: unknown[]) {
      this.seen.push(args);
    }
  }

  function replyChat(times = 1) {
    nock(ORIGIN)
      .post("/inference/chat/completions")
      .times(times)
      .reply(200, {
        id: "c1",
        object: "chat.completion",
        created: 1,
        model: MODEL,
        choices: [
          { index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
  }

  it("ChatStudio: callbacks (serialized model, invocation params, ls metadata), params and cache keys", async () => {
    const recorder = new Recorder();
    const model = new ChatStudio({
      model: MODEL,
      apiKey: KEY,
      proxyUrl: PROXY_URL,
      temperature: 0.5,
      maxRetries: 0,
      callbacks: [recorder],
    });
    // The model's own client uses undici; route it through nock's fetch instead.
    const spied = new ChatStudio({
      model: MODEL,
      client: client(),
      temperature: 0.5,
      callbacks: [recorder],
      cache: new InMemoryCache(),
    });
    replyChat(1);
    await spied.invoke([new HumanMessage("hi")], { metadata: { user: "u1" } });
    nock(ORIGIN)
      .post("/inference/chat/completions")
      .reply(500, { error: { message: "boom" } });
    await spied.invoke("fail", { maxRetries: 0 } as never).catch(() => undefined);
    expect(recorder.seen.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(recorder.seen)).not.toContain(KEY);

    const options = { temperature: 1 } as never;
    for (const value of [
      model.invocationParams(options),
      model.getLsParams(options),
      model._identifyingParams(),
      model.toJSON(),
      model.lc_kwargs,
      model._getSerializedCacheKeyParametersForCall(options),
      spied._getSerializedCacheKeyParametersForCall(options),
    ]) {
      expect(JSON.stringify(value)).not.toContain(KEY);
    }
  });

  it("ChatStudio: streamEvents carry no key", async () => {
    nock(ORIGIN)
      .post("/inference/chat/completions")
      .reply(
        200,
        `data: {"id":"c","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`,
        { "content-type": "text/event-stream" },
      );
    const model = new ChatStudio({ model: MODEL, client: client() });
    const events: unknown[] = [];
    for await (const event of model.streamEvents("hi", { version: "v2" })) events.push(event);
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it("StudioLLM: callbacks, params and serialization", async () => {
    nock(ORIGIN)
      .post("/inference/text/completions")
      .reply(200, {
        id: "t1",
        object: "text_completion",
        created: 1,
        model: MODEL,
        choices: [{ index: 0, text: "ok", finish_reason: "stop" }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    const recorder = new Recorder();
    const llm = new StudioLLM({
      model: MODEL,
      client: client(),
      callbacks: [recorder],
    });
    await llm.invoke("hi");
    expect(recorder.seen.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(recorder.seen)).not.toContain(KEY);
    for (const value of [
      llm.invocationParams(),
      llm.getLsParams(),
      llm._identifyingParams(),
      llm.toJSON(),
      llm.lc_kwargs,
    ]) {
      expect(JSON.stringify(value)).not.toContain(KEY);
    }
  });

  it("assistants: the create request and what it returns hold no key outside the header", async () => {
    let body = "";
    nock(ORIGIN)
      .post("/studio/v1/assistants", (b: unknown) => {
        body = JSON.stringify(b);
        return true;
      })
      .reply(200, { id: "asst_1", assistantName: "a" });
    const created = await createAssistant({ assistantName: "a" }, { client: client() });
    expect(body).not.toContain(KEY);
    expect(JSON.stringify(created)).not.toContain(KEY);
  });
});
