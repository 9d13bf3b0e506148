/**
 * ChatStudio against the emulator (a real HTTP server on loopback, scripted model): every way a
 * LangChain user calls a chat model.
 */
import { InMemoryCache } from "@langchain/core/caches";
import { InMemoryChatMessageHistory } from "@langchain/core/chat_history";
import {
  type AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  type ToolMessage,
} from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z as z3 } from "zod/v3";
import { z } from "zod/v4";
import { ChatStudio, type ChatStudioInput } from "../../../src/chat_models";
import { StudioServerError, StudioStreamError } from "../../../src/errors";
import { useEmulator } from "../../helpers/emulator";
import { useInstantRetries } from "../../unit/client/retry-clock";

const MODEL = "studio/echo-small";
const emulator = useEmulator();
// The pauses between retries pass on the retry clock, at once, and are recorded.
const clock = useInstantRetries();
const models: ChatStudio[] = [];

function newModel(fields: Partial<ChatStudioInput> = {}): ChatStudio {
  const { apiKey, proxyUrl } = emulator.handle;
  const model = new ChatStudio({ model: MODEL, apiKey, proxyUrl, ...fields });
  models.push(model);
  return model;
}

afterEach(() => {
  emulator.handle.setFaults(undefined);
});
afterAll(async () => {
  await Promise.all(models.map((m) => m.client.close()));
});

function chatRequests(): number {
  return emulator.handle.requests.filter((r) => r.path.endsWith("/chat/completions")).length;
}

