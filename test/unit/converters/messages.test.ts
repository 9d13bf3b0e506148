import {
  AIMessage,
  type BaseMessage,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { ChatCompletion, ChatCompletionChunk } from "../../../src/api-types";
import {
  convertChoiceToAIMessage,
  convertCompletionToChatGenerations,
  convertDeltaToAIMessageChunk,
  convertMessagesToStudioParams,
  convertUsageToAIMessageChunk,
  parseStudioToolCalls,
} from "../../../src/converters/messages";
import { StudioValidationError } from "../../../src/errors";

function validationError(fn: () => unknown): StudioValidationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StudioValidationError);
    return error as StudioValidationError;
  }
  throw new Error("expected a StudioValidationError");
}

describe("convertMessagesToStudioParams: roles", () => {
  it("maps system, human, ai, tool, function and generic messages", () => {
    const messages: BaseMessage[] = [
      new SystemMessage("be brief"),
      new HumanMessage("hi"),
      new AIMessage("hello"),
      new ChatMessage("generic user", "user"),
      new ChatMessage("as human", "human"),
      new ChatMessage("as ai", "ai"),
      new ChatMessage("custom role", "critic"),
      new FunctionMessage({ content: "42", name: "answer" }),
    ];
    expect(convertMessagesToStudioParams(messages)).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "user", content: "generic user" },
      { role: "user", content: "as human" },
      { role: "assistant", content: "as ai" },
      { role: "critic", content: "custom role" },
      { role: "function", name: "answer", content: "42" },
    ]);
  });

  it("keeps a message's name", () => {
    expect(
      convertMessagesToStudioParams([new HumanMessage({ content: "hi", name: "ann" })]),
    ).toEqual([{ role: "user", content: "hi", name: "ann" }]);
  });

  it("sends AI tool calls in the OpenAI shape with JSON-string arguments", () => {
    const ai = new AIMessage({
      content: "",
      tool_calls: [
        { id: "call_1", name: "get_weather", args: { city: "Paris", days: 2 } },
        { id: "call_2", name: "now", args: {} },
      ],
    });
    expect(convertMessagesToStudioParams([ai])).toEqual([
      {
        role: "assistant",
        content: "",
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris","days":2}' },
          },
          { id: "call_2", type: "function", function: { name: "now", arguments: "{}" } },
        ],
      },
    ]);
  });

  it("sends invalid tool calls back as they came, so tool answers still match an id", () => {
    const ai = new AIMessage({
      content: "",
      invalid_tool_calls: [{ id: "call_9", name: "f", args: "{oops", error: "bad json" }],
    });
    expect(convertMessagesToStudioParams([ai])[0]).toEqual({
      role: "assistant",
      content: "",
      tool_calls: [{ id: "call_9", type: "function", function: { name: "f", arguments: "{oops" } }],
    });
  });

  it("sends a tool message with its tool_call_id", () => {
    const tool = new ToolMessage({ content: "sunny", tool_call_id: "call_1" });
    expect(convertMessagesToStudioParams([tool])).toEqual([
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
    ]);
  });

  it("rejects an empty list before anything is sent", () => {
    expect(validationError(() => convertMessagesToStudioParams([])).field).toBe("messages");
  });

  it("rejects a tool call without id, naming it", () => {
    const ai = new AIMessage({ content: "", tool_calls: [{ name: "f", args: {} }] });
    expect(
      validationError(() => convertMessagesToStudioParams([new HumanMessage("x"), ai])).field,
    ).toBe("messages[1].tool_calls[0].id");
  });

  it("rejects message types the service cannot take", () => {
    const remove = new RemoveMessage({ id: "m1" });
    expect(validationError(() => convertMessagesToStudioParams([remove])).field).toBe(
      "messages[0]",
    );
  });
});

