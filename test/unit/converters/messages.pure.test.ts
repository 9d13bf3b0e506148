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
import type { ChatCompletion } from "../../../src/api-types";
import {
  convertChoiceToAIMessage,
  convertCompletionToChatGenerations,
  parseStudioToolCalls,
} from "../../../src/converters/completion";
import { registerStudioBlockTranslator } from "../../../src/converters/content-blocks";
import { convertMessagesToStudioParams } from "../../../src/converters/messages";
import {
  ChatStreamState,
  convertDeltaToAIMessageChunk,
  StudioAIMessageChunk,
} from "../../../src/converters/stream-chunks";
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

  it("sends an AI message's reasoning back as reasoning_content, never as text", () => {
    const kept = new AIMessage({
      content: "Answer.",
      additional_kwargs: { reasoning_content: "thought" },
    });
    expect(convertMessagesToStudioParams([kept])[0]).toEqual({
      role: "assistant",
      content: "Answer.",
      reasoning_content: "thought",
    });
    const blocks = new AIMessage({
      content: [
        { type: "reasoning", reasoning: "a " },
        { type: "reasoning", reasoning: "b" },
        { type: "text", text: "Answer." },
      ],
    });
    expect(convertMessagesToStudioParams([blocks])[0]).toEqual({
      role: "assistant",
      content: "Answer.",
      reasoning_content: "a b",
    });
  });

  it("refuses an image_url block with an empty url before sending", () => {
    for (const image_url of ["", { url: "" }]) {
      const human = new HumanMessage({ content: [{ type: "image_url", image_url }] });
      expect(validationError(() => convertMessagesToStudioParams([human])).field).toBe(
        "messages[0].content[0]",
      );
    }
    const standard = new HumanMessage({
      content: [{ type: "image", source_type: "url", url: "" } as never],
    });
    expect(validationError(() => convertMessagesToStudioParams([standard])).field).toBe(
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
      reasoning_content: "thinking...",
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
      model: "studio/echo-small",
      model_name: "studio/echo-small",
      finish_reason: "stop",
      id: "chatcmpl-1",
      created: 1_700_000_000,
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
    });
    expect(message.tool_calls).toEqual([]);
  });

  it("names the requested model when the answer does not", () => {
    const { model: _omitted, ...anonymous } = completion;
    const message = convertChoiceToAIMessage(completion.choices[0]!, anonymous, "o/asked");
    expect(message.response_metadata).toMatchObject({ model: "o/asked", model_name: "o/asked" });
  });

  it("reasoning goes to additional_kwargs and a reasoning block, never the text", () => {
    registerStudioBlockTranslator();
    const thinking: ChatCompletion = {
      ...completion,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "42", reasoning_content: "6 times 7" },
          finish_reason: "stop",
        },
      ],
    };
    const message = convertChoiceToAIMessage(thinking.choices[0]!, thinking);
    expect(message.text).toBe("42");
    expect(message.additional_kwargs.reasoning_content).toBe("6 times 7");
    expect(message.contentBlocks).toEqual([
      { type: "reasoning", reasoning: "6 times 7" },
      { type: "text", text: "42" },
    ]);
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

  it("empty arguments mean none; JSON that is not an object is invalid", () => {
    const { toolCalls, invalidToolCalls } = parseStudioToolCalls([
      { id: "a", function: { name: "f", arguments: "" } },
      { id: "b", function: { name: "g", arguments: "[1]" } },
    ]);
    expect(toolCalls).toEqual([{ id: "a", name: "f", args: {}, type: "tool_call" }]);
    expect(invalidToolCalls).toMatchObject([{ id: "b", name: "g", args: "[1]" }]);
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
  const call = (index: number, fields: { id?: string; name?: string; args?: string }) => ({
    index,
    ...(fields.id && { id: fields.id }),
    function: { name: fields.name, arguments: fields.args },
  });

  it("a content delta carries text, id and the provider, not the per-response fields", () => {
    const message = convertDeltaToAIMessageChunk({ content: "Hel" }, "chatcmpl-2");
    expect(message).toBeInstanceOf(StudioAIMessageChunk);
    expect(message?.content).toBe("Hel");
    expect(message?.id).toBe("chatcmpl-2");
    expect(message?.response_metadata).toEqual({ model_provider: "studio" });
    const kwargs = (message!.toJSON() as { kwargs: Record<string, unknown> }).kwargs;
    expect(kwargs).toMatchObject({ content: "Hel", id: "chatcmpl-2" });
  });

  it("an empty delta (a role, an empty string) gives no chunk", () => {
    expect(convertDeltaToAIMessageChunk({ role: "assistant", content: "" } as never, "x")).toBe(
      undefined,
    );
    expect(convertDeltaToAIMessageChunk(undefined, "x")).toBeUndefined();
  });

  it("reasoning deltas go to additional_kwargs and concatenate, never into the text", () => {
    const parts = [
      convertDeltaToAIMessageChunk({ reasoning_content: "Let me " }, "r"),
      convertDeltaToAIMessageChunk({ reasoning_content: "think." }, "r"),
      convertDeltaToAIMessageChunk({ content: "Yes." }, "r"),
    ];
    const full = parts.reduce((a, b) => a!.concat(b!))!;
    expect(full.content).toBe("Yes.");
    expect(full.additional_kwargs.reasoning_content).toBe("Let me think.");
  });

  it("the final chunks carry model, finish reason, id, created; usage once, on the first", () => {
    const state = new ChatStreamState("o/asked");
    state.observe({
      ...base,
      choices: [{ index: 1, delta: { content: "b" }, finish_reason: null }],
    });
    state.observe({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
    state.observe({ ...base, choices: [{ index: 1, delta: {}, finish_reason: "length" }] });
    state.observe({
      ...base,
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    });
    const finals = state.finalChunks(true);
    expect(finals.map((f) => f.index)).toEqual([0, 1]);
    expect(finals[0]?.message.response_metadata).toEqual({
      model_provider: "studio",
      model: "o/m",
      model_name: "o/m",
      finish_reason: "stop",
      id: "chatcmpl-2",
      created: 1,
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    });
    expect(finals[1]?.message.response_metadata.finish_reason).toBe("length");
    expect(finals[1]?.message.response_metadata).not.toHaveProperty("usage");
    expect(finals[0]?.message.usage_metadata).toEqual({
      input_tokens: 1,
      output_tokens: 2,
      total_tokens: 3,
    });
    expect(finals[1]?.message.usage_metadata).toBeUndefined();
    expect(state.finalChunks(false)[0]?.message.usage_metadata).toBeUndefined();
    expect(state.finalChunks(false)[0]?.message.response_metadata).not.toHaveProperty("usage");
  });

  it("usage repeated on every chunk as a running total: the last is kept, never summed", () => {
    const state = new ChatStreamState("o/m");
    for (const completion_tokens of [1, 2, 3]) {
      state.observe({
        ...base,
        choices: [{ index: 0, delta: { content: "x" }, finish_reason: null }],
        usage: { prompt_tokens: 5, completion_tokens, total_tokens: 5 + completion_tokens },
      });
    }
    expect(state.finalChunks(true)[0]?.message.usage_metadata).toEqual({
      input_tokens: 5,
      output_tokens: 3,
      total_tokens: 8,
    });
  });

  it("a stream without model names the requested one", () => {
    const state = new ChatStreamState("o/asked");
    state.observe({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] } as never);
    expect(state.finalChunks(true)[0]?.message.response_metadata).toMatchObject({
      model: "o/asked",
      model_name: "o/asked",
    });
  });

  it("tool-call deltas concatenate to the call; the final message parses it strictly", () => {
    const chunks = [
      convertDeltaToAIMessageChunk(
        { tool_calls: [call(0, { id: "call_1", name: "f", args: "" })] },
        "t",
      ),
      convertDeltaToAIMessageChunk({ tool_calls: [call(0, { args: '{"a":' })] }, "t"),
      convertDeltaToAIMessageChunk({ tool_calls: [call(0, { args: "1}" })] }, "t"),
    ];
    expect(chunks[0]?.tool_call_chunks).toEqual([
      { type: "tool_call_chunk", index: 0, id: "call_1", name: "f", args: "" },
    ]);
    const state = new ChatStreamState("o/m");
    state.observe({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] });
    const full = [...chunks, state.finalChunks(true)[0]?.message].reduce((a, b) => a!.concat(b!))!;
    expect(full.tool_calls).toEqual([
      { id: "call_1", name: "f", args: { a: 1 }, type: "tool_call" },
    ]);
    expect(full.invalid_tool_calls).toEqual([]);
    expect(full.response_metadata).toMatchObject({ finish_reason: "tool_calls", model: "o/m" });
  });

  it("truncated or invalid arguments: partial while streaming, invalid in the final message", () => {
    for (const args of ['{"city": "Par', '{"a":tru']) {
      const state = new ChatStreamState("o/m");
      state.observe({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "length" }] });
      const partial = convertDeltaToAIMessageChunk(
        { tool_calls: [call(0, { id: "c1", name: "get_weather", args })] },
        "t",
      )!;
      // While streaming: core's partial parse, so `.stream()` consumers see arguments grow.
      expect(partial.tool_calls).toHaveLength(1);
      const full = partial.concat(state.finalChunks(true)[0]!.message);
      expect(full.tool_calls).toEqual([]);
      expect(full.invalid_tool_calls).toMatchObject([{ id: "c1", name: "get_weather", args }]);
      const kwargs = (full.toJSON() as { kwargs: Record<string, unknown> }).kwargs;
      expect(kwargs.tool_calls).toEqual([]);
    }
  });

  it("two calls by index, fragments without id or name joined to their call", () => {
    const full = [
      convertDeltaToAIMessageChunk(
        {
          tool_calls: [
            call(0, { id: "a", name: "f", args: '{"x":' }),
            call(1, { id: "b", name: "g", args: "{}" }),
          ],
        },
        "t",
      ),
      convertDeltaToAIMessageChunk({ tool_calls: [call(0, { args: "1}" })] }, "t"),
      new ChatStreamState("o/m").finalChunks(false)[0]?.message,
    ].reduce((a, b) => a!.concat(b!))!;
    expect(full.tool_calls).toEqual([
      { id: "a", name: "f", args: { x: 1 }, type: "tool_call" },
      { id: "b", name: "g", args: {}, type: "tool_call" },
    ]);
  });

  it("summed usage keeps no empty detail objects", () => {
    const withUsage = new StudioAIMessageChunk({
      content: "",
      usage_metadata: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
    });
    const sum = new StudioAIMessageChunk({ content: "a" }).concat(withUsage);
    expect(sum.usage_metadata).toEqual({ input_tokens: 1, output_tokens: 1, total_tokens: 2 });
  });
});
