/**
 * What LangChain's own checks, agents and users expect of a chat model (issue 14), and the
 * streaming rules of issues 12 and 13, on the wire through nock: constructors, configuration
 * errors, tracing params, offline token counts, response metadata, call options, structured
 * output methods, reasoning, streamed usage, and strict tool-call parsing of every final message.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { AIMessage, HumanMessage, SystemMessage, trimMessages } from "@langchain/core/messages";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { StudioConfigError } from "../../../src/errors";
import { StudioLLM } from "../../../src/llms";
import {
  completion,
  KEY,
  MODEL,
  modelListing,
  newModel,
  ORIGIN,
  PROXY_URL,
  replyJson,
  replyStream,
} from "./helpers";

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const base = { id: "chatcmpl-c", object: "chat.completion.chunk", created: 7, model: MODEL };
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  ...base,
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});

/** A handler that makes core's invoke take the streaming path (as LangGraph's "messages" mode). */
class TokenListener extends BaseCallbackHandler {
  name = "token-listener";
  lc_prefer_streaming = true;
  tokens: string[] = [];
  override async handleLLMNewToken(token: string): Promise<void> {
    this.tokens.push(token);
  }
}

describe("constructors", () => {
  it('new ChatStudio("owner/model") and ("owner/model", fields), same for StudioLLM', () => {
    const chat = new ChatStudio(MODEL, { temperature: 0.5, apiKey: KEY, proxyUrl: PROXY_URL });
    expect(chat.model).toBe(MODEL);
    expect(chat.temperature).toBe(0.5);
    expect(new ChatStudio(MODEL).model).toBe(MODEL);
    const llm = new StudioLLM("acme/text", { maxTokens: 9 });
    expect(llm.model).toBe("acme/text");
    expect(llm.maxTokens).toBe(9);
    expect(new StudioLLM({ model: "acme/text" }).model).toBe("acme/text");
  });

  it("a client and client options together are refused, naming both", () => {
    const client = new StudioClient({ apiKey: KEY, proxyUrl: PROXY_URL });
    for (const build of [
      () => new ChatStudio(MODEL, { client, timeout: 5 }),
      () => new StudioLLM(MODEL, { client, defaultHeaders: { "x-a": "1" } }),
    ]) {
      expect(build).toThrow(StudioConfigError);
      expect(build).toThrow(/"client" and "(timeout|defaultHeaders)"/);
    }
  });

  it("the configuration error names every missing setting at once and tells the addresses apart", async () => {
    for (const name of ["STUDIO_API_KEY", "STUDIO_PROXY_URL", "STUDIO_BASE_URL"]) {
      vi.stubEnv(name, "");
    }
    for (const model of [new ChatStudio(MODEL), new StudioLLM(MODEL)]) {
      const error = await model.invoke("hi").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StudioConfigError);
      const message = (error as Error).message;
      expect(message).toMatch(
        /missing proxyUrl \(the inference address for chat and text completions; env STUDIO_PROXY_URL\) and apiKey/,
      );
      expect(message).toMatch(/STUDIO_API_KEY/);
      expect(message).toMatch(
        /baseUrl, env STUDIO_BASE_URL, is the studio address for threads, assistants, models and datasets/,
      );
    }
    const onlyKey = await new ChatStudio(MODEL, { proxyUrl: PROXY_URL })
      .invoke("hi")
      .catch((e) => e);
    expect((onlyKey as StudioConfigError).option).toBe("apiKey");
    expect((onlyKey as Error).message).not.toMatch(/missing proxyUrl/);
  });
});

describe("getLsParams: every key, always, in both classes", () => {
  const keys = [
    "ls_provider",
    "ls_model_name",
    "ls_model_type",
    "ls_temperature",
    "ls_max_tokens",
    "ls_stop",
  ];

  it("unset settings are undefined, not missing", () => {
    const chat = new ChatStudio(MODEL).getLsParams({});
    expect(Object.keys(chat).sort()).toEqual([...keys].sort());
    expect(chat).toEqual({
      ls_provider: "studio",
      ls_model_name: MODEL,
      ls_model_type: "chat",
      ls_temperature: undefined,
      ls_max_tokens: undefined,
      ls_stop: undefined,
    });
    const llm = new StudioLLM(MODEL).getLsParams({});
    expect(Object.keys(llm).sort()).toEqual([...keys].sort());
    expect(llm.ls_model_type).toBe("llm");
  });

  it("built by the same merge as the body: call option ?? field", () => {
    const chat = new ChatStudio(MODEL, { temperature: 0.1, maxTokens: 5, stop: ["a"] });
    expect(chat.getLsParams({ temperature: 0.9, stop: ["b"] })).toMatchObject({
      ls_temperature: 0.9,
      ls_max_tokens: 5,
      ls_stop: ["b"],
    });
    const llm = new StudioLLM(MODEL, { maxTokens: 5 });
    expect(llm.getLsParams({ maxTokens: 7 }).ls_max_tokens).toBe(7);
  });
});

