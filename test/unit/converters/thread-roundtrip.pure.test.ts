/**
 * Property test of the codec: any message of any type, encoded, stored the way a server of this
 * family stores it (through JSON, text items possibly sent back as `{ value }`) and decoded, comes
 * back equal. Sizes are kept within what metadata can carry; the over-size case is covered in
 * thread-messages.test.ts.
 */
import {
  AIMessage,
  type BaseMessage,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeMessage, encodeMessage } from "../../../src/converters/thread-messages";
import { validateMetadata } from "../../../src/validation";
import { storeLikeServer, view } from "../../helpers/thread-messages";

/** JSON values as they come back from JSON (no -0, no undefined inside). */
const json = fc
  .jsonValue({ maxDepth: 2 })
  .map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 3 });

const text = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit: "binary", maxLength: 60 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 500, maxLength: 4000 }) },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "\n", "é😀中文", "<b>&amp;</b>") },
);
const url = fc.webUrl();

const block = fc.oneof(
  fc.record({ type: fc.constant("text"), text }),
  fc.record({
    type: fc.constant("text"),
    text,
    cache_control: fc.constant({ type: "ephemeral" }),
  }),
  fc.record(
    {
      type: fc.constant("image_url"),
      image_url: fc.record(
        { url, detail: fc.constantFrom("auto", "low", "high") },
        { requiredKeys: ["url"] },
      ),
    },
    { requiredKeys: ["type", "image_url"] },
  ),
  fc.record({ type: fc.constant("image_url"), image_url: url }),
  fc.record(
    { type: fc.constant("image"), url, mimeType: fc.constant("image/png") },
    { requiredKeys: ["type", "url"] },
  ),
  fc.record({ type: fc.constant("reasoning"), reasoning: fc.string({ maxLength: 40 }) }),
);
const content = fc.oneof(text, fc.array(block, { maxLength: 4 }));

const base = {
  content,
  id: fc.option(fc.oneof(fc.uuid(), fc.string({ maxLength: 20 })), { nil: undefined }),
  name: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }),
  additional_kwargs: fc.option(jsonObject, { nil: undefined }),
};

const toolCall = fc.record({
  id: fc.string({ minLength: 1, maxLength: 30 }),
  name: fc.string({ minLength: 1, maxLength: 20 }),
  args: jsonObject,
  type: fc.constant("tool_call" as const),
});
const invalidToolCall = fc.record({
  id: fc.string({ minLength: 1, maxLength: 30 }),
  name: fc.string({ maxLength: 20 }),
  args: fc.string({ maxLength: 40 }),
  error: fc.string({ maxLength: 40 }),
  type: fc.constant("invalid_tool_call" as const),
});
const usage = fc
  .record({ input_tokens: fc.nat(), output_tokens: fc.nat() })
  .map((u) => ({ ...u, total_tokens: u.input_tokens + u.output_tokens }));
const responseMetadata = fc.oneof(
  jsonObject,
  fc.record({
    model_provider: fc.constant("studio"),
    model_name: fc.constant("owner/model"),
    finish_reason: fc.constantFrom("stop", "length", "tool_calls"),
  }),
  fc.record({ output_version: fc.constant("v1"), model_provider: fc.constant("studio") }),
);

const constructed: fc.Arbitrary<BaseMessage> = fc.oneof(
  fc.record(base).map((f) => new HumanMessage(f)),
  fc.record(base).map((f) => new SystemMessage(f)),
  fc
    .record({
      ...base,
      tool_calls: fc.array(toolCall, { maxLength: 3 }),
      invalid_tool_calls: fc.array(invalidToolCall, { maxLength: 2 }),
      usage_metadata: fc.option(usage, { nil: undefined }),
      response_metadata: fc.option(responseMetadata, { nil: undefined }),
    })
    .map((f) => new AIMessage(f)),
  fc
    .record({
      ...base,
      tool_call_id: fc.string({ minLength: 1, maxLength: 30 }),
      status: fc.option(fc.constantFrom("success" as const, "error" as const), { nil: undefined }),
      artifact: fc.option(json, { nil: undefined }),
    })
    .map((f) => new ToolMessage(f)),
  fc
    .record({ ...base, name: fc.string({ minLength: 1, maxLength: 20 }) })
    .map((f) => new FunctionMessage(f)),
  fc
    .record({ ...base, role: fc.string({ minLength: 1, maxLength: 12 }) })
    .map((f) => new ChatMessage(f)),
);

/** Apps and LangGraph often set the id after construction, which core's `toDict` misses. */
const message = fc.tuple(constructed, fc.boolean(), fc.uuid()).map(([m, late, id]) => {
  if (late) m.id = id;
  return m;
});

describe("thread message codec (property)", () => {
  it("round-trips generated messages of every type", () => {
    fc.assert(
      fc.property(message, fc.boolean(), (original, valueForm) => {
        const input = encodeMessage(original, "00000000-0000-4000-8000-000000000000");
        validateMetadata("metadata", input.metadata);
        expect(input.role).toBe(original.getType() === "ai" ? "assistant" : "user");
        const decoded = decodeMessage(storeLikeServer(input, { valueForm }));
        expect(decoded.constructor).toBe(original.constructor);
        expect(view(decoded)).toEqual(view(original));
      }),
      { numRuns: 400, seed: 6 },
    );
  });

  it("keeps a string's text out of the metadata", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 20, maxLength: 200 }), (value) => {
        const input = encodeMessage(new HumanMessage(value), "cid");
        expect(Object.values(input.metadata ?? {}).join("")).not.toContain(value);
      }),
      { numRuns: 100, seed: 6 },
    );
  });
});

describe("lone surrogates (issue 13.15)", () => {
  const texts = ["a\ud800b", "\udc00 and \\u0041 and \\\\", "ok 😀 then \ud83d", "\ud83d"];
  it.each(texts)("text %j comes back exactly from a service that stores UTF-8", (text) => {
    for (const message of [
      new HumanMessage(text),
      new AIMessage({
        content: [
          { type: "text", text },
          { type: "text", text: "plain" },
        ],
      }),
      new SystemMessage({ content: [{ type: "text", text: `x${text}` }], id: "s" }),
    ]) {
      const input = encodeMessage(message, "cid");
      const back = decodeMessage(storeLikeServer(input, { utf8: true }));
      expect(view(back)).toEqual(view(message));
    }
  });

  it("leaves text without lone surrogates unescaped, backslashes included", () => {
    const input = encodeMessage(new HumanMessage("a \\u0041 😀"), "cid");
    expect(input.content).toEqual([{ type: "text", text: "a \\u0041 😀" }]);
    expect(Object.keys(input.metadata ?? {})).toEqual(["lc_type", "lc_id"]);
  });
});