describe("convertMessagesToStudioParams: content blocks", () => {
  const url = "https://example.com/cat.png";

  it("collapses text-only blocks into a string", () => {
    const human = new HumanMessage({
      content: [
        { type: "text", text: "Hello " },
        { type: "text", text: "there" },
      ],
    });
    expect(convertMessagesToStudioParams([human])[0]).toEqual({
      role: "user",
      content: "Hello there",
    });
  });

  it("sends legacy OpenAI image_url blocks (string or object, with detail)", () => {
    const human = new HumanMessage({
      content: [
        { type: "text", text: "what is this?" },
        { type: "image_url", image_url: url },
        { type: "image_url", image_url: { url, detail: "low" } },
      ],
    });
    expect(convertMessagesToStudioParams([human])[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "what is this?" },
        { type: "image_url", image_url: { url } },
        { type: "image_url", image_url: { url, detail: "low" } },
      ],
    });
  });

  it("sends core's standard image blocks as URL or data URL", () => {
    const human = new HumanMessage({
      contentBlocks: [
        { type: "image", url },
        { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
      ],
    });
    expect(convertMessagesToStudioParams([human])[0]).toEqual({
      role: "user",
      content: [
        { type: "image_url", image_url: { url } },
        { type: "image_url", image_url: { url: "data:image/png;base64,aGVsbG8=" } },
      ],
    });
  });

  it("sends core's older data blocks (source_type url / base64)", () => {
    const human = new HumanMessage({
      content: [
        { type: "image", source_type: "url", url },
        { type: "image", source_type: "base64", data: "AAAA", mime_type: "image/jpeg" },
      ],
    });
    expect(convertMessagesToStudioParams([human])[0]).toEqual({
      role: "user",
      content: [
        { type: "image_url", image_url: { url } },
        { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } },
      ],
    });
  });

  it("rejects a base64 image without a mime type", () => {
    const human = new HumanMessage({ content: [{ type: "image", data: "AAAA" }] });
    expect(validationError(() => convertMessagesToStudioParams([human])).field).toBe(
      "messages[0].content[0]",
    );
  });

  it.each([
    ["audio", { type: "audio", data: "AAAA", mimeType: "audio/wav" }],
    ["file", { type: "file", url: "https://example.com/a.pdf" }],
    ["unknown", { type: "hologram", payload: 1 }],
    ["image by file id", { type: "image", fileId: "file-1" }],
  ])("rejects %s blocks with the block's position", (_, block) => {
    const human = new HumanMessage({ content: [{ type: "text", text: "look" }, block] as never });
    const error = validationError(() =>
      convertMessagesToStudioParams([new SystemMessage("s"), human]),
    );
    expect(error.field).toBe("messages[1].content[1]");
    expect(error.message).toMatch(/cannot be sent|file ids|url or base64/);
  });

  it("rejects images outside user messages", () => {
    const system = new SystemMessage({ content: [{ type: "image_url", image_url: url }] });
    expect(validationError(() => convertMessagesToStudioParams([system])).field).toBe(
      "messages[0].content[0]",
    );
  });

  it("skips tool-call and reasoning blocks of AI messages (tool calls go in tool_calls)", () => {
    const ai = new AIMessage({
      content: [
        { type: "reasoning", reasoning: "thinking..." },
        { type: "text", text: "Let me check." },
        { type: "tool_call", id: "c1", name: "f", args: {} },
      ],
      tool_calls: [{ id: "c1", name: "f", args: {} }],
    });
    expect(convertMessagesToStudioParams([ai])[0]).toEqual({
      role: "assistant",
      content: "Let me check.",
      tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
    });
  });

  it("rejects non-text blocks in tool messages", () => {
    const tool = new ToolMessage({
      content: [{ type: "image_url", image_url: url }],
      tool_call_id: "c1",
    });
    expect(validationError(() => convertMessagesToStudioParams([tool])).field).toBe(
      "messages[0].content[0]",
    );
  });
});

const completion: ChatCompletion = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "studio/echo-small",
  usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "You said: hi" },
      finish_reason: "stop",
    },
  ],
};

describe("completion -> AIMessage", () => {
  it("carries content, usage, id and response metadata", () => {
    const message = convertChoiceToAIMessage(completion.choices[0]!, completion);
    expect(message.content).toBe("You said: hi");
    expect(message.id).toBe("chatcmpl-1");
    expect(message.usage_metadata).toEqual({ input_tokens: 5, output_tokens: 3, total_tokens: 8 });
    expect(message.response_metadata).toEqual({
      model_provider: "studio",
      model_name: "studio/echo-small",
      finish_reason: "stop",
      id: "chatcmpl-1",
      created: 1_700_000_000,
    });
    expect(message.tool_calls).toEqual([]);
  });

  it("parses tool calls and puts unparsable arguments in invalid_tool_calls", () => {
    const withCalls: ChatCompletion = {
      ...completion,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "f", arguments: '{"a":1}' } },
              { id: "call_2", type: "function", function: { name: "g", arguments: "{not json" } },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
    };
    const message = convertChoiceToAIMessage(withCalls.choices[0]!, withCalls);
    expect(message.content).toBe("");
    expect(message.tool_calls).toEqual([
      { id: "call_1", name: "f", args: { a: 1 }, type: "tool_call" },
    ]);
    expect(message.invalid_tool_calls).toHaveLength(1);
    expect(message.invalid_tool_calls?.[0]).toMatchObject({
      id: "call_2",
      name: "g",
      args: "{not json",
      type: "invalid_tool_call",
    });
    expect(message.invalid_tool_calls?.[0]?.error).toMatch(/not valid JSON/);
  });

  it("gives one generation per choice, in index order", () => {
    const many: ChatCompletion = {
      ...completion,
      choices: [
        { index: 1, message: { role: "assistant", content: "b" }, finish_reason: "stop" },
        { index: 0, message: { role: "assistant", content: "a" }, finish_reason: "length" },
      ],
    };
    const generations = convertCompletionToChatGenerations(many);
    expect(generations.map((g) => g.text)).toEqual(["a", "b"]);
    expect(generations[0]?.message.response_metadata).toMatchObject({ finish_reason: "length" });
    // No generationInfo: core would spread it into the metadata on every call, for nothing new.
    expect(generations[0]?.generationInfo).toBeUndefined();
  });

  it("parseStudioToolCalls tolerates a missing list", () => {
    expect(parseStudioToolCalls(undefined)).toEqual({ toolCalls: [], invalidToolCalls: [] });
  });
});

