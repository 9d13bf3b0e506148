/**
 * The agent-facing features of ChatStudio against the emulator: the profile read from the model
 * listing, structured output by json_schema (chosen from the profile, by ChatStudio and by
 * createAgent), streamed usage asked for with stream_options, and the summarization middleware
 * running on the local token estimate and the profile's context size.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { createAgent, summarizationMiddleware } from "langchain";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import { ChatStudio } from "../../../src/chat_models";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();
const models: ChatStudio[] = [];

function newModel(model = "studio/echo-large"): ChatStudio {
  const { apiKey, proxyUrl, baseUrl } = emulator.handle;
  const chat = new ChatStudio(model, { apiKey, proxyUrl, baseUrl });
  models.push(chat);
  return chat;
}

const chatBodies = () =>
  emulator.handle.requests
    .filter((r) => r.path.endsWith("/chat/completions"))
    .map((r) => r.body as Record<string, unknown>);

afterEach(() => {
  emulator.handle.clearRequests();
  vi.restoreAllMocks();
});
afterAll(async () => {
  await Promise.all(models.map((m) => m.client.close()));
});

const Person = z.object({ name: z.string(), age: z.number() });

describe("profile from the listing", () => {
  it("a model tagged tools declares tool calling and structured output, with its context size", async () => {
    const profile = await newModel().loadProfile();
    expect(profile).toMatchObject({
      toolCalling: true,
      toolChoice: true,
      structuredOutput: true,
      maxInputTokens: 8192,
      imageInputs: false,
    });
    expect((await newModel("studio/echo-text").loadProfile()).structuredOutput).toBe(false);
  });

  it("withStructuredOutput then defaults to json_schema, which the emulator answers", async () => {
    const model = newModel();
    await model.loadProfile();
    const parsed = await model
      .withStructuredOutput(Person)
      .invoke('Extract {"name": "Ada", "age": 36}');
    expect(parsed).toEqual({ name: "Ada", age: 36 });
    const body = chatBodies().at(-1);
    expect(body?.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "extract" },
    });
  });

  it("createAgent picks its provider strategy from the profile", async () => {
    const model = newModel();
    await model.loadProfile();
    const agent = createAgent({ model, tools: [], responseFormat: Person });
    const result = await agent.invoke({
      messages: [new HumanMessage('Who? {"name": "Grace", "age": 85}')],
    });
    expect(result.structuredResponse).toEqual({ name: "Grace", age: 85 });
    expect(chatBodies().at(-1)?.response_format).toMatchObject({ type: "json_schema" });
  });
});

describe("streamed usage", () => {
  it("asked for by default and delivered once; streamUsage: false asks for none", async () => {
    const model = newModel();
    const chunks = [];
    for await (const chunk of await model.stream("hello there")) chunks.push(chunk);
    expect(chatBodies()[0]?.stream_options).toEqual({ include_usage: true });
    expect(chunks.filter((c) => c.usage_metadata !== undefined)).toHaveLength(1);
    const plain = await model.invoke("hello there");
    expect(chunks.reduce((a, b) => a.concat(b)).usage_metadata).toEqual(plain.usage_metadata);

    emulator.handle.clearRequests();
    const quiet = [];
    for await (const chunk of await model.stream("hello", { streamUsage: false }))
      quiet.push(chunk);
    expect(chatBodies()[0]).not.toHaveProperty("stream_options");
    expect(quiet.every((c) => c.usage_metadata === undefined)).toBe(true);
  });
});

describe("summarization middleware", () => {
  it("counts tokens locally and reads the context size from the profile", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const model = newModel();
    await model.loadProfile();
    const agent = createAgent({
      model,
      tools: [],
      middleware: [
        summarizationMiddleware({ model, trigger: { fraction: 0.001 }, keep: { messages: 2 } }),
      ],
    });
    const history = [
      new HumanMessage("a".repeat(60)),
      new AIMessage("b".repeat(60)),
      new HumanMessage("c".repeat(60)),
      new AIMessage("d".repeat(60)),
      new HumanMessage("last question"),
    ];
    const result = await agent.invoke({ messages: history });
    const texts = result.messages.map((m) => String(m.content));
    expect(texts.some((t) => /summary/i.test(t))).toBe(true);
    expect(texts.at(-1)).toMatch(/You said: last question/);
    // Only the loopback emulator was called: no tokenizer download.
    for (const [input] of fetchSpy.mock.calls) {
      expect(String(input instanceof Request ? input.url : input)).toMatch(
        /^http:\/\/127\.0\.0\.1/,
      );
    }
  });
});
