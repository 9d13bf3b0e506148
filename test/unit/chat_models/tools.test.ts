/**
 * `bindTools`: each tool input kind and each tool choice, as they arrive in the request body.
 */
import { RunnableLambda } from "@langchain/core/runnables";
import { StructuredTool, tool } from "@langchain/core/tools";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z as z3 } from "zod/v3";
import { z as z4 } from "zod/v4";
import { ChatStudio } from "../../../src/chat_models";
import { StudioValidationError } from "../../../src/errors";
import { completion, newModel, replyJson } from "./helpers";

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

const cityJson = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
};

class WeatherTool extends StructuredTool {
  name = "weather_class";
  description = "Weather (class)";
  schema = z4.object({ city: z4.string() });
  async _call({ city }: { city: string }): Promise<string> {
    return city;
  }
}

const inputs = {
  "tool() + zod v4": tool(async ({ city }) => city, {
    name: "weather_v4",
    description: "Weather (v4)",
    schema: z4.object({ city: z4.string() }),
  }),
  "tool() + zod v3": tool(async ({ city }: { city: string }) => city, {
    name: "weather_v3",
    description: "Weather (v3)",
    schema: z3.object({ city: z3.string() }),
  }),
  StructuredTool: new WeatherTool(),
  "zod v3 params": {
    name: "weather_p3",
    description: "Weather (p3)",
    schema: z3.object({ city: z3.string() }),
  },
  "zod v4 params": {
    name: "weather_p4",
    description: "Weather (p4)",
    schema: z4.object({ city: z4.string() }),
  },
  "JSON schema params": { name: "weather_json", description: "Weather (json)", schema: cityJson },
  "OpenAI tool": {
    type: "function",
    function: { name: "weather_openai", description: "Weather (openai)", parameters: cityJson },
  },
  "runnable tool-like": RunnableLambda.from(async ({ city }: { city: string }) => city).asTool({
    name: "weather_runnable",
    description: "Weather (runnable)",
    schema: z4.object({ city: z4.string() }),
  }),
} as const;

describe("bindTools: each input kind reaches the body as an OpenAI-style tool", () => {
  it.each(Object.entries(inputs))("%s", async (_, input) => {
    const { bodies } = replyJson(completion());
    await newModel().bindTools([input]).invoke("hi");
    const tools = bodies[0]?.tools as {
      type: string;
      function: { name: string; description: string; parameters: Record<string, unknown> };
    }[];
    expect(tools).toHaveLength(1);
    expect(tools[0]?.type).toBe("function");
    expect(tools[0]?.function.name).toMatch(/^weather_/);
    expect(tools[0]?.function.description).toMatch(/^Weather \(/);
    expect(tools[0]?.function.parameters).toMatchObject({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    });
    expect(bodies[0]?.tool_choice).toBeUndefined();
  });

  it("all kinds at once, in order", async () => {
    const { bodies } = replyJson(completion());
    await newModel().bindTools(Object.values(inputs)).invoke("hi");
    const tools = (bodies[0]?.tools ?? []) as { function: { name: string } }[];
    const names = tools.map((t) => t.function.name);
    expect(names).toEqual([
      "weather_v4",
      "weather_v3",
      "weather_class",
      "weather_p3",
      "weather_p4",
      "weather_json",
      "weather_openai",
      "weather_runnable",
    ]);
  });
});

describe("bindTools: tool_choice", () => {
  it.each([
    ["auto", "auto"],
    ["none", "none"],
    ["required", "required"],
    ["any", "required"],
    ["weather_json", { type: "function", function: { name: "weather_json" } }],
    [
      { type: "tool", name: "weather_json" },
      { type: "function", function: { name: "weather_json" } },
    ],
  ])("%j -> %j", async (choice, expected) => {
    const { bodies } = replyJson(completion());
    await newModel()
      .bindTools([inputs["JSON schema params"]], { tool_choice: choice })
      .invoke("hi");
    expect(bodies[0]?.tool_choice).toEqual(expected);
  });

  it("bindTools only binds: the tool choice is checked and nothing is sent until a call", () => {
    const model = newModel();
    const bound = model.bindTools([inputs["OpenAI tool"]], { tool_choice: "unknown_tool" });
    expect(bound).toBeDefined();
    expect(nock.pendingMocks()).toEqual([]);
  });

  it("invocationParams show the converted tools (for tracing), never the key", () => {
    const model = new ChatStudio({ model: "o/m", apiKey: "sk-secret-tools-123456" });
    const params = model.invocationParams({
      tools: [inputs["JSON schema params"]],
      tool_choice: "any",
    } as never);
    expect(params.tools?.[0]?.function.name).toBe("weather_json");
    expect(params.tool_choice).toBe("required");
    expect(JSON.stringify(params)).not.toContain("sk-secret");
  });
});

describe("bindTools refuses tools the wire would refuse, before anything is sent", () => {
  const weather = (name: string) =>
    tool(async ({ city }) => city, {
      name,
      description: "Weather",
      schema: z4.object({ city: z4.string() }),
    });

  function bindError(tools: Parameters<ChatStudio["bindTools"]>[0]): StudioValidationError {
    try {
      newModel().bindTools(tools);
    } catch (error) {
      expect(error).toBeInstanceOf(StudioValidationError);
      return error as StudioValidationError;
    }
    throw new Error("bindTools accepted the tools");
  }

  it.each([
    ["get weather", "get_weather"],
    ["weather.today", "weather_today"],
    ["météo", "m_t_o"],
  ])("a name with characters outside [a-zA-Z0-9_-]: %j", (name, suggestion) => {
    const error = bindError([weather("ok_tool"), weather(name)]);
    expect(error.field).toBe("tools[1].name");
    expect(error.message).toContain(JSON.stringify(name));
    expect(error.message).toContain(JSON.stringify(suggestion));
    expect(nock.pendingMocks()).toEqual([]);
  });

  it("a name longer than 64 characters", () => {
    const long = "a".repeat(65);
    const error = bindError([
      { type: "function", function: { name: long, parameters: cityJson } },
    ] as never);
    expect(error.field).toBe("tools[0].name");
    expect(error.message).toContain(long);
  });

  it("two tools with one name", () => {
    const error = bindError([weather("weather"), weather("weather")]);
    expect(error.field).toBe("tools[1].name");
    expect(error.message).toContain('"weather" is bound twice');
  });

  it("64 characters of letters, digits, _ and - are accepted and sent as given", async () => {
    const name = `Get-Weather_2${"x".repeat(51)}`;
    expect(name).toHaveLength(64);
    const { bodies } = replyJson(completion());
    await newModel()
      .bindTools([weather(name)])
      .invoke("hi");
    const sent = bodies[0]?.tools as { function: { name: string } }[];
    expect(sent[0]?.function.name).toBe(name);
  });

  it("tools given as call options are checked the same way, before the request", async () => {
    await expect(
      newModel().invoke("hi", { tools: [weather("get weather")] } as never),
    ).rejects.toThrow(/tools\[0\]\.name/);
    expect(nock.pendingMocks()).toEqual([]);
  });
});