async function streamAll(stream: AsyncIterable<AIMessageChunk>): Promise<AIMessageChunk[]> {
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

function concatAll(chunks: AIMessageChunk[]): AIMessageChunk {
  return chunks.reduce((a, b) => a.concat(b));
}

const getWeather = tool(async ({ city }) => `sunny in ${city}`, {
  name: "get_weather",
  description: "Current weather of a city",
  schema: z.object({ city: z.string() }),
});

describe("invoke and batch", () => {
  it("invoke returns the scripted reply with metadata and usage", async () => {
    const reply = await newModel().invoke("hello there");
    expect(reply.content).toBe("You said: hello there");
    expect(reply.id).toMatch(/^chatcmpl-/);
    expect(reply.response_metadata).toMatchObject({
      model_provider: "studio",
      model_name: MODEL,
      finish_reason: "stop",
      id: reply.id,
    });
    expect(typeof reply.response_metadata.created).toBe("number");
    expect(reply.usage_metadata?.input_tokens).toBeGreaterThan(0);
    expect(reply.usage_metadata?.total_tokens).toBe(
      (reply.usage_metadata?.input_tokens ?? 0) + (reply.usage_metadata?.output_tokens ?? 0),
    );
  });

  it("a system message prefixes the reply", async () => {
    const reply = await newModel().invoke([new SystemMessage("Be terse"), new HumanMessage("hi")]);
    expect(reply.content).toBe("[Be terse] You said: hi");
  });

  it("batch keeps the order of its inputs", async () => {
    const replies = await newModel().batch(["one", "two", "three"]);
    expect(replies.map((r) => r.content)).toEqual([
      "You said: one",
      "You said: two",
      "You said: three",
    ]);
  });

  it("batch respects maxConcurrency", async () => {
    const replies = await newModel({ maxConcurrency: 1 }).batch(["a", "b"], { maxConcurrency: 1 });
    expect(replies.map((r) => r.content)).toEqual(["You said: a", "You said: b"]);
  });

  it("a prompt template piped into the model", async () => {
    const prompt = ChatPromptTemplate.fromMessages([
      ["system", "Translate to {language}"],
      ["human", "{text}"],
    ]);
    const reply = await prompt.pipe(newModel()).invoke({ language: "French", text: "good day" });
    expect(reply.content).toBe("[Translate to French] You said: good day");
  });
});

describe("sampling options the emulator acts on", () => {
  it("stop sequences cut the reply", async () => {
    const reply = await newModel({ stop: ["three"] }).invoke("one two three four");
    expect(reply.content).toBe("You said: one two ");
    expect(reply.response_metadata.finish_reason).toBe("stop");
    const streamed = concatAll(
      await streamAll(await newModel().stream("one two three", { stop: ["two"] })),
    );
    expect(streamed.content).toBe("You said: one ");
  });

  it("maxTokens truncates with finish reason length", async () => {
    const reply = await newModel({ maxTokens: 3 }).invoke("one two three four");
    expect(reply.content).toBe("You said:");
    expect(reply.response_metadata.finish_reason).toBe("length");
  });

  it("n > 1 gives n generations, invoked or streamed", async () => {
    for (const streaming of [false, true]) {
      const result = await newModel({ n: 3, streaming }).generate([[new HumanMessage("many")]]);
      const generations = result.generations[0] ?? [];
      expect(generations.map((g) => g.text)).toEqual([
        "You said: many",
        "You said: many",
        "You said: many",
      ]);
    }
  });
});

describe("usage metadata", () => {
  it("plain and streamed give the same counts", async () => {
    const plain = await newModel().invoke("count my tokens please");
    const streamed = concatAll(await streamAll(await newModel().stream("count my tokens please")));
    expect(plain.usage_metadata).toEqual({
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
      total_tokens: expect.any(Number),
    });
    expect(streamed.usage_metadata).toMatchObject(plain.usage_metadata ?? {});
  });

  it("streamUsage: false streams without usage", async () => {
    const streamed = concatAll(
      await streamAll(await newModel({ streamUsage: false }).stream("hi")),
    );
    expect(streamed.usage_metadata).toBeUndefined();
  });
});

describe("streaming", () => {
  it("stream chunks concatenate to the invoke result (text)", async () => {
    const invoked = await newModel().invoke("tell me a story about the sea");
    const chunks = await streamAll(await newModel().stream("tell me a story about the sea"));
    expect(chunks.length).toBeGreaterThan(5);
    const streamed = concatAll(chunks);
    expect(streamed.content).toBe(invoked.content);
    expect(streamed.response_metadata).toMatchObject({
      model_provider: "studio",
      model_name: MODEL,
      finish_reason: "stop",
    });
    expect(streamed.usage_metadata).toMatchObject(invoked.usage_metadata ?? {});
  });

  it("tool-call chunks concatenate to the invoke result's tool calls", async () => {
    const bound = newModel().bindTools([getWeather]);
    const question = 'use get_weather for {"city": "Paris"}';
    const invoked = (await bound.invoke(question)) as AIMessage;
    const chunks = await streamAll(await bound.stream(question));
    // The arguments arrive in several fragments, each its own chunk.
    expect(chunks.filter((c) => (c.tool_call_chunks?.length ?? 0) > 0).length).toBeGreaterThan(1);
    const streamed = concatAll(chunks);
    expect(invoked.tool_calls).toHaveLength(1);
    expect(streamed.tool_calls?.map(({ name, args }) => ({ name, args }))).toEqual(
      invoked.tool_calls?.map(({ name, args }) => ({ name, args })),
    );
    expect(streamed.tool_calls?.[0]?.args).toEqual({ city: "Paris" });
    expect(streamed.response_metadata.finish_reason).toBe("tool_calls");
  });

  it("streaming: true makes invoke stream under the hood", async () => {
    emulator.handle.clearRequests();
    const reply = await newModel({ streaming: true }).invoke("stream me");
    expect(reply.content).toBe("You said: stream me");
    expect(reply.usage_metadata?.total_tokens).toBeGreaterThan(0);
    expect(emulator.handle.requests.at(-1)?.body).toMatchObject({ stream: true });
  });

  it("streamEvents (v2): start, one stream event per chunk, end; texts match", async () => {
    const model = newModel();
    const final = await model.invoke("events please");
    let streamed = "";
    const kinds: string[] = [];
    let endText: string | undefined;
    for await (const event of model.streamEvents("events please", { version: "v2" })) {
      kinds.push(event.event);
      if (event.event === "on_chat_model_stream") {
        streamed += (event.data.chunk as AIMessageChunk).text;
      }
      if (event.event === "on_chat_model_end") endText = (event.data.output as AIMessageChunk).text;
    }
    expect(kinds[0]).toBe("on_chat_model_start");
    expect(kinds.at(-1)).toBe("on_chat_model_end");
    expect(kinds.filter((k) => k === "on_chat_model_stream").length).toBeGreaterThan(2);
    expect(streamed).toBe(final.content);
    expect(endText).toBe(final.content);
  });

  it("streamEvents (content blocks): message start/finish and text matching the message", async () => {
    const model = newModel();
    const final = await model.invoke("blocks please");
    const stream = model.streamEvents("blocks please");
    const kinds: string[] = [];
    for await (const event of stream) kinds.push(event.event);
    expect(kinds[0]).toBe("message-start");
    expect(kinds.at(-1)).toBe("message-finish");
    expect(await stream.text).toBe(final.content);
    const output = await stream.output;
    expect(output.response_metadata).toMatchObject({ model_provider: "studio", model_name: MODEL });
    expect(output.usage_metadata).toMatchObject(final.usage_metadata ?? {});
  });

  it("a cut stream raises StudioStreamError, never a shorter answer", async () => {
    emulator.handle.setFaults({ streamCut: 1, match: "/chat/completions" });
    const model = newModel({ maxRetries: 0 });
    await expect(
      streamAll(await model.stream("a long answer that will be cut")),
    ).rejects.toBeInstanceOf(StudioStreamError);
    await expect(
      newModel({ maxRetries: 0, streaming: true }).invoke("cut me"),
    ).rejects.toBeInstanceOf(StudioStreamError);
  });
});

describe("tools and structured output", () => {
  it("tool round trip: AI tool calls, tool messages back, final answer", async () => {
    const bound = newModel().bindTools([getWeather]);
    const messages: BaseMessage[] = [
      new HumanMessage('What is the weather? Use get_weather {"city": "Oslo"}'),
    ];
    const first = (await bound.invoke(messages)) as AIMessage;
    expect(first.tool_calls).toEqual([
      { id: expect.any(String), name: "get_weather", args: { city: "Oslo" }, type: "tool_call" },
    ]);
    messages.push(first);
    for (const call of first.tool_calls ?? []) {
      const result = (await getWeather.invoke(call)) as ToolMessage;
      expect(result.tool_call_id).toBe(call.id);
      messages.push(result);
    }
    const final = await bound.invoke(messages);
    expect(final.content).toBe("Tool said: sunny in Oslo");
    expect(final.response_metadata.finish_reason).toBe("stop");
    const sent = emulator.handle.requests.at(-1)?.body as { messages: { role: string }[] };
    expect(sent.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("tool_choice forces a named tool", async () => {
    const bound = newModel().bindTools([getWeather], { tool_choice: "get_weather" });
    const reply = (await bound.invoke("no hint here")) as AIMessage;
    expect(reply.tool_calls?.[0]).toMatchObject({ name: "get_weather", args: { city: "x" } });
  });

  it("structured output, functionCalling, zod v4 and v3", async () => {
    const text = 'Extract: {"title": "Up", "year": 2009}';
    const v4 = z.object({ title: z.string(), year: z.number() });
    const v3 = z3.object({ title: z3.string(), year: z3.number() });
    expect(await newModel().withStructuredOutput(v4, { name: "movie" }).invoke(text)).toEqual({
      title: "Up",
      year: 2009,
    });
    expect(await newModel().withStructuredOutput(v3, { name: "movie" }).invoke(text)).toEqual({
      title: "Up",
      year: 2009,
    });
  });

  it("structured output, jsonMode with a JSON schema, and includeRaw", async () => {
    const schema = {
      type: "object",
      properties: { title: { type: "string" }, year: { type: "number" } },
      required: ["title", "year"],
    };
    const text = 'Answer in JSON: {"title": "Up", "year": 2009}';
    const result = await newModel()
      .withStructuredOutput(schema, { method: "jsonMode", includeRaw: true })
      .invoke(text);
    expect(result.parsed).toEqual({ title: "Up", year: 2009 });
    expect(result.raw.content).toBe('{"title": "Up", "year": 2009}');
  });

  it("structured output that does not match: error, or parsed null with includeRaw", async () => {
    const schema = z.object({ title: z.string(), year: z.number() });
    const text = 'Extract: {"title": "Up", "year": "long ago"}';
    await expect(newModel().withStructuredOutput(schema).invoke(text)).rejects.toThrow(/year/);
    const result = (await newModel()
      .withStructuredOutput(schema, { includeRaw: true })
      .invoke(text)) as {
      parsed: unknown;
      parsingError?: unknown;
    };
    expect(result.parsed).toBeNull();
    expect(String(result.parsingError)).toMatch(/year/);
  });
});

describe("LangChain integrations", () => {
  it("RunnableWithMessageHistory with an in-memory history", async () => {
    const histories = new Map<string, InMemoryChatMessageHistory>();
    const prompt = ChatPromptTemplate.fromMessages([
      new MessagesPlaceholder("history"),
      ["human", "{input}"],
    ]);
    const chain = new RunnableWithMessageHistory({
      runnable: prompt.pipe(newModel()),
      getMessageHistory: (sessionId: string) => {
        let history = histories.get(sessionId);
        if (!history) {
          history = new InMemoryChatMessageHistory();
          histories.set(sessionId, history);
        }
        return history;
      },
      inputMessagesKey: "input",
      historyMessagesKey: "history",
    });
    const config = { configurable: { sessionId: "s1" } };
    const first = await chain.invoke({ input: "my name is Ada" }, config);
    expect(first.content).toBe("You said: my name is Ada");
    const second = await chain.invoke({ input: "what is my name?" }, config);
    expect(second.content).toBe("You said: what is my name?");
    const sent = emulator.handle.requests.at(-1)?.body as { messages: unknown[] };
    expect(sent.messages).toEqual([
      { role: "user", content: "my name is Ada" },
      { role: "assistant", content: "You said: my name is Ada" },
      { role: "user", content: "what is my name?" },
    ]);
    expect(await histories.get("s1")?.getMessages()).toHaveLength(4);
  });

  it("InMemoryCache: the second identical call is served from the cache", async () => {
    const model = newModel({ cache: new InMemoryCache() });
    const before = chatRequests();
    const first = await model.invoke("cache me");
    const afterFirst = chatRequests();
    const second = await model.invoke("cache me");
    expect(afterFirst).toBe(before + 1);
    expect(chatRequests()).toBe(afterFirst);
    expect(second.content).toBe(first.content);
    await model.invoke("cache me", { temperature: 0 });
    expect(chatRequests()).toBe(afterFirst + 1);
  });
});

describe("failures", () => {
  it("retries in one layer: maxRetries 2 against an always-503 server makes 3 attempts", async () => {
    emulator.handle.setFaults({ rate503Before: 1, match: "/chat/completions" });
    const before = chatRequests();
    await expect(newModel({ maxRetries: 2 }).invoke("retry me")).rejects.toBeInstanceOf(
      StudioServerError,
    );
    expect(chatRequests() - before).toBe(3);
    // The retries waited on the client's backoff (the emulator's 503 has no Retry-After):
    // 0.5 s, then 1 s, each less up to 25% jitter, passed at once on the retry clock.
    expect(clock.sleeps).toHaveLength(2);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(375);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(500);
    expect(clock.sleeps[1]).toBeGreaterThanOrEqual(750);
    expect(clock.sleeps[1]).toBeLessThanOrEqual(1000);
  });

  it("a bad model uri is the server's 404, with a clear message", async () => {
    await expect(newModel({ model: "nobody/none" }).invoke("hi")).rejects.toThrow(/not found/);
  });
});