describe("token counts: a local estimate, never the network", () => {
  it("one token per four characters, at least one, in both classes", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const chat = new ChatStudio(MODEL);
    expect(await chat.getNumTokens("abcdefgh")).toBe(2);
    expect(await chat.getNumTokens("abcdefghi")).toBe(3);
    expect(await chat.getNumTokens("")).toBe(1);
    expect(await chat.getNumTokens([{ type: "text", text: "abcd" }])).toBe(1);
    expect(await new StudioLLM(MODEL).getNumTokens("abcdefgh")).toBe(2);
    const counts = await chat.getNumTokensFromMessages([
      new HumanMessage("abcdefgh"),
      new AIMessage({ content: "", tool_calls: [{ id: "c", name: "f", args: { a: 1 } }] }),
    ]);
    expect(counts).toEqual({ totalCount: 4, countPerMessage: [2, 2] });
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("trimMessages with the model as token counter runs offline", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const messages = [
      new SystemMessage("be brief"),
      new HumanMessage("a".repeat(40)),
      new AIMessage("b".repeat(40)),
      new HumanMessage("c".repeat(8)),
    ];
    const trimmed = await trimMessages(messages, {
      maxTokens: 6,
      tokenCounter: new ChatStudio(MODEL),
      strategy: "last",
      includeSystem: true,
    });
    expect(trimmed.map((m) => m.content)).toEqual(["be brief", "cccccccc"]);
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});

describe("response metadata", () => {
  it("invoke, the final stream chunk and the event stream name the model", async () => {
    replyJson(completion());
    const reply = await newModel().invoke("hi");
    expect(reply.response_metadata).toMatchObject({
      model: MODEL,
      model_name: MODEL,
      model_provider: "studio",
      finish_reason: "stop",
    });
    replyStream([delta({ content: "a" }), delta({}, "stop")]);
    const chunks = [];
    for await (const chunk of await newModel().stream("hi")) chunks.push(chunk);
    expect(chunks.at(-1)?.response_metadata).toMatchObject({
      model: MODEL,
      model_name: MODEL,
      finish_reason: "stop",
    });
    replyStream([delta({ content: "a" }), delta({}, "stop")]);
    const message = await newModel().streamEvents("hi");
    expect(message.response_metadata).toMatchObject({ model: MODEL, model_name: MODEL });
  });
});

describe("call options: sent only when set", () => {
  it("nothing extra by default", async () => {
    const { bodies } = replyJson(completion());
    await newModel().invoke("hi");
    for (const key of [
      "parallel_tool_calls",
      "seed",
      "user",
      "response_format",
      "stream_options",
    ]) {
      expect(bodies[0]).not.toHaveProperty(key);
    }
  });

  it("seed, user, parallel_tool_calls, strict (bindTools) and response_format", async () => {
    const { bodies } = replyJson(completion());
    const tool = { name: "f", description: "d", schema: z.object({ a: z.number() }) };
    await newModel({ seed: 1, user: "u-1" })
      .bindTools([tool], { strict: true, parallel_tool_calls: false })
      .invoke("hi", { seed: 2, response_format: { type: "json_object" } });
    expect(bodies[0]).toMatchObject({
      seed: 2,
      user: "u-1",
      parallel_tool_calls: false,
      response_format: { type: "json_object" },
    });
    const tools = bodies[0]?.tools as { function: { strict?: boolean } }[];
    expect(tools[0]?.function.strict).toBe(true);
  });
});

describe("withStructuredOutput methods", () => {
  const Person = z.object({ name: z.string(), age: z.number() }).describe("A person");

  it("jsonSchema sends response_format json_schema {name, schema, strict} and parses the content", async () => {
    const { bodies } = replyJson(
      completion({
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: '{"name":"Ada","age":36}' },
            finish_reason: "stop",
          },
        ],
      }),
    );
    const parsed = await newModel()
      .withStructuredOutput(Person, { method: "jsonSchema", name: "person", strict: true })
      .invoke("Ada, 36");
    expect(parsed).toEqual({ name: "Ada", age: 36 });
    expect(bodies[0]?.response_format).toEqual({
      type: "json_schema",
      json_schema: {
        name: "person",
        description: "A person",
        schema: expect.objectContaining({ type: "object", required: ["name", "age"] }),
        strict: true,
      },
    });
    expect(bodies[0]).not.toHaveProperty("tools");
  });

  it("strict is honoured for functionCalling", async () => {
    const { bodies } = replyJson(completion());
    await newModel()
      .withStructuredOutput(Person, { method: "functionCalling", strict: true, includeRaw: true })
      .invoke("x");
    const tools = bodies[0]?.tools as { function: { strict?: boolean } }[];
    expect(tools[0]?.function.strict).toBe(true);
  });

  it("the default method comes from the profile", async () => {
    const viaProfile = replyJson(completion());
    await newModel({ profile: { structuredOutput: true } })
      .withStructuredOutput(Person, { includeRaw: true })
      .invoke("x");
    expect(viaProfile.bodies[0]?.response_format).toMatchObject({ type: "json_schema" });
    const viaTools = replyJson(completion());
    await newModel().withStructuredOutput(Person, { includeRaw: true }).invoke("x");
    expect(viaTools.bodies[0]).toHaveProperty("tools");
    expect(viaTools.bodies[0]).not.toHaveProperty("response_format");
  });
});

