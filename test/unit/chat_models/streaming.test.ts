/**
 * Chunk conversion through the model, fed with core's OpenAI-shaped stream fixtures over nock,
 * and checked with core's stream matchers where they fit.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { type AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import type { ChatGeneration } from "@langchain/core/outputs";
import {
  openAITextOnlyChunks,
  openAITextOnlyChunksWithUsage,
  openAIToolCallChunks,
  type StreamMatchers,
  streamMatchers,
} from "@langchain/core/utils/testing";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChatCompletionChunk } from "../../../src/api-types";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { StudioStreamError } from "../../../src/errors";
import { KEY, MODEL, newModel, PROXY_URL, replyStream, textChunks } from "./helpers";

expect.extend(streamMatchers);

declare module "vitest" {
  // biome-ignore lint/suspicious/noExplicitAny: the augmentation must repeat vitest's own declaration
  interface Matchers<T = any> extends StreamMatchers<Promise<T>> {}
}

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

async function collect(stream: AsyncIterable<AIMessageChunk>): Promise<AIMessageChunk[]> {
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

function concatAll(chunks: AIMessageChunk[]): AIMessageChunk {
  return chunks.reduce((a, b) => a.concat(b));
}

describe("_streamResponseChunks", () => {
  it("content deltas, finish metadata and usage on the final chunk", async () => {
    const { bodies } = replyStream(openAITextOnlyChunksWithUsage(MODEL));
    const chunks = await collect(await newModel().stream("hi"));
    expect(bodies[0]?.stream).toBe(true);
    expect(chunks.map((c) => c.content)).toEqual(["Hello", " world", ""]);
    for (const chunk of chunks) expect(chunk.response_metadata.model_provider).toBe("studio");
    expect(chunks.at(-1)?.usage_metadata).toEqual({
      input_tokens: 10,
      output_tokens: 2,
      total_tokens: 12,
    });
    const full = concatAll(chunks);
    expect(full.content).toBe("Hello world");
    expect(full.id).toBe("chatcmpl-text");
    expect(full.response_metadata).toMatchObject({
      model_provider: "studio",
      model_name: MODEL,
      finish_reason: "stop",
      id: "chatcmpl-text",
    });
  });

  it("usage from a usage-only last chunk (the emulator's layout)", async () => {
    replyStream(textChunks(["a", " b"]));
    const full = concatAll(await collect(await newModel().stream("hi")));
    expect(full.content).toBe("a b");
    expect(full.usage_metadata).toMatchObject({
      input_tokens: 2,
      output_tokens: 2,
      total_tokens: 4,
    });
  });

  it("streamUsage: false leaves usage out", async () => {
    replyStream(textChunks(["a"]));
    const full = concatAll(await collect(await newModel({ streamUsage: false }).stream("hi")));
    expect(full.usage_metadata).toBeUndefined();
    replyStream(openAITextOnlyChunksWithUsage(MODEL));
    const perCall = concatAll(await collect(await newModel().stream("hi", { streamUsage: false })));
    expect(perCall.usage_metadata).toBeUndefined();
  });

  it("tool_call_chunks (index, id, name, argument fragments) concatenate to the call", async () => {
    replyStream(openAIToolCallChunks(MODEL));
    const chunks = await collect(await newModel().stream("hi"));
    expect(chunks[1]?.tool_call_chunks).toEqual([
      { type: "tool_call_chunk", index: 0, id: "call_abc", name: "web_search", args: '{"query"' },
    ]);
    expect(chunks[2]?.tool_call_chunks).toEqual([
      { type: "tool_call_chunk", index: 0, id: undefined, name: undefined, args: ':"weather"}' },
    ]);
    const full = concatAll(chunks);
    expect(full.content).toBe("Let me search.");
    expect(full.tool_calls).toEqual([
      { id: "call_abc", name: "web_search", args: { query: "weather" }, type: "tool_call" },
    ]);
    expect(full.response_metadata.finish_reason).toBe("tool_calls");
  });

  it("tokens reach handleLLMNewToken", async () => {
    const tokens: string[] = [];
    class Recorder extends BaseCallbackHandler {
      name = "tokens";
      override handleLLMNewToken(token: string): void {
        tokens.push(token);
      }
    }
    replyStream(openAITextOnlyChunks(MODEL));
    await collect(await newModel().stream("hi", { callbacks: [new Recorder()] }));
    expect(tokens).toEqual(["Hello", " world", ""]);
  });

  it("a cut stream raises StudioStreamError, never a shorter answer", async () => {
    replyStream(openAITextOnlyChunks(MODEL).slice(0, 2), false);
    await expect(collect(await newModel().stream("hi"))).rejects.toBeInstanceOf(StudioStreamError);
    replyStream(openAITextOnlyChunks(MODEL).slice(0, 2), false);
    await expect(newModel({ streaming: true }).invoke("hi")).rejects.toBeInstanceOf(
      StudioStreamError,
    );
  });

  it("an abort between two chunks of one network read stops at once", async () => {
    const controller = new AbortController();
    const tokens: string[] = [];
    class AbortOnSecond extends BaseCallbackHandler {
      name = "abort-on-second";
      override handleLLMNewToken(token: string): void {
        tokens.push(token);
        if (tokens.length === 2) controller.abort();
      }
    }
    const words = Array.from({ length: 50 }, (_, i) => `w${i} `);
    replyStream(textChunks(words));
    const model = newModel({ streaming: true, callbacks: [new AbortOnSecond()] });
    await expect(model.invoke("hi", { signal: controller.signal })).rejects.toThrow(/abort/i);
    expect(tokens).toHaveLength(2);
  });

  it("a client subclass with its own streamChatCompletion is streamed through", async () => {
    class Canned extends StudioClient {
      override async *streamChatCompletion(): AsyncGenerator<ChatCompletionChunk> {
        yield* openAITextOnlyChunksWithUsage(MODEL) as ChatCompletionChunk[];
      }
    }
    const client = new Canned({ apiKey: KEY, proxyUrl: PROXY_URL });
    const chunks = await collect(await new ChatStudio({ model: MODEL, client }).stream("hi"));
    expect(concatAll(chunks).content).toBe("Hello world");
    expect(chunks.at(-1)?.usage_metadata?.total_tokens).toBe(12);
  });

  it("an error event inside the stream is an error", async () => {
    const head = openAITextOnlyChunks(MODEL).slice(0, 1);
    replyStream([...head, { error: { message: "model crashed", type: "server_error" } }], false);
    await expect(collect(await newModel().stream("hi"))).rejects.toThrow(/model crashed/);
  });
});

describe("streaming: true", () => {
  it("invoke streams under the hood and returns the whole message", async () => {
    const { bodies } = replyStream(openAITextOnlyChunksWithUsage(MODEL));
    const message = await newModel({ streaming: true }).invoke([new HumanMessage("hi")]);
    expect(bodies[0]?.stream).toBe(true);
    expect(message.content).toBe("Hello world");
    expect(message.usage_metadata).toEqual({
      input_tokens: 10,
      output_tokens: 2,
      total_tokens: 12,
    });
    expect(message.response_metadata).toMatchObject({
      model_provider: "studio",
      finish_reason: "stop",
    });
  });

  it("maxConcurrency bounds the streamed requests of a batch too", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    class Counting extends StudioClient {
      override async *streamChatCompletion(): AsyncGenerator<ChatCompletionChunk> {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          for (const chunk of openAITextOnlyChunksWithUsage(MODEL) as ChatCompletionChunk[]) {
            await new Promise((resolve) => setImmediate(resolve));
            yield chunk;
          }
        } finally {
          inFlight -= 1;
        }
      }
    }
    const client = new Counting({ apiKey: KEY, proxyUrl: PROXY_URL });
    const model = new ChatStudio({ model: MODEL, client, streaming: true, maxConcurrency: 1 });
    const lists = [1, 2, 3].map((i) => [new HumanMessage(`hi ${i}`)]);
    const result = await model.generate(lists);
    expect(result.generations.map((g) => g[0]?.text)).toEqual([
      "Hello world",
      "Hello world",
      "Hello world",
    ]);
    expect(maxInFlight).toBe(1);
  });

  it("n > 1 gives one generation per choice", async () => {
    const base = { id: "c", object: "chat.completion.chunk", created: 1, model: MODEL };
    replyStream([
      { ...base, choices: [{ index: 0, delta: { content: "zero" }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      { ...base, choices: [{ index: 1, delta: { content: "one" }, finish_reason: null }] },
      { ...base, choices: [{ index: 1, delta: {}, finish_reason: "length" }] },
      { ...base, choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } },
    ]);
    const result = await newModel({ streaming: true, n: 2 }).generate([[new HumanMessage("hi")]]);
    const generations = result.generations[0] ?? [];
    expect(generations.map((g) => g.text)).toEqual(["zero", "one"]);
    const metadata = generations.map((g) => (g as ChatGeneration).message.response_metadata);
    expect(metadata).toMatchObject([{ finish_reason: "stop" }, { finish_reason: "length" }]);
    expect(result.llmOutput?.tokenUsage).toEqual({
      promptTokens: 1,
      completionTokens: 2,
      totalTokens: 3,
    });
  });
});

describe("streamEvents (content-block events)", () => {
  it("text, usage and Studio's response metadata", async () => {
    replyStream(openAITextOnlyChunksWithUsage(MODEL));
    const stream = newModel().streamEvents("hi");
    await expect(stream).toHaveStreamText("Hello world");
    await expect(stream).toHaveStreamUsage({
      input_tokens: 10,
      output_tokens: 2,
      total_tokens: 12,
    });
    await expect(stream).toHaveStreamOutput({
      id: "chatcmpl-text",
      text: "Hello world",
      responseMetadata: { model_provider: "studio", model_name: MODEL },
    });
  });

  it("tool calls", async () => {
    replyStream(openAIToolCallChunks(MODEL));
    const stream = newModel().streamEvents("hi");
    await expect(stream).toHaveStreamToolCalls([
      { name: "web_search", args: { query: "weather" } },
    ]);
    await expect(stream).toHaveStreamText("Let me search.");
  });

  it("the event order is start, blocks, finish", async () => {
    replyStream(openAITextOnlyChunks(MODEL));
    const kinds: string[] = [];
    for await (const event of newModel().streamEvents("hi")) kinds.push(event.event);
    expect(kinds[0]).toBe("message-start");
    expect(kinds.at(-1)).toBe("message-finish");
    expect(kinds.filter((k) => k === "content-block-delta")).toHaveLength(2);
  });

  it("with n > 1 the events carry the first choice only, never the others' text", async () => {
    const base = { id: "c", object: "chat.completion.chunk", created: 1, model: MODEL };
    replyStream([
      { ...base, choices: [{ index: 0, delta: { content: "zero" }, finish_reason: null }] },
      { ...base, choices: [{ index: 1, delta: { content: "one" }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      { ...base, choices: [{ index: 1, delta: {}, finish_reason: "length" }] },
    ]);
    const stream = newModel({ n: 2 }).streamEvents("hi");
    await expect(stream).toHaveStreamText("zero");
    await expect(stream).toHaveStreamOutput({
      text: "zero",
      responseMetadata: { finish_reason: "stop" },
    });
  });

  it("a cut stream rejects the event stream", async () => {
    replyStream(openAITextOnlyChunks(MODEL).slice(0, 2), false);
    await expect(newModel().streamEvents("hi").output).rejects.toBeInstanceOf(StudioStreamError);
  });

  it("v2 events: start, one stream event per chunk, end with the same text", async () => {
    replyStream(openAITextOnlyChunks(MODEL));
    const seen: string[] = [];
    let streamed = "";
    let endText = "";
    for await (const event of newModel().streamEvents("hi", { version: "v2" })) {
      seen.push(event.event);
      if (event.event === "on_chat_model_stream")
        streamed += (event.data.chunk as AIMessageChunk).text;
      if (event.event === "on_chat_model_end") endText = (event.data.output as AIMessageChunk).text;
    }
    expect(seen[0]).toBe("on_chat_model_start");
    expect(seen.at(-1)).toBe("on_chat_model_end");
    expect(streamed).toBe("Hello world");
    expect(endText).toBe("Hello world");
  });
});
