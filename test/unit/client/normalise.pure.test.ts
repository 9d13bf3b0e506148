/**
 * One schema per wire shape, tolerant and normalising: what servers' dialects become, with small
 * hand-written payloads (each one a dialect some OpenAI-compatible server speaks), and what is
 * still refused.
 */
import { describe, expect, it } from "vitest";
import {
  ChatCompletionChunkSchema,
  ChatCompletionSchema,
  TextCompletionChunkSchema,
  TextCompletionSchema,
  UsageSchema,
} from "../../../src/client/normalise";
import { chatChunkReader, ToolCallIndexes } from "../../../src/client/stream";
import { convertUsage } from "../../../src/converters/usage";
import { StudioStreamError } from "../../../src/errors";

const chunk = (delta: unknown, extra: Record<string, unknown> = {}) => ({
  id: "c1",
  choices: [{ index: 0, delta, finish_reason: null }],
  ...extra,
});

function parseChunk(payload: unknown) {
  return ChatCompletionChunkSchema.parse(payload);
}

describe("chat chunks", () => {
  it("a chunk without id, created and model is read; '' id and model count as absent", () => {
    const out = parseChunk({ choices: [{ index: 0, delta: { content: "a" } }] });
    expect(out.id).toBeUndefined();
    expect(out.created).toBeUndefined();
    expect(out.model).toBeUndefined();
    const blank = parseChunk({ id: "", model: "", created: 0, choices: [] });
    expect(blank).toEqual({ created: 0, choices: [] });
  });

  it("a choice without finish_reason (or with '') has null; without index takes its position", () => {
    const out = parseChunk({
      id: "c",
      choices: [{ delta: { content: "a" } }, { delta: { content: "b" }, finish_reason: "" }],
    });
    expect(out.choices.map((c) => [c.index, c.finish_reason])).toEqual([
      [0, null],
      [1, null],
    ]);
  });

  it("a choice without delta gets an empty one; a chunk without choices has none", () => {
    expect(parseChunk({ id: "c", choices: [{ index: 0, finish_reason: "stop" }] }).choices).toEqual(
      [{ index: 0, delta: {}, finish_reason: "stop" }],
    );
    expect(
      parseChunk({ id: "c", usage: { prompt_tokens: 1, completion_tokens: 2 } }).choices,
    ).toEqual([]);
  });

  it("content as parts: text parts are text, thinking parts are reasoning, never text", () => {
    const thinking = parseChunk(
      chunk({ content: [{ type: "thinking", thinking: [{ type: "text", text: "hmm" }] }] }),
    );
    expect(thinking.choices[0]!.delta).toEqual({ reasoning_content: "hmm" });
    const mixed = parseChunk(
      chunk({
        content: [
          { type: "reasoning", text: "why " },
          { type: "text", text: "Hel" },
          { type: "thinking", thinking: "so" },
          { type: "text", text: "lo" },
          { type: "reference", reference_ids: [1] },
        ],
      }),
    );
    expect(mixed.choices[0]!.delta).toEqual({ content: "Hello", reasoning_content: "why so" });
  });

  it("`reasoning` and `reasoning_content` both become reasoning_content (one copy when both)", () => {
    expect(parseChunk(chunk({ reasoning: "r1" })).choices[0]!.delta).toEqual({
      reasoning_content: "r1",
    });
    expect(parseChunk(chunk({ reasoning_content: "r2" })).choices[0]!.delta).toEqual({
      reasoning_content: "r2",
    });
    expect(
      parseChunk(chunk({ reasoning: "same", reasoning_content: "same" })).choices[0]!.delta,
    ).toEqual({ reasoning_content: "same" });
    // null or "" reasoning is no reasoning; extra fields are kept.
    expect(
      parseChunk(chunk({ content: "x", reasoning: null, channel: "final" })).choices[0]!.delta,
    ).toEqual({ content: "x", channel: "final" });
  });

  it("tool-call fragments: '' id/type/name are absent, object arguments are re-serialised", () => {
    const out = parseChunk(
      chunk({
        tool_calls: [{ index: 0, id: "", type: "", function: { name: "", arguments: { a: 1 } } }],
      }),
    );
    expect(out.choices[0]!.delta.tool_calls).toEqual([
      { index: 0, function: { arguments: '{"a":1}' } },
    ]);
  });

  it("refuses what would make the answer wrong, naming the field", () => {
    expect(() => parseChunk(chunk({ content: 7 }))).toThrow();
    expect(
      ChatCompletionChunkSchema.safeParse(chunk({ content: 7 })).error?.issues[0]?.path,
    ).toEqual(["choices", 0, "delta", "content"]);
    expect(ChatCompletionChunkSchema.safeParse({ id: "c", choices: "x" }).success).toBe(false);
    expect(
      ChatCompletionChunkSchema.safeParse(chunk({ tool_calls: [{ index: -1, function: {} }] }))
        .success,
    ).toBe(false);
  });
});

