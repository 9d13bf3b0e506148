/**
 * The exact request body ChatStudio sends for each option and each message type (nock, through
 * the client's fetch transport), and how the response comes back.
 */
import {
  AIMessage,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { completion, MODEL, newModel, replyJson } from "./helpers";

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

const user = { role: "user", content: "hi" };

describe("request body per option", () => {
  it("sends only model, messages and stream when nothing else is set", async () => {
    const { bodies } = replyJson(completion());
    await newModel().invoke("hi");
    expect(bodies[0]).toEqual({ model: MODEL, messages: [user], stream: false });
  });

  it("maps every constructor field to its snake_case wire field", async () => {
    const { bodies } = replyJson(completion());
    await newModel({
      temperature: 0.5,
      maxTokens: 64,
      topP: 0.9,
      n: 1,
      stop: ["\n\n"],
      presencePenalty: 0.1,
      frequencyPenalty: -0.2,
      penalty: 1.1,
      logitBias: { "50256": -100 },
      modelKwargs: { echo: false, seed: 7 },
    }).invoke("hi");
    expect(bodies[0]).toEqual({
      model: MODEL,
      messages: [user],
      stream: false,
      temperature: 0.5,
      max_tokens: 64,
      top_p: 0.9,
      n: 1,
      stop: ["\n\n"],
      presence_penalty: 0.1,
      frequency_penalty: -0.2,
      penalty: 1.1,
      logit_bias: { "50256": -100 },
      echo: false,
      seed: 7,
    });
  });

  it("stopSequences is an alias of stop", async () => {
    const { bodies } = replyJson(completion());
    await newModel({ stopSequences: ["END"] }).invoke("hi");
    expect(bodies[0]?.stop).toEqual(["END"]);
  });

  it("call options win over fields; modelKwargs win over both", async () => {
    const { bodies } = replyJson(completion());
    const model = newModel({ temperature: 0.1, maxTokens: 10, modelKwargs: { top_p: 0.3 } });
    await model.invoke("hi", {
      temperature: 1.5,
      maxTokens: 20,
      topP: 0.8,
      stop: ["x"],
      n: 1,
      presencePenalty: 1,
      frequencyPenalty: 1,
      penalty: 1,
      logitBias: { a: 1 },
    });
    expect(bodies[0]).toEqual({
      model: MODEL,
      messages: [user],
      stream: false,
      temperature: 1.5,
      max_tokens: 20,
      top_p: 0.3,
      n: 1,
      stop: ["x"],
      presence_penalty: 1,
      frequency_penalty: 1,
      penalty: 1,
      logit_bias: { a: 1 },
    });
  });

  it("withConfig binds call options like invoke options", async () => {
    const { bodies } = replyJson(completion());
    await newModel().withConfig({ temperature: 0, maxTokens: 5 }).invoke("hi");
    expect(bodies[0]).toMatchObject({ temperature: 0, max_tokens: 5 });
  });

  it("response_format is sent as given", async () => {
    const { bodies } = replyJson(completion());
    await newModel().invoke("hi", { response_format: { type: "json_object" } });
    expect(bodies[0]?.response_format).toEqual({ type: "json_object" });
  });
});

describe("request body per message type", () => {
  it("sends each message type in the wire shape", async () => {
    const { bodies } = replyJson(completion());
    await newModel().invoke([
      new SystemMessage("be brief"),
      new HumanMessage({ content: "hi", name: "ann" }),
      new AIMessage({
        content: "",
        tool_calls: [{ id: "call_1", name: "get_weather", args: { city: "Paris" } }],
      }),
      new ToolMessage({ content: "sunny", tool_call_id: "call_1" }),
      new FunctionMessage({ content: "42", name: "answer" }),
      new ChatMessage("a note", "critic"),
      new HumanMessage({
        content: [
          { type: "text", text: "and this?" },
          { type: "image_url", image_url: { url: "https://example.com/a.png" } },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ],
      }),
    ]);
    expect(bodies[0]?.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "hi", name: "ann" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
      { role: "function", name: "answer", content: "42" },
      { role: "critic", content: "a note" },
      {
        role: "user",
        content: [
          { type: "text", text: "and this?" },
          { type: "image_url", image_url: { url: "https://example.com/a.png" } },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        ],
      },
    ]);
  });

  it("prompt templates' message tuples arrive as roles", async () => {
    const { bodies } = replyJson(completion());
    await newModel().invoke([
      ["system", "s"],
      ["human", "h"],
      ["ai", "a"],
    ]);
    expect(bodies[0]?.messages).toEqual([
      { role: "system", content: "s" },
      { role: "user", content: "h" },
      { role: "assistant", content: "a" },
    ]);
  });
});

describe("response -> AIMessage", () => {
  it("content, id, usage_metadata and response_metadata", async () => {
    replyJson(completion());
    const message = await newModel().invoke("hi");
    expect(message.content).toBe("You said: hi");
    expect(message.id).toBe("chatcmpl-unit");
    expect(message.usage_metadata).toEqual({ input_tokens: 4, output_tokens: 3, total_tokens: 7 });
    expect(message.response_metadata).toMatchObject({
      model_provider: "studio",
      model_name: MODEL,
      finish_reason: "stop",
      id: "chatcmpl-unit",
      created: 1_700_000_000,
    });
  });

  it("tool calls parsed; bad arguments in invalid_tool_calls", async () => {
    replyJson(
      completion({
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                { id: "c1", type: "function", function: { name: "f", arguments: '{"x":1}' } },
                { id: "c2", type: "function", function: { name: "g", arguments: "{" } },
              ],
            },
            finish_reason: "tool_calls",
          },
        ],
      }),
    );
    const message = await newModel().invoke("hi");
    expect(message.tool_calls).toEqual([
      { id: "c1", name: "f", args: { x: 1 }, type: "tool_call" },
    ]);
    expect(message.invalid_tool_calls?.map((c) => c.id)).toEqual(["c2"]);
    expect(message.response_metadata.finish_reason).toBe("tool_calls");
  });

  it("n > 1 gives n generations", async () => {
    const { bodies } = replyJson(
      completion({
        choices: [0, 1, 2].map((index) => ({
          index,
          message: { role: "assistant", content: `answer ${index}` },
          finish_reason: "stop",
        })),
      }),
    );
    const result = await newModel({ n: 3 }).generate([[new HumanMessage("hi")]]);
    expect(bodies[0]?.n).toBe(3);
    expect(result.generations[0]?.map((g) => g.text)).toEqual(["answer 0", "answer 1", "answer 2"]);
    expect(result.llmOutput?.tokenUsage).toEqual({
      promptTokens: 4,
      completionTokens: 3,
      totalTokens: 7,
    });
  });
});
