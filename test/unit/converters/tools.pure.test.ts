import { RunnableLambda } from "@langchain/core/runnables";
import { DynamicStructuredTool, StructuredTool, tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z as z3 } from "zod/v3";
import { z as z4 } from "zod/v4";
import type { ChatTool } from "../../../src/api-types";
import {
  convertToolChoiceToStudio,
  convertToolsToStudio,
  convertToolToStudio,
} from "../../../src/converters/tools";
import { StudioValidationError } from "../../../src/errors";

const weatherJson = {
  type: "object",
  properties: { city: { type: "string", description: "city name" } },
  required: ["city"],
};

/** The converted parameters must describe `{ city: string }` as required. */
function expectCitySchema(converted: ChatTool, name = "get_weather") {
  expect(converted.type).toBe("function");
  expect(converted.function.name).toBe(name);
  expect(converted.function.description).toBe("Weather of a city");
  const parameters = converted.function.parameters as {
    type: string;
    properties: { city: { type: string } };
    required: string[];
  };
  expect(parameters.type).toBe("object");
  expect(parameters.properties.city.type).toBe("string");
  expect(parameters.required).toEqual(["city"]);
}

describe("convertToolsToStudio: each input kind", () => {
  it("tool() with a zod v4 schema", () => {
    const t = tool(async ({ city }) => city, {
      name: "get_weather",
      description: "Weather of a city",
      schema: z4.object({ city: z4.string() }),
    });
    expectCitySchema(convertToolToStudio(t, 0));
  });

  it("tool() with a zod v3 schema", () => {
    const t = tool(async ({ city }: { city: string }) => city, {
      name: "get_weather",
      description: "Weather of a city",
      schema: z3.object({ city: z3.string() }),
    });
    expectCitySchema(convertToolToStudio(t, 0));
  });

  it("a StructuredTool subclass", () => {
    class Weather extends StructuredTool {
      name = "get_weather";
      description = "Weather of a city";
      schema = z4.object({ city: z4.string() });
      async _call({ city }: { city: string }) {
        return city;
      }
    }
    expectCitySchema(convertToolToStudio(new Weather(), 0));
  });

  it("a DynamicStructuredTool with a JSON schema", () => {
    const t = new DynamicStructuredTool({
      name: "get_weather",
      description: "Weather of a city",
      schema: weatherJson,
      func: async () => "sunny",
    });
    expectCitySchema(convertToolToStudio(t, 0));
  });

  it("{ name, description, schema } with zod v3, zod v4 and JSON schemas", () => {
    for (const schema of [
      z3.object({ city: z3.string() }),
      z4.object({ city: z4.string() }),
      weatherJson,
    ]) {
      expectCitySchema(
        convertToolToStudio({ name: "get_weather", description: "Weather of a city", schema }, 0),
      );
    }
  });

  it("an OpenAI tool object, passed through", () => {
    const openAITool = {
      type: "function",
      function: { name: "get_weather", description: "Weather of a city", parameters: weatherJson },
    };
    expect(convertToolToStudio(openAITool, 0)).toEqual(openAITool);
  });

  it("an OpenAI function definition without the wrapper", () => {
    expect(
      convertToolToStudio(
        { name: "get_weather", description: "Weather of a city", parameters: weatherJson },
        0,
      ),
    ).toEqual({
      type: "function",
      function: { name: "get_weather", description: "Weather of a city", parameters: weatherJson },
    });
  });

  it("a runnable tool-like (Runnable.asTool)", () => {
    const runnable = RunnableLambda.from(async ({ city }: { city: string }) => city).asTool({
      name: "get_weather",
      description: "Weather of a city",
      schema: z4.object({ city: z4.string() }),
    });
    expectCitySchema(convertToolToStudio(runnable, 0));
  });

  it("bare schemas named by their title", () => {
    expectCitySchema(
      convertToolToStudio(
        { title: "get_weather", description: "Weather of a city", ...weatherJson },
        0,
      ),
    );
    const titled = z4
      .object({ city: z4.string() })
      .meta({ title: "get_weather", description: "Weather of a city" });
    expectCitySchema(convertToolToStudio(titled, 0));
  });

  it("a tool without parameters gets an empty object schema", () => {
    expect(convertToolToStudio({ type: "function", function: { name: "now" } }, 0)).toEqual({
      type: "function",
      function: { name: "now", parameters: { type: "object", properties: {} } },
    });
  });

  it("rejects what is not a tool, naming its position", () => {
    for (const bad of [
      null,
      "get_weather",
      { description: "no name" },
      z4.object({ a: z4.string() }),
    ]) {
      let error: unknown;
      try {
        convertToolsToStudio([{ name: "ok", parameters: weatherJson }, bad as never]);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(StudioValidationError);
      expect((error as StudioValidationError).field).toBe("tools[1]");
    }
  });

  it("rejects two tools with one name", () => {
    expect(() =>
      convertToolsToStudio([
        { name: "f", parameters: weatherJson },
        { type: "function", function: { name: "f" } },
      ]),
    ).toThrow(/bound twice/);
  });
});

describe("convertToolChoiceToStudio", () => {
  const tools = convertToolsToStudio([
    { name: "get_weather", parameters: weatherJson },
    { name: "get_time", parameters: {} },
  ]);

  it.each([
    ["auto", "auto"],
    ["none", "none"],
    ["required", "required"],
    ["any", "required"],
    ["get_time", { type: "function", function: { name: "get_time" } }],
    [
      { type: "function", function: { name: "get_weather" } },
      { type: "function", function: { name: "get_weather" } },
    ],
    // Anthropic's forms, as agents written for ChatAnthropic pass them.
    [
      { type: "tool", name: "get_weather" },
      { type: "function", function: { name: "get_weather" } },
    ],
    [{ type: "any" }, "required"],
    [{ type: "auto" }, "auto"],
    [{ type: "none" }, "none"],
    [undefined, undefined],
  ])("%j -> %j", (choice, expected) => {
    expect(convertToolChoiceToStudio(choice, tools)).toEqual(expected);
  });

  it("rejects a tool name that is not bound, listing the bound ones", () => {
    expect(() => convertToolChoiceToStudio("get_stock", tools)).toThrow(
      /get_stock.*not among the bound tools \(get_weather, get_time\)/,
    );
    expect(() =>
      convertToolChoiceToStudio({ type: "function", function: { name: "x" } }, tools),
    ).toThrow(StudioValidationError);
    expect(() => convertToolChoiceToStudio({ type: "tool", name: "get_stock" }, tools)).toThrow(
      /get_stock.*not among the bound tools/,
    );
  });

  it("rejects forcing a tool when none are bound; drops auto/none", () => {
    expect(() => convertToolChoiceToStudio("required", undefined)).toThrow(StudioValidationError);
    expect(() => convertToolChoiceToStudio("f", [])).toThrow(/no tools are bound/);
    expect(convertToolChoiceToStudio("auto", undefined)).toBeUndefined();
    expect(convertToolChoiceToStudio("none", [])).toBeUndefined();
  });

  it("rejects malformed choices", () => {
    expect(() => convertToolChoiceToStudio({ type: "tool" }, tools)).toThrow(StudioValidationError);
    expect(() => convertToolChoiceToStudio({ type: "tool", name: 3 }, tools)).toThrow(
      /\{ type: "tool", name \}/,
    );
    expect(() => convertToolChoiceToStudio(7, tools)).toThrow(StudioValidationError);
  });
});
