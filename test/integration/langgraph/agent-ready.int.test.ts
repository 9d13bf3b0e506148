/**
 * The emulator's scripted model drives LangChain v1 agents to the end (INTERFACE-NOTES, "The
 * emulator's scripted model"): each tool is called at most once per turn, a `responseFormat`
 * agent gets its structured-output call after the named tools, and every call gets the JSON of
 * the message that fits its own schema.
 */
import { tool } from "@langchain/core/tools";
import { createAgent, toolStrategy } from "langchain";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();
let client: StudioClient;

beforeEach(async () => {
  await emulator.handle.reset();
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  client = new StudioClient({ baseUrl, proxyUrl, apiKey });
});

const runs: string[] = [];
const getWeather = tool(
  ({ city }) => {
    runs.push(`get_weather ${city}`);
    return `${city}: sunny`;
  },
  {
    name: "get_weather",
    description: "Today's weather in a city.",
    schema: z.object({ city: z.string() }),
  },
);
const getTime = tool(
  ({ zone, hour24 }) => {
    runs.push(`get_time ${zone} ${hour24}`);
    return `${zone}: 12:00`;
  },
  {
    name: "get_time",
    description: "The time in a zone.",
    schema: z.object({ zone: z.string(), hour24: z.boolean() }),
  },
);
const Report = z.object({ city: z.string(), summary: z.string(), rainy: z.boolean() });

function model() {
  return new ChatStudio({ model: "studio/echo-small", client });
}

describe("createAgent on the emulator", () => {
  it("a responseFormat agent with tools calls the named tool, then returns a structuredResponse", async () => {
    runs.length = 0;
    const agent = createAgent({
      model: model(),
      tools: [getWeather],
      responseFormat: toolStrategy(Report),
    });
    const result = await agent.invoke(
      { messages: [{ role: "user", content: 'Report on Paris: get_weather {"city": "Paris"}' }] },
      { recursionLimit: 10 },
    );
    expect(runs).toEqual(["get_weather Paris"]);
    // No JSON in the message fits Report, so the emulator filled it from the schema.
    expect(result.structuredResponse).toEqual({ city: "x", summary: "x", rainy: true });
  });

  it("the structuredResponse is the message's JSON when it fits the schema", async () => {
    const agent = createAgent({ model: model(), tools: [getWeather], responseFormat: Report });
    const result = await agent.invoke(
      {
        messages: [
          {
            role: "user",
            content:
              'get_weather {"city": "Oslo"} then report {"city": "Oslo", "summary": "cold", "rainy": false}',
          },
        ],
      },
      { recursionLimit: 10 },
    );
    expect(result.structuredResponse).toEqual({ city: "Oslo", summary: "cold", rainy: false });
  });

  it("a message naming two tools gives each the arguments that fit its own schema", async () => {
    runs.length = 0;
    const agent = createAgent({ model: model(), tools: [getWeather, getTime] });
    const result = await agent.invoke(
      {
        messages: [
          {
            role: "user",
            content: 'get_time {"zone": "UTC", "hour24": false} and get_weather {"city": "Rome"}',
          },
        ],
      },
      { recursionLimit: 10 },
    );
    expect(runs.sort()).toEqual(["get_time UTC false", "get_weather Rome"]);
    expect(result.messages.at(-1)?.text).toBe("Tool said: UTC: 12:00; Rome: sunny");
  });
});