describe("tool-call indexes across a stream", () => {
  const reader = () => chatChunkReader("/chat/completions");
  const calls = (r: ReturnType<typeof reader>, delta: unknown) =>
    r.read(chunk(delta)).choices[0]!.delta.tool_calls;

  it("a whole call in one delta without index or type gets index 0", () => {
    const r = reader();
    expect(
      calls(r, { tool_calls: [{ id: "a1", function: { name: "f", arguments: '{"x":1}' } }] }),
    ).toEqual([{ index: 0, id: "a1", function: { name: "f", arguments: '{"x":1}' } }]);
  });

  it("each new id starts a call; fragments without id attach to the last call", () => {
    const r = reader();
    expect(
      calls(r, { tool_calls: [{ id: "a", function: { name: "f", arguments: "" } }] })![0]!.index,
    ).toBe(0);
    expect(calls(r, { tool_calls: [{ function: { arguments: '{"x":' } }] })![0]!.index).toBe(0);
    expect(calls(r, { tool_calls: [{ id: "b", function: { name: "g" } }] })![0]!.index).toBe(1);
    expect(calls(r, { tool_calls: [{ function: { arguments: "1}" } }] })![0]!.index).toBe(1);
    // A known id continues its own call.
    expect(calls(r, { tool_calls: [{ id: "a", function: { arguments: "2}" } }] })![0]!.index).toBe(
      0,
    );
  });

  it("several calls in one delta are ordered by position, with or without ids", () => {
    const r = reader();
    const out = calls(r, {
      tool_calls: [
        { function: { name: "f", arguments: "{}" } },
        { function: { name: "g", arguments: "{}" } },
      ],
    });
    expect(out!.map((c) => c.index)).toEqual([0, 1]);
    // A later whole call naming a function, with no id, is a new call, not a fragment of g.
    expect(
      calls(r, { tool_calls: [{ function: { name: "h", arguments: "{}" } }] })![0]!.index,
    ).toBe(2);
  });

  it("servers that send index are taken at their word, and ids map to them", () => {
    const r = reader();
    expect(
      calls(r, { tool_calls: [{ index: 3, id: "z", function: { name: "f" } }] })![0]!.index,
    ).toBe(3);
    expect(calls(r, { tool_calls: [{ id: "z", function: { arguments: "{}" } }] })![0]!.index).toBe(
      3,
    );
    expect(calls(r, { tool_calls: [{ id: "y", function: { name: "g" } }] })![0]!.index).toBe(4);
  });

  it("each choice has its own indexes", () => {
    const r = reader();
    const out = r.read({
      id: "c",
      choices: [
        { index: 0, delta: { tool_calls: [{ id: "a", function: { name: "f" } }] } },
        { index: 1, delta: { tool_calls: [{ id: "b", function: { name: "f" } }] } },
      ],
    });
    expect(out.choices.map((c) => c.delta.tool_calls![0]!.index)).toEqual([0, 0]);
  });

  it("ToolCallIndexes on its own: no id and no earlier call starts call 0", () => {
    expect(new ToolCallIndexes().assign([{ function: { arguments: "{" } }])[0]!.index).toBe(0);
  });

  it("a chunk of the wrong shape is a StudioStreamError naming the field", () => {
    const error = (() => {
      try {
        reader().read(chunk({ tool_calls: "x" }));
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(StudioStreamError);
    expect(error!.message).toContain("choices[0].delta.tool_calls");
  });
});

describe("whole answers", () => {
  const answer = (message: unknown, extra: Record<string, unknown> = {}) => ({
    id: "x",
    created: 1,
    model: "m",
    choices: [{ index: 0, message, finish_reason: "stop" }],
    ...extra,
  });

  it("a message without content has content null; without role is the assistant's", () => {
    const out = ChatCompletionSchema.parse(
      answer({ tool_calls: [{ id: "t", function: { name: "f", arguments: "{}" } }] }),
    );
    expect(out.choices[0]!.message).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "t", type: "function", function: { name: "f", arguments: "{}" } }],
    });
  });

  it("a choice without finish_reason has null; an answer without id, created, model is read", () => {
    const out = ChatCompletionSchema.parse({
      choices: [{ message: { role: "assistant", content: "hi" } }],
    });
    expect(out).toEqual({
      choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: null }],
    });
  });

  it("reasoning in a message, under either name or as parts, becomes reasoning_content", () => {
    const named = ChatCompletionSchema.parse(
      answer({ role: "assistant", content: "a", reasoning: "r" }),
    );
    expect(named.choices[0]!.message).toEqual({
      role: "assistant",
      content: "a",
      reasoning_content: "r",
    });
    const parts = ChatCompletionSchema.parse(
      answer({
        role: "assistant",
        content: [
          { type: "thinking", thinking: [{ type: "text", text: "t" }] },
          { type: "text", text: "a" },
        ],
      }),
    );
    expect(parts.choices[0]!.message).toEqual({
      role: "assistant",
      content: "a",
      reasoning_content: "t",
    });
  });

  it("a tool call without type, or with object arguments, is one normal call", () => {
    const out = ChatCompletionSchema.parse(
      answer({
        role: "assistant",
        content: null,
        tool_calls: [{ id: "t", function: { name: "f", arguments: { q: "x" } } }],
      }),
    );
    expect(out.choices[0]!.message.tool_calls).toEqual([
      { id: "t", type: "function", function: { name: "f", arguments: '{"q":"x"}' } },
    ]);
  });

  it("text completions and their chunks get the same tolerance", () => {
    expect(TextCompletionSchema.parse({ choices: [{ text: "a" }] })).toEqual({
      choices: [{ index: 0, text: "a", finish_reason: null }],
    });
    expect(
      TextCompletionChunkSchema.parse({ choices: [{ text: null, finish_reason: "" }] }),
    ).toEqual({ choices: [{ index: 0, finish_reason: null }] });
  });

  it("still refuses a wrong type", () => {
    expect(ChatCompletionSchema.safeParse(answer({ role: 7, content: "x" })).success).toBe(false);
    expect(ChatCompletionSchema.safeParse(answer({ role: "assistant", content: {} })).success).toBe(
      false,
    );
  });
});

