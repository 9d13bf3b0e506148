import { DynamicStructuredTool, tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z as z3 } from "zod/v3";
import { z } from "zod/v4";
import type { Tool } from "../../../src/api-types";
import {
  assistantToolName,
  convertAssistantToolToChatTool,
  convertToAssistantTool,
} from "../../../src/converters/assistant-tools";
import { StudioValidationError } from "../../../src/errors";

const weatherV4 = tool(({ city }) => `sunny in ${city}`, {
  name: "get_weather",
  description: "Current weather for a city.",
  schema: z.object({
    city: z.string().describe("city name"),
    unit: z.enum(["c", "f"]).optional(),
  }),
});

describe("convertToAssistantTool (LangChain tool -> spec Tool)", () => {
  it("converts a zod v4 tool to name, type, function {name, description, parameters, required}", () => {
    const converted = convertToAssistantTool(weatherV4);
    expect(converted).toMatchObject({
      name: "get_weather",
      type: "function",
      function: {
        name: "get_weather",
        description: "Current weather for a city.",
        required: ["city"],
        parameters: {
          type: "object",
          properties: {
            city: { type: "string", description: "city name" },
            unit: { type: "string", enum: ["c", "f"] },
          },
          required: ["city"],
        },
      },
    });
    expect(converted.function?.parameters).not.toHaveProperty("$schema");
  });

  it("converts a zod v3 tool the same way", () => {
    const v3 = new DynamicStructuredTool({
      name: "add",
      description: "Adds two numbers.",
      schema: z3.object({ a: z3.number(), b: z3.number().optional() }),
      func: async ({ a, b }) => String(a + (b ?? 0)),
    });
    const converted = convertToAssistantTool(v3);
    expect(converted.function).toMatchObject({
      name: "add",
      description: "Adds two numbers.",
      required: ["a"],
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
    });
  });

  it("converts a tool declared with a JSON schema, and StructuredToolParams", () => {
    const jsonTool = tool(() => "ok", {
      name: "lookup",
      description: "Looks a key up.",
      schema: {
        type: "object",
        properties: { key: { type: "string" } },
        required: ["key"],
      },
    });
    expect(convertToAssistantTool(jsonTool).function?.required).toEqual(["key"]);
    const params = convertToAssistantTool({ name: "ping", schema: z.object({}) });
    expect(params).toMatchObject({
      name: "ping",
      type: "function",
      function: { name: "ping", description: "", required: [] },
    });
  });

  it("passes a raw Tool object through unchanged", () => {
    const raw: Tool = {
      type: "function",
      function: {
        name: "raw_fn",
        description: "raw",
        parameters: { type: "object", properties: { q: { type: "string" } } },
        required: ["q"],
      },
    };
    expect(convertToAssistantTool(raw)).toEqual(raw);
    expect(assistantToolName(raw)).toBe("raw_fn");
    expect(assistantToolName({ type: "code_interpreter", name: "ci" })).toBe("ci");
  });

  it("rejects what is neither, naming the field", () => {
    expect(() => convertToAssistantTool({ foo: 1 } as unknown as Tool, "tools[2]")).toThrow(
      StudioValidationError,
    );
    try {
      convertToAssistantTool({ type: "function", function: { name: "" } }, "tools[0]");
      expect.unreachable();
    } catch (error) {
      expect((error as StudioValidationError).field).toBe("tools[0].function.name");
    }
  });
});

describe("convertAssistantToolToChatTool (spec Tool -> bindable schema)", () => {
  it("merges function.required into parameters.required without duplicates", () => {
    const bound = convertAssistantToolToChatTool({
      type: "function",
      function: {
        name: "book",
        description: "Books a room.",
        parameters: {
          type: "object",
          properties: { room: { type: "string" }, nights: { type: "integer" } },
          required: ["room"],
        },
        required: ["nights", "room"],
      },
    });
    expect(bound).toEqual({
      type: "function",
      function: {
        name: "book",
        description: "Books a room.",
        parameters: {
          type: "object",
          properties: { room: { type: "string" }, nights: { type: "integer" } },
          required: ["room", "nights"],
        },
      },
    });
  });

  it("fills an object schema when parameters are missing, and leaves required out when empty", () => {
    const bound = convertAssistantToolToChatTool({ type: "function", function: { name: "now" } });
    expect(bound).toEqual({
      type: "function",
      function: { name: "now", parameters: { type: "object", properties: {} } },
    });
  });

  it("round-trips a LangChain tool: the bound schema requires what the tool requires", () => {
    const bound = convertAssistantToolToChatTool(convertToAssistantTool(weatherV4));
    expect(bound.function.name).toBe("get_weather");
    expect(bound.function.parameters).toMatchObject({ required: ["city"] });
  });

  it("refuses a tool without a function definition", () => {
    expect(() => convertAssistantToolToChatTool({ type: "code_interpreter" })).toThrow(
      /only function tools can be bound/,
    );
  });

  it("does not mutate its input", () => {
    const input: Tool = {
      type: "function",
      function: { name: "f", parameters: { type: "object", properties: {} }, required: ["x"] },
    };
    const copy = structuredClone(input);
    convertAssistantToolToChatTool(input);
    expect(input).toEqual(copy);
  });
});
