/**
 * `withStructuredOutput`: both methods, zod v3 / zod v4 / JSON schema, includeRaw, and replies
 * that do not match.
 */
import { AIMessage } from "@langchain/core/messages";
import { OutputParserException } from "@langchain/core/output_parsers";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z as z3 } from "zod/v3";
import { z as z4 } from "zod/v4";
import type { ChatCompletion, ChatCompletionChunk } from "../../../src/api-types";
import { StudioValidationError } from "../../../src/errors";
import { completion, MODEL, newModel, replyJson, replyStream, textChunks } from "./helpers";

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

const movieJson = {
  title: "movie",
  description: "A movie",
  type: "object",
  properties: { title: { type: "string" }, year: { type: "integer" } },
  required: ["title", "year"],
};
const schemas = {
  "zod v4": z4.object({ title: z4.string(), year: z4.number().int() }).describe("A movie"),
  "zod v3": z3.object({ title: z3.string(), year: z3.number().int() }).describe("A movie"),
  "JSON schema": movieJson,
} as const;

function toolCallReply(name: string, args: string): ChatCompletion {
  return completion({
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name, arguments: args } }],
        },
        finish_reason: "tool_calls",
      },
    ],
  });
}

function textReply(content: string): ChatCompletion {
  return completion({
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  });
}

describe.each(Object.entries(schemas))("%s", (_, schema) => {
  it("functionCalling (default) forces the schema as a tool and parses its arguments", async () => {
    const { bodies } = replyJson(toolCallReply("movie", '{"title":"Up","year":2009}'));
    const parsed = await newModel()
      .withStructuredOutput(schema, { name: "movie" })
      .invoke("Up, 2009");
    expect(parsed).toEqual({ title: "Up", year: 2009 });
    const body = bodies[0] as {
      tools: {
        function: { name: string; description?: string; parameters: Record<string, unknown> };
      }[];
      tool_choice: unknown;
    };
    expect(body.tools).toHaveLength(1);
    expect(body.tools[0]?.function.name).toBe("movie");
    expect(body.tools[0]?.function.description).toBe("A movie");
    expect(body.tools[0]?.function.parameters).toMatchObject({
      type: "object",
      properties: { title: { type: "string" }, year: { type: "integer" } },
    });
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "movie" } });
  });

  it("jsonMode asks for a JSON object and parses the content", async () => {
    const { bodies } = replyJson(textReply('{"title":"Up","year":2009}'));
    const parsed = await newModel()
      .withStructuredOutput(schema, { method: "jsonMode" })
      .invoke("Up, 2009");
    expect(parsed).toEqual({ title: "Up", year: 2009 });
    expect(bodies[0]?.response_format).toEqual({ type: "json_object" });
    expect(bodies[0]?.tools).toBeUndefined();
  });

  it("includeRaw gives { raw, parsed }", async () => {
    replyJson(toolCallReply("movie", '{"title":"Up","year":2009}'));
    const result = await newModel()
      .withStructuredOutput(schema, { name: "movie", includeRaw: true })
      .invoke("Up");
    expect(result.parsed).toEqual({ title: "Up", year: 2009 });
    expect(AIMessage.isInstance(result.raw)).toBe(true);
    expect(result.raw.tool_calls?.[0]?.name).toBe("movie");
  });

  it("a mismatch raises a clear parsing error (functionCalling)", async () => {
    replyJson(toolCallReply("movie", '{"title":"Up","year":"last year"}'));
    const error = await newModel()
      .withStructuredOutput(schema, { name: "movie" })
      .invoke("Up")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputParserException);
    expect(String((error as Error).message)).toMatch(/year/);
  });

  it("a mismatch raises a clear parsing error (jsonMode)", async () => {
    replyJson(textReply('{"title":"Up"}'));
    const error = await newModel()
      .withStructuredOutput(schema, { method: "jsonMode" })
      .invoke("Up")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputParserException);
    expect(String((error as Error).message)).toMatch(/year/);
  });

  it("includeRaw + mismatch: parsed null and the parsing error", async () => {
    replyJson(toolCallReply("movie", '{"title":1}'));
    const result = (await newModel()
      .withStructuredOutput(schema, { name: "movie", includeRaw: true })
      .invoke("Up")) as { raw: AIMessage; parsed: unknown; parsingError?: unknown };
    expect(result.parsed).toBeNull();
    expect(result.parsingError).toBeInstanceOf(OutputParserException);
    expect(result.raw.tool_calls?.[0]?.args).toEqual({ title: 1 });
  });
});

