import { describe, expect, it } from "vitest";
import * as z from "zod/v4/mini";
import { StudioValidationError } from "../../../src/errors";
import {
  described,
  functionField,
  integerAtLeast,
  nonEmptyString,
  oneOf,
  parseFields,
} from "../../../src/validation";

function failure(schema: z.ZodMiniType, value: unknown): [string, string] {
  try {
    parseFields(schema, value);
  } catch (error) {
    expect(error).toBeInstanceOf(StudioValidationError);
    const e = error as StudioValidationError;
    return [e.field, e.message];
  }
  throw new Error("accepted");
}

describe("field schemas (one way to check fields)", () => {
  const schema = z.object(
    {
      name: nonEmptyString(described, { trim: true }),
      count: z.optional(integerAtLeast(1, "must be an integer >= 1")),
      mode: z.optional(oneOf(["fail", "skip"])),
      onSkip: z.optional(functionField()),
    },
    { error: "must be an object" },
  );

  it("names the first bad field with the rule and the value", () => {
    expect(failure(schema, { name: " " })).toEqual([
      "name",
      expect.stringContaining('must be a non-empty string (got " ")'),
    ]);
    expect(failure(schema, { name: "n", count: 1.5 })[1]).toContain(
      "must be an integer >= 1 (got 1.5)",
    );
    expect(failure(schema, { name: "n", mode: "x" })[1]).toContain(
      'must be "fail" or "skip" (got "x")',
    );
    expect(failure(schema, { name: "n", onSkip: 1 })).toEqual([
      "onSkip",
      expect.stringContaining("must be a function"),
    ]);
    expect(failure(schema, null)).toEqual(["fields", expect.stringContaining("must be an object")]);
  });

  it("returns the parsed fields when they are valid", () => {
    expect(parseFields(schema, { name: "n", count: 2, mode: "skip" })).toEqual({
      name: "n",
      count: 2,
      mode: "skip",
    });
  });
});
