/**
 * The emulator as a LangChain user's test server: a `createAgent` agent with a tool, run against
 * scripted replies (invoked and streamed), the errors a script injects as ChatStudio raises them,
 * human-in-the-loop conversations a real server refuses, and the profile a tool-capable model
 * declares.
 */
import { ContextOverflowError } from "@langchain/core/errors";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent, humanInTheLoopMiddleware, toolStrategy } from "langchain";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { ChatStudio } from "../../../src/chat_models";
import type { EmulatorHandle } from "../../../src/emulator";
import {
  StudioBadRequestError,
  StudioRateLimitError,
  StudioServerError,
} from "../../../src/errors";
import { useEmulator } from "../../helpers/emulator";

const MODEL = "studio/echo-small";
const emulator = useEmulator();
const lenient = useEmulator({ strictToolMessages: false });
const models: ChatStudio[] = [];

function newModel(on: EmulatorHandle = emulator.handle, maxRetries = 0): ChatStudio {
  const { apiKey, baseUrl, proxyUrl } = on;
  const model = new ChatStudio({ model: MODEL, apiKey, baseUrl, proxyUrl, maxRetries });
  models.push(model);
  return model;
}

const lookups: string[] = [];
const getOrder = tool(
  ({ orderId }) => {
    lookups.push(orderId);
    return `Order ${orderId}: shipped on Monday`;
  },
  {
    name: "get_order",
    description: "Status of an order.",
    schema: z.object({ orderId: z.string() }),
  },
);
const cancelOrder = tool(({ orderId }) => `Order ${orderId} cancelled`, {
  name: "cancel_order",
  description: "Cancels an order.",
  schema: z.object({ orderId: z.string() }),
});

afterEach(async () => {
  lookups.length = 0;
  await emulator.handle.reset();
  await lenient.handle.reset();
});
afterAll(async () => {
  await Promise.all(models.map((m) => m.client.close()));
});

function supportAgent() {
  return createAgent({
    model: newModel(),
    tools: [getOrder],
    systemPrompt: "You are ACME's support bot.",
  });
}

const orderScript = [
  { toolCalls: [{ name: "get_order", args: { orderId: "A-17" }, id: "call_order" }] },
  "Your order A-17 shipped on Monday.",
];

describe("createAgent against a script", () => {
  it("invoke: the scripted call runs the tool, whose result goes back to the model", async () => {
    const script = emulator.handle.script(MODEL, orderScript);
    const result = await supportAgent().invoke({
      messages: [{ role: "user", content: "Where is my order A-17?" }],
    });

    expect(lookups).toEqual(["A-17"]);
    expect(result.messages.at(-1)?.text).toBe("Your order A-17 shipped on Monday.");
    expect(script.remaining).toBe(0);
    const [first, second] = script.requests;
    expect(first?.tools?.map((t) => t.function.name)).toEqual(["get_order"]);
    expect(first?.messages?.[0]).toEqual({
      role: "system",
      content: "You are ACME's support bot.",
    });
    expect(second?.messages?.at(-1)).toEqual({
      role: "tool",
      tool_call_id: "call_order",
      content: "Order A-17: shipped on Monday",
    });
  });

  it("stream: the same run over streamed completions, token by token", async () => {
    const script = emulator.handle.script(MODEL, orderScript);
    const tokens: string[] = [];
    const stream = await supportAgent().stream(
      { messages: [{ role: "user", content: "Where is my order A-17?" }] },
      { streamMode: "messages" },
    );
    for await (const [chunk] of stream) {
      if (chunk.type === "ai" && chunk.text) tokens.push(chunk.text);
    }
    expect(lookups).toEqual(["A-17"]);
    expect(tokens.join("")).toBe("Your order A-17 shipped on Monday.");
    expect(tokens.length).toBeGreaterThan(1);
    expect(script.requests.map((r) => r.stream)).toEqual([true, true]);
  });

  it("a structured reply becomes the agent's structuredResponse", async () => {
    emulator.handle.script(MODEL, [
      orderScript[0]!,
      { structured: { orderId: "A-17", shipped: true } },
    ]);
    const agent = createAgent({
      model: newModel(),
      tools: [getOrder],
      responseFormat: toolStrategy(z.object({ orderId: z.string(), shipped: z.boolean() })),
    });
    const result = await agent.invoke({ messages: [{ role: "user", content: "A-17?" }] });
    expect(result.structuredResponse).toEqual({ orderId: "A-17", shipped: true });
  });
});

