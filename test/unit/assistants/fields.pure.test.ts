/**
 * createAssistant's fields schema: each rule's field and error text, the texts the hand checks
 * it replaced gave (one change: an array input is "not an object" rather than "no name").
 */
import { describe, expect, it } from "vitest";
import { toCreateAssistantRequest } from "../../../src/assistants/validate";
import { StudioValidationError } from "../../../src/errors";

const inputs: [string, unknown][] = [
  ["null input", null],
  ["array input", []],
  ["no name", {}],
  ["blank name", { assistantName: "  " }],
  ["numeric name", { assistantName: 3 }],
  ["modelName number", { assistantName: "a", modelName: 1 }],
  ["instructions object", { assistantName: "a", instructions: {} }],
  ["description number", { assistantName: "a", description: 5 }],
  ["description long", { assistantName: "a", description: "x".repeat(513) }],
  ["functionModel string", { assistantName: "a", functionModel: "m" }],
  ["functionModel array", { assistantName: "a", functionModel: [] }],
  ["functionModel null", { assistantName: "a", functionModel: null }],
  ["modelId empty", { assistantName: "a", functionModel: { modelId: "" } }],
  ["modelId number", { assistantName: "a", responseModel: { modelId: 7 } }],
  ["temperature 3", { assistantName: "a", functionModel: { temperature: 3 } }],
  ["temperature string", { assistantName: "a", functionModel: { temperature: "hot" } }],
  ["topP -1", { assistantName: "a", responseModel: { topP: -1 } }],
  ["userFilters array", { assistantName: "a", userFilters: ["x"] }],
  ["userFilters null", { assistantName: "a", userFilters: null }],
  ["userFilters 4", { assistantName: "a", userFilters: { a: "1", b: "2", c: "3", d: "4" } }],
  ["userFilters value", { assistantName: "a", userFilters: { a: 1 } }],
  ["metadata bad", { assistantName: "a", metadata: { k: 1 } }],
  ["tools not array", { assistantName: "a", tools: {} }],
  [
    "valid",
    {
      assistantName: "a",
      description: "x".repeat(512),
      functionModel: { modelId: "o/m", temperature: 1, topP: 0.5 },
      userFilters: { a: "1" },
    },
  ],
];

const expected: Record<string, [field: string, message: string]> = {
  "null input": ["input", 'Invalid input: must be an object such as { assistantName: "..." }'],
  "array input": ["input", 'Invalid input: must be an object such as { assistantName: "..." }'],
  "no name": ["assistantName", "Invalid assistantName: is required and must be a non-empty string"],
  "blank name": [
    "assistantName",
    "Invalid assistantName: is required and must be a non-empty string",
  ],
  "numeric name": [
    "assistantName",
    "Invalid assistantName: is required and must be a non-empty string",
  ],
  "modelName number": ["modelName", "Invalid modelName: must be a string"],
  "instructions object": ["instructions", "Invalid instructions: must be a string"],
  "description number": ["description", "Invalid description: must be a string"],
  "description long": [
    "description",
    "Invalid description: is 513 characters; at most 512 are allowed",
  ],
  "functionModel string": [
    "functionModel",
    "Invalid functionModel: must be an object { modelId, temperature, topP }",
  ],
  "functionModel array": [
    "functionModel",
    "Invalid functionModel: must be an object { modelId, temperature, topP }",
  ],
  "functionModel null": [
    "functionModel",
    "Invalid functionModel: must be an object { modelId, temperature, topP }",
  ],
  "modelId empty": [
    "functionModel.modelId",
    "Invalid functionModel.modelId: must be a non-empty string (a model uri or a model record id)",
  ],
  "modelId number": [
    "responseModel.modelId",
    "Invalid responseModel.modelId: must be a non-empty string (a model uri or a model record id)",
  ],
  "temperature 3": [
    "functionModel.temperature",
    "Invalid functionModel.temperature: must be between 0 and 2 (got 3)",
  ],
  "temperature string": [
    "functionModel.temperature",
    'Invalid functionModel.temperature: must be a number (got "hot")',
  ],
  "topP -1": ["responseModel.topP", "Invalid responseModel.topP: must be in (0, 1] (got -1)"],
  "userFilters array": ["userFilters", "Invalid userFilters: must be an object of string values"],
  "userFilters null": ["userFilters", "Invalid userFilters: must be an object of string values"],
  "userFilters 4": ["userFilters", "Invalid userFilters: has 4 pairs; at most 3 are allowed"],
  "userFilters value": ["userFilters.a", "Invalid userFilters.a: must be a string"],
  "metadata bad": ["metadata.k", "Invalid metadata.k: must be a string (got 1)"],
  "tools not array": [
    "tools",
    "Invalid tools: must be an array of LangChain tools or Tool objects",
  ],
};

describe("createAssistant fields: the field and text of each rule", () => {
  it.each(inputs.filter(([name]) => name !== "valid"))("%s", (name, input) => {
    let error: unknown;
    try {
      toCreateAssistantRequest(input as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StudioValidationError);
    const [field, message] = expected[name] ?? ["", ""];
    expect((error as StudioValidationError).field).toBe(field);
    expect((error as Error).message).toBe(message);
  });

  it("the limits themselves pass", () => {
    const valid = inputs.find(([name]) => name === "valid")?.[1];
    expect(() => toCreateAssistantRequest(valid as never)).not.toThrow();
  });
});
