/**
 * What LangChain itself passes must stay accepted now that unknown names are refused: the fields
 * core's model base classes take (`BaseChatModelParams`, `BaseLLMParams`, the same in core 1.2.3
 * to 1.4.0), what serialization writes and `load` revives, and a call config's keys, including
 * those LangGraph adds to the config it hands a node's model call.
 */
import { load } from "@langchain/core/load";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { ChatStudio } from "../../../src/chat_models";
import { StudioLLM } from "../../../src/llms";
import { completion, KEY, MODEL, newModel, PROXY_URL, replyJson } from "../chat_models/helpers";

afterEach(() => {
  nock.cleanAll();
});

const LANGCHAIN_FIELDS = {
  callbacks: [],
  verbose: false,
  tags: ["unit"],
  metadata: { app: "unit" },
  cache: false,
  maxConcurrency: 2,
  maxRetries: 1,
  onFailedAttempt: () => {},
  callbackManager: undefined,
};

/** Every setting and serialized client option, set to a value that is not its default. */
const SETTINGS = {
  maxTokens: 64,
  temperature: 0.3,
  topP: 0.9,
  n: 1,
  stopSequences: ["END"],
  presencePenalty: 0.1,
  frequencyPenalty: 0.2,
  penalty: 1.1,
  logitBias: { "50256": -100 },
  seed: 7,
  user: "u1",
  streaming: true,
  streamUsage: false,
  modelKwargs: { top_k: 5 },
  orgId: "org-1",
  baseUrl: "https://studio.test",
  proxyUrl: PROXY_URL,
  timeout: 5_000,
  streamIdleTimeout: 4_000,
  streamTimeout: 50_000,
  serviceKeyHeader: "X-Key",
  rpcPathPrefix: "/api/",
  connections: 4,
  maxResponseBytes: 1_000_000,
};

const importMap = { chat_models__studio: { ChatStudio }, llms__studio: { StudioLLM } };

describe("LangChain's own fields", () => {
  it("are accepted by both constructors (and a chat model's disableStreaming, outputVersion)", () => {
    expect(
      () =>
        new ChatStudio(MODEL, {
          ...LANGCHAIN_FIELDS,
          disableStreaming: true,
          outputVersion: "v1",
          profile: { toolCalling: true },
        }),
    ).not.toThrow();
    expect(() => new StudioLLM(MODEL, LANGCHAIN_FIELDS)).not.toThrow();
  });

  it("a model with every setting survives JSON.stringify and load", async () => {
    const fields = { apiKey: KEY, ...SETTINGS, ...LANGCHAIN_FIELDS };
    for (const model of [new ChatStudio(MODEL, fields), new StudioLLM(MODEL, fields)]) {
      const revived = await load<ChatStudio | StudioLLM>(JSON.stringify(model), {
        secretsMap: { STUDIO_API_KEY: KEY },
        importMap,
      });
      expect(revived).toBeInstanceOf(model.constructor);
      expect(revived.temperature).toBe(0.3);
      expect(revived.stop).toEqual(["END"]);
      expect(revived.modelKwargs).toEqual({ top_k: 5 });
      const kwargs = (m: unknown) => JSON.parse(JSON.stringify(m)).kwargs;
      expect(kwargs(revived)).toEqual(kwargs(model));
      expect(kwargs(model)).toMatchObject({ rpc_path_prefix: "/api/", connections: 4 });
    }
  });

  it("a call's config keys pass, LangGraph's included; a near miss of a setting does not", async () => {
    const { bodies } = replyJson(completion());
    const config = {
      callbacks: [],
      tags: ["t"],
      metadata: { m: 1 },
      runName: "r",
      configurable: { thread_id: "t1" },
      recursionLimit: 10,
      maxConcurrency: 1,
      runId: "0b2bb5b8-0000-4000-8000-000000000001",
      timeout: 5_000,
      signal: new AbortController().signal,
      store: {},
      writer: () => {},
      context: { userId: "u1" },
      temperature: 0.5,
    };
    await newModel().invoke("hi", config as never);
    expect(bodies[0]).toMatchObject({ temperature: 0.5 });
    await expect(newModel().invoke("hi", { temperatur: 0.5 } as never)).rejects.toThrow(
      'Invalid temperatur: is not a ChatStudio call option; did you mean "temperature"?',
    );
  });
});