describe("scripted errors as ChatStudio raises them", () => {
  it("a 429 with Retry-After is retried, and the retry takes the next reply", async () => {
    const script = emulator.handle.script(MODEL, [
      { error: { status: 429, headers: { "retry-after": "0" } } },
      "Recovered.",
    ]);
    expect((await newModel(emulator.handle, 1).invoke("hi")).text).toBe("Recovered.");
    expect(script.requests).toHaveLength(2);

    emulator.handle.script(MODEL, [{ error: { status: 429, message: "Too many requests." } }]);
    await expect(newModel().invoke("hi")).rejects.toBeInstanceOf(StudioRateLimitError);
  });

  it("an in-stream error ends the stream with a StudioServerError, after the text it sent", async () => {
    emulator.handle.script(MODEL, [
      { text: "Partial answer", error: { status: 500, message: "GPU lost.", inStream: true } },
    ]);
    const seen: string[] = [];
    const run = async () => {
      for await (const chunk of await newModel().stream("hi")) seen.push(chunk.text);
    };
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioServerError);
    expect((error as Error).message).toContain("GPU lost.");
    expect(seen.join("")).toBe("Partial answer");
  });

  it("a prompt over the window is core's ContextOverflowError, caused by the 400 context_length_exceeded", async () => {
    const error = await newModel()
      .invoke("word ".repeat(7000))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContextOverflowError);
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(StudioBadRequestError);
    expect(cause).toMatchObject({ status: 400, code: "context_length_exceeded" });
    expect((cause as Error).message).toContain("maximum context length is 8192 tokens");
  });
});

describe("human in the loop", () => {
  // One call runs without review, the other waits for a human, who rejects it.
  function reviewedAgent(on: EmulatorHandle) {
    return createAgent({
      model: newModel(on),
      tools: [getOrder, cancelOrder],
      middleware: [humanInTheLoopMiddleware({ interruptOn: { cancel_order: true } })],
      checkpointer: new MemorySaver(),
    });
  }
  const script = [
    {
      toolCalls: [
        { name: "get_order", args: { orderId: "A-17" }, id: "call_lookup" },
        { name: "cancel_order", args: { orderId: "A-17" }, id: "call_cancel" },
      ],
    },
    "I kept the order, as you asked.",
  ];
  const config = { configurable: { thread_id: "review-1" } };
  const reject = new Command({ resume: { decisions: [{ type: "reject", message: "Keep it." }] } });

  it("a rejection leaves the approved call unanswered, which a real server refuses", async () => {
    emulator.handle.script(MODEL, script);
    const agent = reviewedAgent(emulator.handle);
    const paused = await agent.invoke(
      { messages: [{ role: "user", content: "Cancel A-17" }] },
      config,
    );
    expect(paused.__interrupt__).toHaveLength(1);

    const error = await agent.invoke(reject, config).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioBadRequestError);
    expect((error as Error).message).toContain(
      "The following tool_call_ids did not have response messages: call_lookup",
    );
  });

  it("strictToolMessages: false lets such a conversation through, as lenient servers do", async () => {
    const script2 = lenient.handle.script(MODEL, script);
    const agent = reviewedAgent(lenient.handle);
    await agent.invoke({ messages: [{ role: "user", content: "Cancel A-17" }] }, config);
    const result = await agent.invoke(reject, config);
    expect(result.messages.at(-1)?.text).toBe("I kept the order, as you asked.");
    const sent = script2.requests[1]?.messages ?? [];
    expect(sent.filter((m) => m.role === "tool")).toEqual([
      { role: "tool", tool_call_id: "call_cancel", content: "Keep it." },
    ]);
    expect(result.messages.some((m) => AIMessage.isInstance(m) && m.tool_calls?.length)).toBe(true);
    expect(result.messages.filter((m) => ToolMessage.isInstance(m))).toHaveLength(1);
  });
});

describe("profiles", () => {
  it("every chat model of the listing, the README's included, declares tool calling", async () => {
    const profile = await newModel().loadProfile();
    expect(profile).toMatchObject({
      toolCalling: true,
      toolChoice: true,
      structuredOutput: true,
      maxInputTokens: 8192,
    });
    const { apiKey, baseUrl, proxyUrl } = emulator.handle;
    for (const uri of [
      "studio/echo-large",
      "meta/llama-3-8b-instruct",
      "mistralai/mistral-7b-instruct",
    ]) {
      const model = new ChatStudio({ model: uri, apiKey, baseUrl, proxyUrl });
      models.push(model);
      expect((await model.loadProfile()).toolCalling, uri).toBe(true);
    }
    const textModel = new ChatStudio({ model: "studio/echo-text", apiKey, baseUrl, proxyUrl });
    models.push(textModel);
    expect((await textModel.loadProfile()).toolCalling).toBe(false);
  });
});
