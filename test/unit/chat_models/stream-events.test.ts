/**
 * Content-block events of streamed tool calls, the form chat UIs read (`streamEvents()` without a
 * version, and LangGraph's message streaming on core 1.4). Core 1.3 changed it: argument slices
 * come as `tool-call-delta` events (each holding its slice); core 1.2 sent `block-delta` events
 * holding the arguments so far. Both are checked, each on the core that has it.
 */
import type { ChatModelStreamEvent } from "@langchain/core/language_models/event";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChatCompletionChunk } from "../../../src/api-types";
import { MODEL, newModel, replyStream } from "./helpers";

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

// Through vitest's resolver (not Node's `require`), so the version matrix's lowest leg reads the
// core it aliased in, not the repository's.
const coreVersion = ((await import("@langchain/core/package.json")) as { version: string }).version;
const [major = 0, minor = 0] = coreVersion.split(".").map(Number);
const slicedArgs = major > 1 || (major === 1 && minor >= 3);

const base = { id: "chatcmpl-t", object: "chat.completion.chunk", created: 1, model: MODEL };
function chunk(delta: Record<string, unknown>, finish: string | null = null): ChatCompletionChunk {
  return { ...base, choices: [{ index: 0, delta, finish_reason: finish }] } as ChatCompletionChunk;
}

/** Two parallel calls whose argument slices interleave, after a line of text. */
function parallelCalls(): ChatCompletionChunk[] {
  const call = (index: number, fn: Record<string, unknown>, id?: string) =>
    chunk({ tool_calls: [{ index, ...(id && { id, type: "function" }), function: fn }] });
  return [
    chunk({ role: "assistant", content: "Checking." }),
    call(0, { name: "get_weather", arguments: "" }, "call_a"),
    call(0, { arguments: '{"city":' }),
    call(1, { name: "get_time", arguments: '{"tz":' }, "call_b"),
    call(0, { arguments: '"Paris"}' }),
    call(1, { arguments: '"CET"}' }),
    chunk({}, "tool_calls"),
    { ...base, choices: [], usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 } },
  ];
}

type BlockEvent = Extract<
  ChatModelStreamEvent,
  { event: "content-block-start" | "content-block-delta" | "content-block-finish" }
>;

async function blockEvents(): Promise<BlockEvent[]> {
  replyStream(parallelCalls());
  const events: BlockEvent[] = [];
  for await (const event of newModel().streamEvents("weather and time in Paris?")) {
    if (event.event.startsWith("content-block")) events.push(event as BlockEvent);
  }
  return events;
}

describe(`streamed tool calls as content-block events (core ${coreVersion})`, () => {
  it("each call starts as a tool_call_chunk block with its id, name and index", async () => {
    const starts = (await blockEvents()).filter((e) => e.event === "content-block-start");
    expect(starts.map((e) => (e as { content: unknown }).content)).toEqual([
      { type: "text", text: "" },
      { type: "tool_call_chunk", id: "call_a", name: "get_weather", args: "", index: 0 },
      { type: "tool_call_chunk", id: "call_b", name: "get_time", args: "", index: 1 },
    ]);
  });

  it.runIf(slicedArgs)(
    "core 1.3+: arguments arrive as tool-call-delta slices, in wire order per block",
    async () => {
      const events = await blockEvents();
      const starts = new Map<number, string>();
      for (const e of events) {
        if (e.event === "content-block-start") {
          starts.set(e.index, (e.content as { name?: string }).name ?? "text");
        }
      }
      const slices = events
        .filter((e) => e.event === "content-block-delta" && e.delta.type === "tool-call-delta")
        .map((e) => {
          const delta = (e as { delta: { args: string } }).delta;
          return [starts.get(e.index), delta.args];
        });
      expect(slices).toEqual([
        ["get_weather", '{"city":'],
        ["get_time", '{"tz":'],
        ["get_weather", '"Paris"}'],
        ["get_time", '"CET"}'],
      ]);
    },
  );

  it.runIf(!slicedArgs)(
    "core 1.2: arguments arrive as block-delta with the args so far",
    async () => {
      const events = await blockEvents();
      const lastArgs = new Map<number, string>();
      for (const e of events) {
        if (e.event !== "content-block-delta" || e.delta.type !== "block-delta") continue;
        const fields = e.delta.fields as { type: string; args?: string };
        if (fields.type === "tool_call_chunk") lastArgs.set(e.index, fields.args ?? "");
      }
      expect([...lastArgs.values()].sort()).toEqual(['{"city":"Paris"}', '{"tz":"CET"}']);
    },
  );

  it("each block finishes as a parsed tool_call; the message has both calls and the text", async () => {
    const events = await blockEvents();
    const finished = events
      .filter((e) => e.event === "content-block-finish")
      .map((e) => (e as { content: unknown }).content);
    expect(finished).toEqual([
      { type: "text", text: "Checking." },
      expect.objectContaining({
        type: "tool_call",
        id: "call_a",
        name: "get_weather",
        args: { city: "Paris" },
      }),
      expect.objectContaining({
        type: "tool_call",
        id: "call_b",
        name: "get_time",
        args: { tz: "CET" },
      }),
    ]);
  });

  it("the assembled message and the toolCalls stream a chat UI awaits", async () => {
    replyStream(parallelCalls());
    const stream = newModel().streamEvents("weather and time in Paris?");
    const calls = await stream.toolCalls;
    expect(calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: "get_weather", args: { city: "Paris" } },
      { name: "get_time", args: { tz: "CET" } },
    ]);
    const message = await stream.output;
    expect(message.tool_calls?.map((c) => c.id)).toEqual(["call_a", "call_b"]);
    expect(message.text).toBe("Checking.");
    expect(message.usage_metadata?.total_tokens).toBe(21);
    expect(message.response_metadata).toMatchObject({
      model_provider: "studio",
      finish_reason: "tool_use",
    });
  });

  it("arguments that are JSON but not an object finish as an invalid tool call", async () => {
    replyStream([
      chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "f", arguments: "[1,2]" } }] }),
      chunk({}, "tool_calls"),
    ]);
    const message = await newModel().streamEvents("hi").output;
    expect(message.contentBlocks).toEqual([
      expect.objectContaining({ type: "invalid_tool_call", name: "f", args: "[1,2]" }),
    ]);
  });
});