describe("chunk -> AIMessageChunk", () => {
  const base = { id: "chatcmpl-2", object: "chat.completion.chunk", created: 1, model: "o/m" };

  it("a content delta carries the provider but not the per-response fields", () => {
    const chunk: ChatCompletionChunk = {
      ...base,
      choices: [{ index: 0, delta: { content: "Hel" }, finish_reason: null }],
    };
    const message = convertDeltaToAIMessageChunk(chunk.choices[0]!, chunk);
    expect(message.content).toBe("Hel");
    expect(message.id).toBe("chatcmpl-2");
    expect(message.response_metadata).toEqual({ model_provider: "studio" });
    // Serialized, the chunk keeps its id and metadata (they are set after construction).
    const kwargs = (message.toJSON() as { kwargs: Record<string, unknown> }).kwargs;
    expect(kwargs).toMatchObject({
      content: "Hel",
      id: "chatcmpl-2",
      response_metadata: { model_provider: "studio" },
    });
  });

  it("usage sent along with a choice rides on that chunk", () => {
    const chunk: ChatCompletionChunk = {
      ...base,
      choices: [{ index: 0, delta: { content: "!" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
    const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };
    const message = convertDeltaToAIMessageChunk(chunk.choices[0]!, chunk, usage);
    expect(message.usage_metadata).toEqual(usage);
    expect((message.toJSON() as { kwargs: Record<string, unknown> }).kwargs.usage_metadata).toEqual(
      usage,
    );
    expect(message.response_metadata.finish_reason).toBe("stop");
  });

  it("the finishing chunk carries model name, finish reason, id and created", () => {
    const chunk: ChatCompletionChunk = {
      ...base,
      choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
    };
    expect(convertDeltaToAIMessageChunk(chunk.choices[0]!, chunk).response_metadata).toEqual({
      model_provider: "studio",
      model_name: "o/m",
      finish_reason: "stop",
      id: "chatcmpl-2",
      created: 1,
    });
  });

  it("tool-call deltas become tool_call_chunks that concatenate to the call", () => {
    const first: ChatCompletionChunk = {
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "" } },
            ],
          },
          finish_reason: null,
        },
      ],
    };
    const second: ChatCompletionChunk = {
      ...base,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] },
          finish_reason: null,
        },
      ],
    };
    const third: ChatCompletionChunk = {
      ...base,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { arguments: "1}" } }] },
          finish_reason: "tool_calls",
        },
      ],
    };
    const chunks = [first, second, third].map((c) =>
      convertDeltaToAIMessageChunk(c.choices[0]!, c),
    );
    expect(chunks[0]?.tool_call_chunks).toEqual([
      { type: "tool_call_chunk", index: 0, id: "call_1", name: "f", args: "" },
    ]);
    const full = chunks.reduce((a, b) => a.concat(b));
    expect(full.tool_calls).toEqual([
      { id: "call_1", name: "f", args: { a: 1 }, type: "tool_call" },
    ]);
    expect(full.response_metadata.finish_reason).toBe("tool_calls");
    expect(full.response_metadata.model_name).toBe("o/m");
  });

  it("a usage-only chunk becomes an empty chunk with usage_metadata", () => {
    const chunk: ChatCompletionChunk = {
      ...base,
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    };
    const message = convertUsageToAIMessageChunk(chunk);
    expect(message?.usage_metadata).toEqual({ input_tokens: 1, output_tokens: 2, total_tokens: 3 });
    expect(convertUsageToAIMessageChunk({ ...base, choices: [] })).toBeUndefined();
  });
});
