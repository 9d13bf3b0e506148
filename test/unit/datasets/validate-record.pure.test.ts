import { describe, expect, it } from "vitest";
import { validateFineTuneRecord } from "../../../src/datasets/validate-record";
import { StudioValidationError } from "../../../src/errors";

const TOOLS = [
  {
    type: "function",
    function: { name: "get_weather", parameters: { type: "object", properties: {} } },
  },
];

function call(id: string, name = "get_weather", args = '{"city":"Paris"}') {
  return { id, type: "function", function: { name, arguments: args } };
}

/** A valid tool-calling record: question, call, result, answer. */
function valid() {
  return {
    messages: [
      { role: "system", content: "You answer weather questions." },
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: "", tool_calls: [call("call_1")] },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
      { role: "assistant", content: "Sunny in Paris.", weight: 1 },
    ],
    tools: TOOLS,
  };
}

const codes = (record: unknown) => validateFineTuneRecord(record).map((p) => [p.code, p.path]);

describe("validateFineTuneRecord", () => {
  it("finds nothing wrong in a valid record, with or without tools", () => {
    expect(validateFineTuneRecord(valid())).toEqual([]);
    expect(
      validateFineTuneRecord({
        messages: [
          { role: "user", content: [{ type: "text", text: "What is this?" }, imageUrl()] },
          { role: "assistant", content: "A cat." },
        ],
      }),
    ).toEqual([]);
  });

  it("accepts a record that ends on the assistant's tool calls", () => {
    const record = valid();
    record.messages = record.messages.slice(0, 3);
    expect(validateFineTuneRecord(record)).toEqual([]);
  });

  it("says what is wrong and where, in words", () => {
    const record = valid();
    record.messages.pop();
    expect(validateFineTuneRecord(record)).toEqual([
      {
        code: "missing_final_assistant",
        path: "messages[3]",
        message: "the last message must be the assistant's",
      },
    ]);
  });

  it("refuses what is not a record", () => {
    expect(codes(null)).toEqual([["not_an_object", ""]]);
    expect(codes([])).toEqual([["not_an_object", ""]]);
    expect(codes({})).toEqual([["no_messages", "messages"]]);
    expect(codes({ messages: [] })).toEqual([["no_messages", "messages"]]);
    expect(codes({ messages: [{ role: "assistant", content: "x" }], thread_id: "t" })).toEqual([
      ["unknown_field", "thread_id"],
      ["role_order", "messages[0]"],
    ]);
  });

  it("refuses unknown roles and fields a role does not have", () => {
    expect(
      codes({
        messages: [
          { role: "user", content: "hi", tool_call_id: "x" },
          { role: "function", name: "f", content: "1" },
          { role: "assistant", content: "ok", reasoning_content: "hmm" },
        ],
      }),
    ).toEqual([
      ["unknown_field", "messages[0].tool_call_id"],
      ["unknown_role", "messages[1].role"],
      ["unknown_field", "messages[2].reasoning_content"],
    ]);
  });

  it("refuses a conversation out of order", () => {
    expect(
      codes({
        messages: [
          { role: "user", content: "hi" },
          { role: "system", content: "late rules" },
          { role: "assistant", content: "ok" },
        ],
      }),
    ).toEqual([["role_order", "messages[1]"]]);
    expect(
      codes({
        messages: [
          { role: "system", content: "rules" },
          { role: "assistant", content: "I speak first" },
        ],
      }),
    ).toEqual([["role_order", "messages[1]"]]);
  });

  it("refuses empty content, except an assistant turn that only calls tools and a tool's result", () => {
    const record = valid();
    record.messages[1]!.content = "  ";
    record.messages[3]!.content = "";
    record.messages[4]!.content = "";
    // Issue 29: a tool that returned an empty string is a valid example (the chat API accepts it).
    expect(codes(record)).toEqual([
      ["empty_content", "messages[1].content"],
      ["empty_content", "messages[4].content"],
    ]);
    const missing = valid();
    delete (missing.messages[3] as { content?: unknown }).content;
    expect(codes(missing)).toEqual([["empty_content", "messages[3].content"]]);
    const nullContent = valid();
    (nullContent.messages[2] as { content: unknown }).content = null;
    expect(codes(nullContent)).toEqual([]);
  });

  it("refuses content that is not text (or, for users, images)", () => {
    expect(
      codes({
        messages: [
          { role: "system", content: [imageUrl()] },
          { role: "user", content: 42 },
          { role: "assistant", content: [{ type: "text", text: "ok" }] },
        ],
      }),
    ).toEqual([
      ["invalid_content", "messages[0].content[0]"],
      ["empty_content", "messages[0].content"],
      ["invalid_content", "messages[1].content"],
    ]);
  });

  it("refuses tool results without a call, and calls without a result", () => {
    const record = valid();
    record.messages.splice(3, 1, { role: "tool", tool_call_id: "call_9", content: "sunny" });
    expect(codes(record)).toEqual([
      ["tool_result_without_call", "messages[3].tool_call_id"],
      ["unanswered_tool_call", "messages[2].tool_calls"],
    ]);
    const late = valid();
    late.messages.splice(3, 0, { role: "user", content: "and?" });
    expect(codes(late)).toEqual([
      ["unanswered_tool_call", "messages[2].tool_calls"],
      ["tool_result_without_call", "messages[4].tool_call_id"],
    ]);
    const twice = valid();
    twice.messages.splice(4, 0, { role: "tool", tool_call_id: "call_1", content: "again" });
    expect(codes(twice)).toEqual([["tool_result_without_call", "messages[4].tool_call_id"]]);
  });

  it("refuses malformed tool calls and calls of tools not offered", () => {
    const record = valid();
    record.messages[2]!.tool_calls = [
      call("call_1", "get_weather", "{not json"),
      { ...call("call_1"), type: "tool" },
      call("call_2", "get_time"),
    ];
    record.messages.splice(
      3,
      1,
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
      { role: "tool", tool_call_id: "call_2", content: "noon" },
    );
    expect(codes(record)).toEqual([
      ["invalid_tool_call", "messages[2].tool_calls[0].function.arguments"],
      ["duplicate_tool_call_id", "messages[2].tool_calls[1].id"],
      ["invalid_tool_call", "messages[2].tool_calls[1].type"],
      ["unknown_tool", "messages[2].tool_calls[2].function.name"],
    ]);
  });

  it("refuses tools that are not unique function tools", () => {
    expect(codes({ ...valid(), tools: [TOOLS[0], TOOLS[0], { type: "retrieval" }] })).toEqual([
      ["invalid_tools", "tools[1].function.name"],
      ["invalid_tools", "tools[2]"],
    ]);
  });

  it("refuses a weight other than 0 or 1", () => {
    const record = valid();
    record.messages[4]!.weight = 0.5;
    expect(codes(record)).toEqual([["invalid_weight", "messages[4].weight"]]);
  });

  it("refuses a record over maxTokens, estimated at four characters a token", () => {
    const record = {
      messages: [
        { role: "user", content: "x".repeat(400) },
        { role: "assistant", content: "ok" },
      ],
    };
    const size = Math.ceil(JSON.stringify(record).length / 4);
    expect(validateFineTuneRecord(record, { maxTokens: size })).toEqual([]);
    expect(validateFineTuneRecord(record, { maxTokens: size - 1 })).toEqual([
      {
        code: "too_large",
        path: "",
        message: `about ${size} tokens, over the limit of ${size - 1}`,
      },
    ]);
    expect(() => validateFineTuneRecord(record, { maxTokens: 0 })).toThrow(StudioValidationError);
  });
});

function imageUrl() {
  return { type: "image_url", image_url: { url: "https://example.com/cat.png" } };
}