describe("replies without the forced tool call", () => {
  it("no tool call at all is a parsing error that quotes the reply", async () => {
    replyJson(textReply("I cannot do that"));
    await expect(
      newModel().withStructuredOutput(schemas["zod v4"], { name: "movie" }).invoke("x"),
    ).rejects.toThrow(/did not call the "movie" tool.*I cannot do that/);
  });

  it("arguments that are not JSON are a parsing error naming the tool", async () => {
    replyJson(toolCallReply("movie", "{title: Up"));
    await expect(
      newModel().withStructuredOutput(schemas["JSON schema"], { name: "movie" }).invoke("x"),
    ).rejects.toThrow(/called "movie" but its arguments are not valid JSON/);
  });

  it("jsonMode: content that is not JSON is a parsing error", async () => {
    replyJson(textReply("not json at all"));
    await expect(
      newModel().withStructuredOutput(schemas["zod v4"], { method: "jsonMode" }).invoke("x"),
    ).rejects.toBeInstanceOf(OutputParserException);
  });
});

describe("configuration", () => {
  it("the name defaults to the JSON schema's title, else extract", async () => {
    const { bodies } = replyJson(toolCallReply("extract", '{"title":"Up","year":1}'));
    await newModel().withStructuredOutput(schemas["zod v4"]).invoke("x");
    expect(bodies[0]).toMatchObject({ tool_choice: { function: { name: "extract" } } });
    const second = replyJson(toolCallReply("movie", '{"title":"Up","year":1}'));
    await newModel().withStructuredOutput(movieJson).invoke("x");
    expect(second.bodies[0]).toMatchObject({ tool_choice: { function: { name: "movie" } } });
  });

  it("an unknown method is a validation error", () => {
    expect(() => newModel().withStructuredOutput(movieJson, { method: "xml" })).toThrow(
      StudioValidationError,
    );
  });
});

describe("streamed structured output ends with the value invoke would give, or its error", () => {
  const base = { id: "c", object: "chat.completion.chunk", created: 1, model: MODEL };
  const personJson = {
    title: "person",
    type: "object",
    properties: { name: { type: "string" }, age: { type: "integer" } },
    required: ["name", "age"],
  };
  const personSchemas = {
    "JSON schema": personJson,
    "zod v4": z4.object({ name: z4.string(), age: z4.number().int() }),
  } as const;
  const CUT = ['{"name":"A', 'da","age":3'];
  const WHOLE = ['{"name":"A', 'da","age":3}'];

  function toolCallChunks(args: string[], finish: string): ChatCompletionChunk[] {
    const call = { index: 0, id: "call_1", type: "function" as const };
    return [
      {
        ...base,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ ...call, function: { name: "person", arguments: "" } }] },
            finish_reason: null,
          },
        ],
      },
      ...args.map((piece) => ({
        ...base,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] },
            finish_reason: null,
          },
        ],
      })),
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] },
    ];
  }

  async function streamed(
    schema: (typeof personSchemas)[keyof typeof personSchemas],
    method: string,
  ): Promise<{ values: unknown[]; error?: unknown }> {
    const values: unknown[] = [];
    try {
      const stream = await newModel()
        .withStructuredOutput(schema, { name: "person", method })
        .stream("x");
      for await (const value of stream) values.push(value);
      return { values };
    } catch (error) {
      return { values, error };
    }
  }

  describe.each(Object.entries(personSchemas))("%s", (_, schema) => {
    it.each(["jsonSchema", "jsonMode"])(
      "%s: a reply cut short raises the parsing error",
      async (method) => {
        replyStream(textChunks(CUT, "length"));
        const { values, error } = await streamed(schema, method);
        expect(error).toBeInstanceOf(OutputParserException);
        expect(values).toEqual([]);
      },
    );

    it.each(["jsonSchema", "jsonMode"])(
      "%s: a whole reply ends with the parsed value",
      async (method) => {
        replyStream(textChunks(WHOLE));
        const { values, error } = await streamed(schema, method);
        expect(error).toBeUndefined();
        expect(values.at(-1)).toEqual({ name: "Ada", age: 3 });
      },
    );

    it("functionCalling: arguments cut short raise after the partial values", async () => {
      replyStream(toolCallChunks(CUT, "length"));
      const { values, error } = await streamed(schema, "functionCalling");
      expect(error).toBeInstanceOf(OutputParserException);
      expect((error as Error).message).toMatch(
        /called "person" but its arguments are not valid JSON/,
      );
      expect(values.length).toBeGreaterThan(0);
    });

    it("functionCalling: whole arguments end with the parsed value", async () => {
      replyStream(toolCallChunks(WHOLE, "tool_calls"));
      const { values, error } = await streamed(schema, "functionCalling");
      expect(error).toBeUndefined();
      expect(values.at(-1)).toEqual({ name: "Ada", age: 3 });
    });
  });

  it("jsonSchema with a JSON schema: a whole reply that does not match raises", async () => {
    replyStream(textChunks(['{"name":"Ada","age":"three"}']));
    const { error } = await streamed(personJson, "jsonSchema");
    expect(error).toBeInstanceOf(OutputParserException);
    expect((error as Error).message).toMatch(/age/);
  });
});
