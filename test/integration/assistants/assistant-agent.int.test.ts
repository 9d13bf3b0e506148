/**
 * Assistants end to end against the emulator: create, load, run. The emulator's scripted model
 * calls the tools named in the last user message and answers `Tool said: ...` after tool results,
 * with the first 40 characters of the system prompt in brackets in front.
 */
import type { Callbacks } from "@langchain/core/callbacks/manager";
import { type AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import { loadAssistantAgent, StudioMaxIterationsError } from "../../../src/agents";
import type { Assistant } from "../../../src/api-types";
import { createAssistant, getAssistant, listAssistants } from "../../../src/assistants";
import type { CreateAssistantInput } from "../../../src/assistants/types";
import { StudioClient } from "../../../src/client";
import { StudioNotFoundError, StudioValidationError } from "../../../src/errors";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();

const INSTRUCTIONS = "You are a weather desk. Answer briefly.";
const PREFIX = `[${INSTRUCTIONS}] `;

const toolRuns: string[] = [];
const getWeather = tool(
  ({ city }) => {
    toolRuns.push(`get_weather:${city}`);
    return `${city}: sunny`;
  },
  {
    name: "get_weather",
    description: "Current weather for a city.",
    schema: z.object({ city: z.string().describe("city name") }),
  },
);
const getTime = tool(
  ({ zone }) => {
    toolRuns.push(`get_time:${zone}`);
    return `time in ${zone}: 12:00`;
  },
  {
    name: "get_time",
    description: "Current time in a time zone.",
    schema: z.object({ zone: z.string() }),
  },
);

const baseInput: CreateAssistantInput = {
  assistantName: "weather-desk",
  modelName: "studio/echo-small",
  description: "Weather and time.",
  instructions: INSTRUCTIONS,
  functionModel: { modelId: "studio/echo-small", temperature: 0, topP: 1 },
  responseModel: { modelId: "studio/echo-large", temperature: 0.7, topP: 0.9 },
  tools: [getWeather, getTime],
};

let client: StudioClient;

beforeEach(async () => {
  await emulator.handle.reset();
  toolRuns.length = 0;
  client = new StudioClient({
    apiKey: emulator.handle.apiKey,
    baseUrl: emulator.handle.baseUrl,
    proxyUrl: emulator.handle.proxyUrl,
    maxRetries: 0,
  });
});

afterEach(async () => {
  await client.close();
});

interface ChatBody {
  model: string;
  temperature?: number;
  top_p?: number;
  tools?: { function: { name: string; parameters: { required?: string[] } } }[];
  messages: { role: string; content: unknown }[];
}

function chatBodies(): ChatBody[] {
  return emulator.handle.requests
    .filter((r) => r.method === "POST" && r.path.endsWith("/chat/completions"))
    .map((r) => r.body as ChatBody);
}

function countRequests(pathEnd: string): number {
  return emulator.handle.requests.filter((r) => r.path.endsWith(pathEnd)).length;
}

async function create(patch: Partial<CreateAssistantInput> = {}): Promise<Assistant> {
  return createAssistant({ ...baseInput, ...patch }, { client });
}

describe("createAssistant / getAssistant / listAssistants", () => {
  it("creates an assistant with LangChain tools converted to the spec's Tool", async () => {
    const created = await create();
    expect(created.id).toBeTruthy();
    expect(created.tools?.map((t) => t.function?.name)).toEqual(["get_weather", "get_time"]);
    expect(created.tools?.[0]).toMatchObject({
      name: "get_weather",
      type: "function",
      function: { description: "Current weather for a city.", required: ["city"] },
    });
    const fetched = await getAssistant(created.id, { client });
    expect(fetched).toMatchObject({
      id: created.id,
      instructions: INSTRUCTIONS,
      functionModel: { modelId: "studio/echo-small", temperature: 0, topP: 1 },
      responseModel: { modelId: "studio/echo-large", temperature: 0.7, topP: 0.9 },
    });
  });

  it("lists every assistant across pages", async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await create({ assistantName: `a${i}` })).id);
    const listed: string[] = [];
    for await (const assistant of listAssistants({ client, limit: 2 })) listed.push(assistant.id);
    expect(listed).toEqual(ids);
    expect(countRequests("/v1/assistants")).toBeGreaterThanOrEqual(5 + 3);
  });

  it("makes a client from the environment when none is given", async () => {
    vi.stubEnv("STUDIO_API_KEY", emulator.handle.apiKey);
    vi.stubEnv("STUDIO_BASE_URL", emulator.handle.baseUrl);
    vi.stubEnv("STUDIO_PROXY_URL", emulator.handle.proxyUrl);
    try {
      const created = await createAssistant(baseInput);
      expect((await getAssistant(created.id)).assistantName).toBe("weather-desk");
      const listed: string[] = [];
      for await (const assistant of listAssistants()) listed.push(assistant.id);
      expect(listed).toEqual([created.id]);
      const agent = await loadAssistantAgent({
        assistantId: created.id,
        tools: [getWeather, getTime],
      });
      const { messages } = await agent.invoke({ messages: [new HumanMessage("hello")] });
      expect(messages.at(-1)?.text).toBe(`${PREFIX}You said: hello`);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("sends nothing when the input is invalid", async () => {
    emulator.handle.clearRequests();
    await expect(create({ functionModel: { temperature: 2.1 } })).rejects.toThrow(
      StudioValidationError,
    );
    await expect(create({ userFilters: { a: "1", b: "2", c: "3", d: "4" } })).rejects.toThrow(
      /userFilters/,
    );
    expect(emulator.handle.requests).toHaveLength(0);
  });
});

describe("loadAssistantAgent", () => {
  it("runs a turn: the function model calls a tool, the response model answers", async () => {
    const assistant = await create();
    const agent = await loadAssistantAgent({
      assistantId: assistant.id,
      tools: [getWeather, getTime],
      client,
    });
    emulator.handle.clearRequests();
    const question = 'Use get_weather with {"city": "Paris"}';
    const { messages } = await agent.invoke({ messages: [new HumanMessage(question)] });

    expect(messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect((messages[1] as AIMessage).tool_calls).toMatchObject([
      { name: "get_weather", args: { city: "Paris" } },
    ]);
    expect(messages[2]?.text).toBe("Paris: sunny");
    expect(messages.at(-1)?.text).toBe(`${PREFIX}Tool said: Paris: sunny`);
    expect(toolRuns).toEqual(["get_weather:Paris"]);

    const bodies = chatBodies();
    expect(bodies).toHaveLength(3);
    const [decide, decideAgain, answer] = bodies;
    for (const body of [decide, decideAgain]) {
      expect(body).toMatchObject({ model: "studio/echo-small", temperature: 0, top_p: 1 });
      expect(body?.tools?.map((t) => t.function.name)).toEqual(["get_weather", "get_time"]);
      expect(body?.tools?.[0]?.function.parameters.required).toEqual(["city"]);
      expect(body?.messages[0]).toMatchObject({ role: "system" });
    }
    // The final answer: the response model's own settings, no tools, the whole exchange.
    expect(answer).toMatchObject({ model: "studio/echo-large", temperature: 0.7, top_p: 0.9 });
    expect(answer).not.toHaveProperty("tools");
    expect(answer?.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
  });

  it("makes no extra call when both model configurations are the same", async () => {
    const same = { modelId: "studio/echo-small", temperature: 0.2, topP: 0.8 };
    const assistant = await create({ functionModel: same, responseModel: { ...same } });
    const agent = await loadAssistantAgent({ assistant, tools: [getWeather, getTime], client });
    emulator.handle.clearRequests();
    const { messages } = await agent.invoke({
      messages: [new HumanMessage('get_weather {"city": "Oslo"}')],
    });
    expect(messages.at(-1)?.text).toBe(`${PREFIX}Tool said: Oslo: sunny`);
    const bodies = chatBodies();
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body).toMatchObject({ model: "studio/echo-small", temperature: 0.2, top_p: 0.8 });
    }
  });

  it("runs tool calls that come together in parallel", async () => {
    let inFlight = 0;
    let peak = 0;
    let release: () => void = () => {};
    const bothRunning = new Promise<void>((resolve) => {
      release = resolve;
    });
    const gated = <T extends z.ZodObject>(name: string, schema: T, reply: string) =>
      tool(
        async () => {
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          if (inFlight === 2) release();
          // Bounded: a serial run would wait here 2 s and then fail the peak check.
          await Promise.race([bothRunning, new Promise((r) => setTimeout(r, 2_000))]);
          inFlight -= 1;
          return reply;
        },
        { name, description: name, schema },
      );
    const assistant = await create();
    const agent = await loadAssistantAgent({
      assistant,
      tools: [
        gated("get_weather", z.object({ city: z.string() }), "sunny"),
        gated("get_time", z.object({ zone: z.string() }), "noon"),
      ],
      client,
    });
    const { messages } = await agent.invoke({
      messages: [new HumanMessage("Check get_weather and get_time")],
    });
    expect(peak).toBe(2);
    const calls = (messages[1] as AIMessage).tool_calls ?? [];
    expect(calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
    // Arguments filled from the declared schemas.
    expect(calls.map((c) => c.args)).toEqual([{ city: "x" }, { zone: "x" }]);
    expect(messages.filter(ToolMessage.isInstance).map((m) => m.text)).toEqual(["sunny", "noon"]);
    expect(messages.at(-1)?.text).toBe(`${PREFIX}Tool said: sunny; noon`);
  });

  it("fails at load time listing missing and undeclared implementations", async () => {
    const assistant = await create();
    emulator.handle.clearRequests();
    const missing = await loadAssistantAgent({ assistant, tools: [getWeather], client }).catch(
      (e: unknown) => e,
    );
    expect(missing).toBeInstanceOf(StudioValidationError);
    expect((missing as Error).message).toMatch(/no implementation.*"get_time"/);

    const extra = tool(() => "x", { name: "extra_tool", description: "x", schema: z.object({}) });
    const undeclared = await loadAssistantAgent({
      assistant,
      tools: [getWeather, getTime, extra],
      client,
    }).catch((e: unknown) => e);
    expect(undeclared).toBeInstanceOf(StudioValidationError);
    expect((undeclared as Error).message).toMatch(/"extra_tool" not declared by the assistant/);
    expect(chatBodies()).toHaveLength(0);
  });

  it("feeds a tool error back to the model as an error ToolMessage", async () => {
    const broken = tool(
      (): string => {
        throw new Error("clock broken");
      },
      { name: "get_time", description: "broken clock", schema: z.object({ zone: z.string() }) },
    );
    const assistant = await create();
    const agent = await loadAssistantAgent({ assistant, tools: [getWeather, broken], client });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("call get_time")] });
    const toolMessage = messages.find(ToolMessage.isInstance);
    expect(toolMessage?.status).toBe("error");
    expect(toolMessage?.text).toBe('Tool "get_time" failed: Error: clock broken');
    expect(messages.at(-1)?.text).toBe(
      `${PREFIX}Tool said: Tool "get_time" failed: Error: clock broken`,
    );
  });

  it("stops with a clear error at maxIterations, without running the pending call", async () => {
    const assistant = await create();
    const agent = await loadAssistantAgent({
      assistant,
      tools: [getWeather, getTime],
      client,
      maxIterations: 1,
    });
    emulator.handle.clearRequests();
    const error = await agent
      .invoke({ messages: [new HumanMessage("get_weather please")] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioMaxIterationsError);
    expect((error as Error).message).toMatch(/after 1 function-model call: .*"get_weather"/);
    expect((error as StudioMaxIterationsError).messages.map((m) => m.type)).toEqual([
      "human",
      "ai",
    ]);
    expect(toolRuns).toEqual([]);
    expect(chatBodies()).toHaveLength(1);

    // Two iterations are enough for one tool round: the limit is not hit.
    const roomy = await loadAssistantAgent({
      assistant,
      tools: [getWeather, getTime],
      client,
      maxIterations: 2,
    });
    const { messages } = await roomy.invoke({ messages: [new HumanMessage("get_weather")] });
    expect(messages.at(-1)?.text).toBe(`${PREFIX}Tool said: x: sunny`);
  });

  it("surfaces a service error from a model call with its name, message and cause", async () => {
    const assistant = await create({
      modelName: "nobody/missing-model",
      functionModel: { modelId: "nobody/missing-model" },
      responseModel: { modelId: "nobody/missing-model" },
    });
    const agent = await loadAssistantAgent({ assistant, tools: [getWeather, getTime], client });
    const error = (await agent
      .invoke({ messages: [new HumanMessage("hi")] })
      .catch((e: unknown) => e)) as Error;
    // langchain's runtime wraps errors raised through a wrapModelCall middleware; the Studio error
    // is kept whole as the cause.
    expect(error.name).toBe("StudioNotFoundError");
    expect(error.message).toMatch(/404.*nobody\/missing-model/);
    expect(error.cause).toBeInstanceOf(StudioNotFoundError);
    expect(error.message).not.toContain(emulator.handle.apiKey);
  });

  it("resolves model record ids through the listing, once per client", async () => {
    const assistant = await create({
      modelName: "studio/echo-small",
      functionModel: { modelId: "mdl_echo_small", temperature: 0, topP: 1 },
      responseModel: { modelId: "mdl_echo_large", temperature: 0.5, topP: 1 },
    });
    emulator.handle.clearRequests();
    const agent = await loadAssistantAgent({ assistant, tools: [getWeather, getTime], client });
    await loadAssistantAgent({ assistant, tools: [getWeather, getTime], client });
    expect(countRequests("/svc.Studio/ListPublicModels")).toBeGreaterThanOrEqual(1);
    const listingCalls = countRequests("/svc.Studio/ListPublicModels");

    await agent.invoke({ messages: [new HumanMessage("get_weather")] });
    const bodies = chatBodies();
    expect(bodies[0]?.model).toBe("studio/echo-small");
    expect(bodies.at(-1)).toMatchObject({ model: "studio/echo-large", temperature: 0.5 });
    expect(countRequests("/svc.Studio/ListPublicModels")).toBe(listingCalls);

    // An id the listing does not hold falls back to the assistant's modelName.
    const unknown = await create({
      modelName: "studio/echo-large",
      functionModel: { modelId: "mdl_does_not_exist", temperature: 0 },
      responseModel: { modelId: "mdl_does_not_exist", temperature: 0 },
    });
    emulator.handle.clearRequests();
    const fallback = await loadAssistantAgent({
      assistant: unknown,
      tools: [getWeather, getTime],
      client,
    });
    await fallback.invoke({ messages: [new HumanMessage("hello")] });
    expect(chatBodies().map((b) => b.model)).toEqual(["studio/echo-large"]);
    expect(countRequests("/svc.Studio/ListPublicModels")).toBe(0);
  });

  it("streams state updates and events, and passes callbacks and signal through", async () => {
    const assistant = await create();
    const agent = await loadAssistantAgent({ assistant, tools: [getWeather, getTime], client });
    const input = { messages: [new HumanMessage('get_weather {"city": "Rome"}')] };

    const states = [];
    for await (const state of await agent.stream(input, { streamMode: "values" })) {
      states.push(state);
    }
    expect(states.at(-1)?.messages.at(-1)?.text).toBe(`${PREFIX}Tool said: Rome: sunny`);

    const events: { event: string; name: string; tags?: string[] }[] = [];
    for await (const event of agent.streamEvents(input, { version: "v2" })) {
      events.push(event);
    }
    const names = events.map((e) => `${e.event}:${e.name}`);
    expect(names).toContain("on_tool_start:get_weather");
    expect(names).toContain("on_tool_end:get_weather");
    const modelStarts = events.filter((e) => e.event === "on_chat_model_start");
    expect(modelStarts.map((e) => e.tags?.find((t) => t.startsWith("studio:")))).toEqual([
      "studio:functionModel",
      "studio:functionModel",
      "studio:responseModel",
    ]);
    const streamed = events
      .filter((e) => e.event === "on_chat_model_stream" && e.tags?.includes("studio:responseModel"))
      .map((e) => (e as unknown as { data: { chunk: AIMessage } }).data.chunk.text)
      .join("");
    expect(streamed).toBe(`${PREFIX}Tool said: Rome: sunny`);

    const seen: string[] = [];
    // Typed through `Callbacks`: the handler-methods type is named differently across core 1.x.
    const callbacks: Callbacks = [
      {
        handleChatModelStart: async () => {
          seen.push("model");
        },
        handleToolStart: async () => {
          seen.push("tool");
        },
      },
    ];
    await agent.invoke(input, { callbacks });
    expect(seen).toEqual(["model", "tool", "model", "model"]);

    emulator.handle.clearRequests();
    const controller = new AbortController();
    controller.abort(new Error("user cancelled"));
    await expect(agent.invoke(input, { signal: controller.signal })).rejects.toThrow(
      "user cancelled",
    );
    expect(chatBodies()).toHaveLength(0);
  });
});