describe("usage", () => {
  it("total_tokens is computed when missing", () => {
    expect(UsageSchema.parse({ prompt_tokens: 3, completion_tokens: 4 })).toEqual({
      prompt_tokens: 3,
      completion_tokens: 4,
      total_tokens: 7,
    });
  });

  it("extra members are kept, and a server's own total is kept", () => {
    const usage = {
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 16,
      prompt_tokens_details: { cached_tokens: 8, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 2 },
      cost: 0.01,
    };
    expect(UsageSchema.parse(usage)).toEqual(usage);
  });

  it("refuses counts that are not non-negative integers", () => {
    expect(UsageSchema.safeParse({ prompt_tokens: "3", completion_tokens: 1 }).success).toBe(false);
    expect(UsageSchema.safeParse({ prompt_tokens: -1, completion_tokens: 1 }).success).toBe(false);
  });

  it("LangChain usage: cached tokens are cache_read, reasoning tokens are reasoning", () => {
    const usage = UsageSchema.parse({
      prompt_tokens: 10,
      completion_tokens: 5,
      prompt_tokens_details: { cached_tokens: 8 },
      completion_tokens_details: { reasoning_tokens: 2 },
    });
    expect(convertUsage(usage)).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      total_tokens: 15,
      input_token_details: { cache_read: 8 },
      output_token_details: { reasoning: 2 },
    });
    expect(convertUsage(UsageSchema.parse({ prompt_tokens: 1, completion_tokens: 1 }))).toEqual({
      input_tokens: 1,
      output_tokens: 1,
      total_tokens: 2,
    });
  });

  it("a running total sent on every chunk is handed out as sent, never summed", () => {
    const r = chatChunkReader("/chat/completions");
    const seen = [1, 3, 5].map(
      (n) =>
        r.read(chunk({ content: "x" }, { usage: { prompt_tokens: 2, completion_tokens: n } })).usage
          ?.total_tokens,
    );
    expect(seen).toEqual([3, 5, 7]);
  });
});
