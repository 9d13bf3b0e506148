/**
 * `StudioAIMessageChunk` builds text chunks from their text and sets their fields after (core's
 * constructor from fields takes a slow V8 path on Node 20, see stream-chunks.ts). These tests
 * hold the two ways equal: every field, `lc_kwargs`, the serialized form, content blocks and
 * sums, against core's own `AIMessageChunk` built from the same fields.
 */

import { load } from "@langchain/core/load";
import { AIMessageChunk, type AIMessageChunkFields } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { registerStudioBlockTranslator } from "../../../src/converters/content-blocks";
import { StudioAIMessageChunk } from "../../../src/converters/stream-chunks";

registerStudioBlockTranslator();

/** What a chunk shows: its own fields, its lc_kwargs and its serialized form. */
function seen(chunk: AIMessageChunk) {
  return {
    fields: { ...chunk },
    content: chunk.content,
    id: chunk.id,
    name: chunk.name,
    tool_calls: chunk.tool_calls,
    invalid_tool_calls: chunk.invalid_tool_calls,
    tool_call_chunks: chunk.tool_call_chunks,
    usage_metadata: chunk.usage_metadata,
    additional_kwargs: chunk.additional_kwargs,
    response_metadata: chunk.response_metadata,
    lc_kwargs: chunk.lc_kwargs,
    json: JSON.parse(JSON.stringify(chunk.toJSON())),
    text: chunk.text,
  };
}

/** Core's chunk from the same fields (copied: core's constructor may add keys to them). */
function coreChunk(fields: AIMessageChunkFields): AIMessageChunk {
  return new AIMessageChunk(structuredClone(fields));
}

const cases: Record<string, AIMessageChunkFields> = {
  "a text delta": {
    content: "Hel",
    id: "chatcmpl-1",
    response_metadata: { model_provider: "studio" },
  },
  "a reasoning delta": {
    content: "",
    id: "chatcmpl-1",
    additional_kwargs: { reasoning_content: "think" },
    response_metadata: { model_provider: "studio" },
  },
  "a refusal delta": {
    content: "",
    additional_kwargs: { refusal: "No." },
    response_metadata: { model_provider: "studio" },
  },
  "what core's concat passes": {
    content: "Hello",
    additional_kwargs: {},
    response_metadata: { model_provider: "studio" },
    tool_call_chunks: [],
    tool_calls: [],
    id: undefined,
  },
  "a final chunk with usage": {
    content: "",
    id: "c",
    usage_metadata: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
    response_metadata: { model_provider: "studio", model_name: "m", finish_reason: "stop" },
  },
  "a name": { content: "x", name: "bot" },
  "nothing but text": { content: "plain" },
};

describe("a text chunk built from its text equals core's chunk from fields", () => {
  it.each(Object.entries(cases))("%s", (_, fields) => {
    const studio = new StudioAIMessageChunk(structuredClone(fields));
    const core = coreChunk(fields);
    expect(seen(studio)).toEqual(seen(core));
    expect(studio.contentBlocks).toEqual(
      new StudioAIMessageChunk(structuredClone(fields)).contentBlocks,
    );
  });

  it("sums of text chunks equal core's sums, field by field", () => {
    const parts = Object.values(cases).slice(0, 4);
    let studio: AIMessageChunk | undefined;
    let core: AIMessageChunk | undefined;
    for (const fields of parts) {
      const s = new StudioAIMessageChunk(structuredClone(fields));
      const c = coreChunk(fields);
      studio = studio ? studio.concat(s) : s;
      core = core ? core.concat(c) : c;
    }
    expect(studio).toBeInstanceOf(StudioAIMessageChunk);
    expect(seen(studio as AIMessageChunk)).toEqual(seen(core as AIMessageChunk));
  });

  it("any text, id, metadata and reasoning: the same as core's (property)", () => {
    const fieldsArb = fc.record(
      {
        content: fc.string(),
        id: fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
        name: fc.option(fc.string(), { nil: undefined }),
        additional_kwargs: fc.dictionary(
          fc.constantFrom("reasoning_content", "refusal"),
          fc.string(),
        ),
        response_metadata: fc.dictionary(
          fc.constantFrom("model_provider", "finish_reason", "model_name"),
          fc.string(),
        ),
      },
      { requiredKeys: ["content"] },
    );
    fc.assert(
      fc.property(fc.array(fieldsArb, { minLength: 1, maxLength: 4 }), (list) => {
        let studio: AIMessageChunk | undefined;
        let core: AIMessageChunk | undefined;
        for (const fields of list) {
          const s = new StudioAIMessageChunk(structuredClone(fields) as AIMessageChunkFields);
          const c = coreChunk(fields as AIMessageChunkFields);
          expect(seen(s)).toEqual(seen(c));
          studio = studio ? studio.concat(s) : s;
          core = core ? core.concat(c) : c;
        }
        expect(seen(studio as AIMessageChunk)).toEqual(seen(core as AIMessageChunk));
      }),
      { numRuns: 200 },
    );
  });

  it("tool-call fragments and other keys go through core's constructor unchanged", () => {
    const fields: AIMessageChunkFields = {
      content: "",
      tool_call_chunks: [{ type: "tool_call_chunk", index: 0, id: "c1", name: "f", args: '{"a"' }],
    };
    const studio = new StudioAIMessageChunk(structuredClone(fields));
    expect(studio.tool_call_chunks).toEqual(fields.tool_call_chunks);
    expect(studio.lc_kwargs.tool_call_chunks).toEqual(fields.tool_call_chunks);
    const withContentBlocks = new StudioAIMessageChunk({
      contentBlocks: [{ type: "text", text: "v1" }],
    } as AIMessageChunkFields);
    expect(withContentBlocks.content).toEqual([{ type: "text", text: "v1" }]);
    expect(withContentBlocks.response_metadata.output_version).toBe("v1");
  });
});

it("a streamed message serializes as core's AIMessageChunk, which core's load reads back", async () => {
  const chunk = new StudioAIMessageChunk({
    content: "Hi",
    id: "c1",
    additional_kwargs: { refusal: "No." },
    response_metadata: { model_provider: "studio" },
  });
  const loaded = (await load(JSON.stringify(chunk))) as AIMessageChunk;
  expect(AIMessageChunk.isInstance(loaded)).toBe(true);
  expect(loaded.content).toBe("Hi");
  expect(loaded.id).toBe("c1");
  expect(loaded.additional_kwargs.refusal).toBe("No.");
});