describe("loadAssistantAgent with history", () => {
  it("loads earlier turns first and appends each whole turn to the thread", async () => {
    const { StudioChatMessageHistory } = await import("../../../src/chat_history");
    const history = new StudioChatMessageHistory({ client });
    const assistant = await create();
    const agent = await loadAssistantAgent({
      assistant,
      tools: [getWeather, getTime],
      client,
      history,
    });

    const first = await agent.invoke({
      messages: [new HumanMessage('get_weather {"city": "Lima"}')],
    });
    expect(first.messages.at(-1)?.text).toBe(`${PREFIX}Tool said: Lima: sunny`);
    emulator.handle.clearRequests();

    const second = await agent.invoke({ messages: [new HumanMessage("and the time? get_time")] });
    expect(second.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(second.messages.at(-1)?.text).toBe(`${PREFIX}Tool said: time in x: 12:00`);

    // The second turn's first request carries the whole first turn before the new question.
    const roles = chatBodies()[0]?.messages.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);

    const stored = await history.getMessages();
    expect(stored.map((m) => m.type)).toEqual([
      "human",
      "ai",
      "tool",
      "ai",
      "human",
      "ai",
      "tool",
      "ai",
    ]);
    expect(stored.map((m) => m.text)).toEqual([
      ...first.messages.map((m) => m.text),
      ...second.messages.map((m) => m.text),
    ]);
  });
});