describe("profile", () => {
  const listing = modelListing;

  function replyListing(): { count: () => number } {
    let count = 0;
    nock(ORIGIN)
      .post("/studio/svc.Studio/ListPublicModels")
      .reply(() => {
        count++;
        return [200, listing];
      })
      .persist();
    return { count: () => count };
  }

  it("{} before loading; the override before and over the listing; one read per client", async () => {
    const calls = replyListing();
    const client = new StudioClient({ fetch: globalThis.fetch, baseUrl: `${ORIGIN}/studio` });
    const model = new ChatStudio(MODEL, { client });
    expect(model.profile).toEqual({});
    const withOverride = new ChatStudio(MODEL, { client, profile: { maxInputTokens: 100 } });
    expect(withOverride.profile).toEqual({ maxInputTokens: 100 });
    const loaded = await model.loadProfile();
    expect(loaded).toEqual({
      toolCalling: true,
      toolChoice: true,
      structuredOutput: true,
      maxInputTokens: 32768,
      imageInputs: false,
      imageUrlInputs: false,
      audioInputs: false,
      videoInputs: false,
      midConversationSystemMessages: true,
      midConversationTools: false,
    });
    expect(model.profile).toEqual(loaded);
    expect((await withOverride.loadProfile()).maxInputTokens).toBe(100);
    expect(withOverride.profile.toolCalling).toBe(true);
    expect(calls.count()).toBe(1);
  });

  it("midConversationSystemMessages: a system message after the first turn is sent where it sits", async () => {
    replyListing();
    const client = new StudioClient({
      fetch: globalThis.fetch,
      baseUrl: `${ORIGIN}/studio`,
      proxyUrl: PROXY_URL,
      apiKey: KEY,
      maxRetries: 0,
    });
    const model = new ChatStudio(MODEL, { client });
    expect((await model.loadProfile()).midConversationSystemMessages).toBe(true);
    const { bodies } = replyJson(completion());
    await model.invoke([
      new SystemMessage("Be brief."),
      new HumanMessage("hi"),
      new AIMessage("hello"),
      new SystemMessage("From now on, answer in French."),
      new HumanMessage("and now?"),
    ]);
    expect(bodies[0]?.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "system", content: "From now on, answer in French." },
      { role: "user", content: "and now?" },
    ]);
  });

  it("a model missing from the listing has an empty profile", async () => {
    replyListing();
    const client = new StudioClient({ fetch: globalThis.fetch, baseUrl: `${ORIGIN}/studio` });
    expect(await new ChatStudio("other/model", { client }).loadProfile()).toEqual({});
  });
});

describe("reasoning", () => {
  it("streamed reasoning ends up in additional_kwargs and a reasoning block, never the text", async () => {
    replyStream([
      delta({ reasoning_content: "Six " }),
      delta({ reasoning_content: "times seven." }),
      delta({ content: "42" }),
      delta({}, "stop"),
    ]);
    const message = await newModel({ streaming: true }).invoke("6*7?");
    expect(message.text).toBe("42");
    expect(message.additional_kwargs.reasoning_content).toBe("Six times seven.");
    expect(message.contentBlocks).toEqual([
      { type: "reasoning", reasoning: "Six times seven." },
      { type: "text", text: "42" },
    ]);
  });

  it("an AI message's reasoning is sent back on the next turn", async () => {
    const { bodies } = replyJson(completion());
    const previous = new AIMessage({
      content: "",
      additional_kwargs: { reasoning_content: "I need the weather." },
      tool_calls: [{ id: "c1", name: "get_weather", args: { city: "Paris" } }],
    });
    await newModel().invoke([new HumanMessage("weather?"), previous]);
    const messages = bodies[0]?.messages as Record<string, unknown>[];
    expect(messages[1]).toMatchObject({
      role: "assistant",
      reasoning_content: "I need the weather.",
    });
  });
});

