/**
 * `outputVersion: "v1"`: replies come with their content as standard content blocks (reasoning,
 * text, tool calls), invoked or streamed, and such a reply fed back in the next call is sent
 * exactly as the same reply in v0 form would be.
 */
import {
  type AIMessage,
  type AIMessageChunk,
  HumanMessage,
  ToolMessage,
} from "@langchain/core/messages";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChatCompletion, ChatCompletionChunk } from "../../../src/api-types";
import { completion, MODEL, newModel, replyJson, replyStream, textChunks } from "./helpers";

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

const TOOL_REPLY: ChatCompletion = completion({
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: "Checking.",
        reasoning_content: "The user wants the weather.",
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
          },
        ],
      },
      finish_reason: "tool_calls",
    },
  ],
});

const V1_BLOCKS = [
  { type: "reasoning", reasoning: "The user wants the weather." },
  { type: "text", text: "Checking." },
  { type: "tool_call", id: "call_1", name: "get_weather", args: { city: "Oslo" } },
];

/** What the next request sends for [question, reply, tool result], in either version. */
const SENT_BACK = [
  { role: "user", content: "weather in Oslo?" },
  {
    role: "assistant",
    content: "Checking.",
    tool_calls: [
      {
        id: "call_1",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
      },
    ],
    reasoning_content: "The user wants the weather.",
  },
  { role: "tool", tool_call_id: "call_1", content: "sunny" },
];

/** The reply of TOOL_REPLY, streamed in fragments. */
function toolCallStream(): ChatCompletionChunk[] {
  const base = { id: "c", object: "chat.completion.chunk", created: 1, model: MODEL };
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    ({
      ...base,
      choices: [{ index: 0, delta: d, finish_reason: finish }],
    }) as ChatCompletionChunk;
  return [
    delta({ reasoning_content: "The user wants " }),
    delta({ reasoning_content: "the weather." }),
    delta({ content: "Check" }),
    delta({ content: "ing." }),
    delta({
      tool_calls: [
        {
          index: 0,
          id: "call_1",
          type: "function",
          function: { name: "get_weather", arguments: '{"city":' },
        },
      ],
    }),
    delta({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
    delta({}, "tool_calls"),
  ];
}

async function sentBack(reply: AIMessage | AIMessageChunk): Promise<unknown> {
  const { bodies } = replyJson(completion());
  await newModel().invoke([
    new HumanMessage("weather in Oslo?"),
    reply,
    new ToolMessage({ tool_call_id: "call_1", content: "sunny" }),
  ]);
  return bodies[0]?.messages;
}

describe('outputVersion "v1"', () => {
  it("invoke: content as standard blocks, tool calls and reasoning kept beside them", async () => {
    replyJson(TOOL_REPLY);
    const reply = await newModel({ outputVersion: "v1" }).invoke("weather in Oslo?");
    expect(reply.content).toEqual(V1_BLOCKS);
    expect(reply.response_metadata.output_version).toBe("v1");
    expect(reply.tool_calls).toEqual([
      { type: "tool_call", id: "call_1", name: "get_weather", args: { city: "Oslo" } },
    ]);
    expect(reply.text).toBe("Checking.");
  });

  it("the call option overrides the model's; v0 (the default) keeps string content", async () => {
    replyJson(TOOL_REPLY);
    const v0 = await newModel().invoke("weather in Oslo?");
    expect(v0.content).toBe("Checking.");
    replyJson(TOOL_REPLY);
    const v1 = await newModel().invoke("weather in Oslo?", { outputVersion: "v1" });
    expect(v1.content).toEqual(V1_BLOCKS);
  });

  it("a v1 reply fed back is sent exactly as the v0 reply is", async () => {
    replyJson(TOOL_REPLY);
    const v1 = await newModel({ outputVersion: "v1" }).invoke("weather in Oslo?");
    replyJson(TOOL_REPLY);
    const v0 = await newModel().invoke("weather in Oslo?");
    expect(await sentBack(v1)).toEqual(SENT_BACK);
    expect(await sentBack(v0)).toEqual(SENT_BACK);
  });

  it("stream: every chunk's content is blocks; the sum's text and tool call, fed back, are sent as invoked", async () => {
    replyStream(toolCallStream());
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await newModel({ outputVersion: "v1" }).stream("weather in Oslo?")) {
      chunks.push(chunk);
    }
    expect(chunks.every((chunk) => Array.isArray(chunk.content))).toBe(true);
    expect(chunks[2]?.content).toEqual([{ type: "text", text: "Check" }]);
    const sum = chunks.reduce((a, b) => a.concat(b));
    expect(sum.text).toBe("Checking.");
    // The fragments' blocks join per index, as core concatenates them: one whole call.
    expect(sum.content).toContainEqual({
      type: "tool_call_chunk",
      id: "call_1",
      name: "get_weather",
      args: '{"city":"Oslo"}',
      index: 0,
    });
    expect(
      (sum.content as { type: string }[]).filter((block) => block.type.includes("tool_call")),
    ).toHaveLength(1);
    expect(sum.tool_calls).toEqual([
      { type: "tool_call", id: "call_1", name: "get_weather", args: { city: "Oslo" } },
    ]);
    expect(sum.response_metadata.output_version).toBe("v1");
    expect(await sentBack(sum)).toEqual(SENT_BACK);
  });

  it("invoke with streaming: true gives the same blocks as a plain invoke", async () => {
    replyStream(toolCallStream());
    const reply = await newModel({ outputVersion: "v1", streaming: true }).invoke("weather?");
    expect(reply.content).toEqual(V1_BLOCKS);
  });

  it("a streamed v1 text reply fed back is its text", async () => {
    replyStream(textChunks(["Hel", "lo"]));
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await newModel({ outputVersion: "v1" }).stream("hi")) {
      chunks.push(chunk);
    }
    const sum = chunks.reduce((a, b) => a.concat(b));
    const { bodies } = replyJson(completion());
    await newModel().invoke([new HumanMessage("hi"), sum]);
    expect(bodies[0]?.messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hello" },
    ]);
  });
});
