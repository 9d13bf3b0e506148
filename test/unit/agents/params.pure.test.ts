/**
 * loadAssistantAgent's parameters schema: each rule's field and error text, the texts the hand
 * checks it replaced gave (one change: an array is "not an object" rather than "no assistant").
 */
import { describe, expect, it } from "vitest";
import { checkLoadParams, DEFAULT_MAX_ITERATIONS } from "../../../src/agents/params";
import { StudioValidationError } from "../../../src/errors";

const invalid: [name: string, params: unknown, field: string, message: string][] = [
  ["null", null, "params", "Invalid params: must be an object { assistant | assistantId, tools }"],
  ["string", "x", "params", "Invalid params: must be an object { assistant | assistantId, tools }"],
  ["array", [], "params", "Invalid params: must be an object { assistant | assistantId, tools }"],
  [
    "neither",
    {},
    "assistant",
    "Invalid assistant: pass exactly one of `assistant` (a record) or `assistantId`",
  ],
  [
    "both",
    { assistant: {}, assistantId: "a" },
    "assistant",
    "Invalid assistant: pass exactly one of `assistant` (a record) or `assistantId`",
  ],
  [
    "tools obj",
    { assistantId: "a", tools: {} },
    "tools",
    "Invalid tools: must be an array of LangChain tools implementing the assistant's functions",
  ],
  [
    "iter 0",
    { assistantId: "a", maxIterations: 0 },
    "maxIterations",
    "Invalid maxIterations: must be an integer >= 1 (got 0)",
  ],
  [
    "iter 1.5",
    { assistantId: "a", maxIterations: 1.5 },
    "maxIterations",
    "Invalid maxIterations: must be an integer >= 1 (got 1.5)",
  ],
  [
    "iter str",
    { assistantId: "a", maxIterations: "3" },
    "maxIterations",
    "Invalid maxIterations: must be an integer >= 1 (got 3)",
  ],
];

describe("loadAssistantAgent params: the field and text of each rule", () => {
  it.each(invalid)("%s", (_, params, field, message) => {
    let error: unknown;
    try {
      checkLoadParams(params as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StudioValidationError);
    expect((error as StudioValidationError).field).toBe(field);
    expect((error as Error).message).toBe(message);
  });

  it("valid params give their tools (the same array) and the bound, 15 by default", () => {
    const tools: never[] = [];
    expect(checkLoadParams({ assistantId: "a" } as never)).toEqual({
      tools: [],
      maxIterations: DEFAULT_MAX_ITERATIONS,
    });
    const checked = checkLoadParams({ assistant: {}, tools, maxIterations: 4 } as never);
    expect(checked.tools).toBe(tools);
    expect(checked.maxIterations).toBe(4);
    expect(DEFAULT_MAX_ITERATIONS).toBe(15);
  });
});
