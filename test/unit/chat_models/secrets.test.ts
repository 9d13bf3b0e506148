/**
 * The API key never leaves through serialization, tracing metadata or params; retries happen in
 * the client only.
 */
import { inspect } from "node:util";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { load } from "@langchain/core/load";
import type { Serialized } from "@langchain/core/load/serializable";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ChatStudio } from "../../../src/chat_models";
import { StudioServerError } from "../../../src/errors";
import { StudioLLM } from "../../../src/llms";
import { completion, KEY, MODEL, newModel, ORIGIN, PATH, PROXY_URL, replyJson } from "./helpers";

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

describe("serialization", () => {
  it("JSON.stringify holds a secret reference, not the key, and no client", () => {
    const model = newModel({ temperature: 0.2, stopSequences: ["END"] });
    const json = JSON.stringify(model);
    expect(json).not.toContain(KEY);
    const parsed = JSON.parse(json) as {
      id: string[];
      kwargs: Record<string, unknown>;
    };
    expect(parsed.id).toEqual(["langchain", "chat_models", "studio", "ChatStudio"]);
    expect(parsed.kwargs.api_key).toEqual({ lc: 1, type: "secret", id: ["STUDIO_API_KEY"] });
    expect(parsed.kwargs.client).toBeUndefined();
    expect(parsed.kwargs).toMatchObject({ model: MODEL, temperature: 0.2, stop: ["END"] });
  });

  it("records the user's maxRetries, and a model revived from JSON keeps it", async () => {
    const fields = { apiKey: KEY, proxyUrl: PROXY_URL, maxRetries: 5 };
    for (const model of [new ChatStudio(MODEL, fields), new StudioLLM(MODEL, fields)]) {
      expect(model.lc_kwargs.maxRetries).toBe(5);
      const json = JSON.stringify(model);
      expect(JSON.parse(json).kwargs.max_retries).toBe(5);
      const revived = await load<ChatStudio | StudioLLM>(json, {
        secretsMap: { STUDIO_API_KEY: KEY },
        importMap: { chat_models__studio: { ChatStudio }, llms__studio: { StudioLLM } },
      });
      expect(revived).toBeInstanceOf(model.constructor);
      expect(revived.maxRetries).toBe(5);
      expect(revived.client.toJSON().maxRetries).toBe(5);
      expect(callerSettings(revived).maxRetries).toBe(0);
    }
  });

  it("a model without maxRetries records none (the client's default applies when revived)", () => {
    const model = new ChatStudio(MODEL, { apiKey: KEY, proxyUrl: PROXY_URL });
    expect(model.lc_kwargs).not.toHaveProperty("maxRetries");
    expect(JSON.parse(JSON.stringify(model)).kwargs).not.toHaveProperty("max_retries");
  });

  it("toJSON() and lc_kwargs hold no key", () => {
    const model = newModel();
    expect(JSON.stringify(model.toJSON())).not.toContain(KEY);
    expect(JSON.stringify(model.lc_kwargs)).not.toContain(KEY);
    expect(model.lc_kwargs.client).toBeUndefined();
  });

  it("no enumerable field but the secret-mapped apiKey holds the key", () => {
    const model = new ChatStudio({ model: MODEL, apiKey: KEY, proxyUrl: PROXY_URL });
    const holders = Object.entries(model)
      .filter(([name]) => name !== "apiKey")
      .filter(([, value]) => {
        try {
          return JSON.stringify(value ?? null).includes(KEY);
        } catch {
          return inspect(value, { depth: 6 }).includes(KEY);
        }
      })
      .map(([name]) => name);
    expect(holders).toEqual([]);
    expect(Object.keys(model)).not.toContain("client");
  });

  it("invocationParams, getLsParams and _identifyingParams hold no key", () => {
    const model = newModel({ temperature: 0.3, maxTokens: 9, stop: ["x"] });
    const options = {};
    expect(JSON.stringify(model.invocationParams(options))).not.toContain(KEY);
    expect(JSON.stringify(model._identifyingParams())).not.toContain(KEY);
    const ls = model.getLsParams(options);
    expect(JSON.stringify(ls)).not.toContain(KEY);
    expect(ls).toEqual({
      ls_provider: "studio",
      ls_model_type: "chat",
      ls_model_name: MODEL,
      ls_temperature: 0.3,
      ls_max_tokens: 9,
      ls_stop: ["x"],
    });
  });

  it("callback run metadata holds no key", async () => {
    const seen: unknown[] = [];
    class Recorder extends BaseCallbackHandler {
      name = "recorder";
      override handleChatModelStart(
        llm: Serialized,
        _messages: unknown,
        _runId: string,
        _parentRunId?: string,
        extraParams?: Record<string, unknown>,
        tags?: string[],
        metadata?: Record<string, unknown>,
      ): void {
        seen.push(llm, extraParams, tags, metadata);
      }
    }
    replyJson(completion());
    await newModel().invoke("hi", { callbacks: [new Recorder()] });
    expect(seen.length).toBe(4);
    const text = JSON.stringify(seen);
    expect(text).not.toContain(KEY);
    expect(text).toContain('"ls_provider":"studio"');
  });
});

/** The base class's AsyncCaller keeps these protected; tests read them to prove the setup. */
function callerSettings(model: ChatStudio | StudioLLM): {
  maxRetries: number;
  maxConcurrency: number;
} {
  return model.caller as unknown as { maxRetries: number; maxConcurrency: number };
}

describe("retries: one layer", () => {
  it("maxRetries 2 against an always-503 server: exactly 3 attempts", async () => {
    let attempts = 0;
    nock(ORIGIN)
      .post(PATH)
      .reply(() => {
        attempts++;
        return [503, { error: { message: "busy", type: "server_error" } }, { "retry-after": "0" }];
      })
      .persist();
    const model = newModel({ maxRetries: 2 });
    await expect(model.invoke("hi")).rejects.toBeInstanceOf(StudioServerError);
    expect(attempts).toBe(3);
  });

  it("maxRetries 0: one attempt; the model's AsyncCaller never retries", async () => {
    let attempts = 0;
    nock(ORIGIN)
      .post(PATH)
      .reply(() => {
        attempts++;
        return [503, { error: { message: "busy", type: "server_error" } }, { "retry-after": "0" }];
      })
      .persist();
    const model = newModel({ maxRetries: 0 });
    expect(callerSettings(model).maxRetries).toBe(0);
    await expect(model.invoke("hi")).rejects.toBeInstanceOf(StudioServerError);
    expect(attempts).toBe(1);
  });

  it("the model keeps the user's maxRetries and maxConcurrency", () => {
    const model = new ChatStudio({ model: MODEL, maxRetries: 4, maxConcurrency: 3 });
    expect(model.maxRetries).toBe(4);
    expect(callerSettings(model).maxRetries).toBe(0);
    expect(callerSettings(model).maxConcurrency).toBe(3);
  });
});