describe("streamed usage", () => {
  it("streams ask for usage by default; streamUsage: false asks for nothing", async () => {
    const on = replyStream([delta({ content: "a" }), delta({}, "stop")]);
    for await (const _ of await newModel().stream("hi")) {
      // drain
    }
    expect(on.bodies[0]?.stream_options).toEqual({ include_usage: true });
    const off = replyStream([delta({ content: "a" }), delta({}, "stop")]);
    for await (const _ of await newModel({ streamUsage: false }).stream("hi")) {
      // drain
    }
    expect(off.bodies[0]).not.toHaveProperty("stream_options");
    const perCall = replyStream([delta({ content: "a" }), delta({}, "stop")]);
    for await (const _ of await newModel().stream("hi", { streamUsage: false })) {
      // drain
    }
    expect(perCall.bodies[0]).not.toHaveProperty("stream_options");
  });

  it("a running total on every chunk: the last is kept and emitted once, never summed", async () => {
    const usage = (completion_tokens: number) => ({
      prompt_tokens: 4,
      completion_tokens,
      total_tokens: 4 + completion_tokens,
    });
    replyStream([
      { ...delta({ content: "a" }), usage: usage(1) },
      { ...delta({ content: "b" }), usage: usage(2) },
      { ...delta({}, "stop"), usage: usage(2) },
    ]);
    const chunks = [];
    for await (const chunk of await newModel().stream("hi")) chunks.push(chunk);
    expect(chunks.filter((c) => c.usage_metadata !== undefined)).toHaveLength(1);
    const full = chunks.reduce((a, b) => a.concat(b));
    expect(full.usage_metadata).toEqual({ input_tokens: 4, output_tokens: 2, total_tokens: 6 });
  });
});

describe("final messages parse tool-call arguments strictly, streamed or not", () => {
  const truncated = [
    delta({
      tool_calls: [
        {
          index: 0,
          id: "c1",
          type: "function",
          function: { name: "extract", arguments: '{"name": "Ada", "age": 3' },
        },
      ],
    }),
    delta({}, "length"),
  ];
  const Person = z.object({ name: z.string(), age: z.number() });

  it("invoke with a streaming callback: truncated arguments are an invalid call", async () => {
    replyStream(truncated);
    const listener = new TokenListener();
    const message = await newModel().invoke("x", { callbacks: [listener] });
    expect(message.tool_calls).toEqual([]);
    expect(message.invalid_tool_calls).toMatchObject([
      { id: "c1", name: "extract", args: '{"name": "Ada", "age": 3' },
    ]);
  });

  it("streaming: true and the event stream agree", async () => {
    replyStream(truncated);
    const streamed = await newModel({ streaming: true }).invoke("x");
    expect(streamed.tool_calls).toEqual([]);
    expect(streamed.invalid_tool_calls).toHaveLength(1);
    replyStream(truncated);
    const evented = await newModel().streamEvents("x");
    // Core's event stream assembles v1 content blocks: the call is an invalid_tool_call block.
    expect(evented.tool_calls ?? []).toEqual([]);
    expect(evented.content).toMatchObject([{ type: "invalid_tool_call", id: "c1" }]);
  });

  it("structured output raises its parsing error, or gives parsed: null with includeRaw", async () => {
    replyStream(truncated);
    const strict = newModel().withStructuredOutput(Person, {
      name: "extract",
      method: "functionCalling",
    });
    await expect(strict.invoke("x", { callbacks: [new TokenListener()] })).rejects.toThrow(
      /not valid JSON|extract/,
    );
    replyStream(truncated);
    const raw = await newModel()
      .withStructuredOutput(Person, {
        name: "extract",
        method: "functionCalling",
        includeRaw: true,
      })
      .invoke("x", { callbacks: [new TokenListener()] });
    expect(raw.parsed).toBeNull();
  });

  it(".stream() consumers see arguments grow through core's partial parse", async () => {
    replyStream([
      delta({
        tool_calls: [
          {
            index: 0,
            id: "c1",
            type: "function",
            function: { name: "f", arguments: '{"city": "Par' },
          },
        ],
      }),
      delta({ tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] }),
      delta({}, "tool_calls"),
    ]);
    const chunks = [];
    for await (const chunk of await newModel().stream("x")) chunks.push(chunk);
    expect(chunks[0]?.tool_call_chunks?.[0]).toMatchObject({ args: '{"city": "Par', index: 0 });
    expect(chunks[0]?.tool_calls?.[0]?.args).toEqual({ city: "Par" });
    const full = chunks.reduce((a, b) => a.concat(b));
    expect(full.tool_calls).toEqual([
      { id: "c1", name: "f", args: { city: "Paris" }, type: "tool_call" },
    ]);
  });
});
