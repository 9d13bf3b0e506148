/**
 * src/validation/: the one way every room checks its fields (a zod schema, and a
 * StudioValidationError naming the field). The helpers added for rooms that still check by hand
 * word their errors as those hand checks do, so converting a check keeps its text.
 */

import { describe, expect, it } from "vitest";
import * as z from "zod/v4/mini";
import { StudioValidationError } from "../../../src/errors";
import {
  checkField,
  described,
  integerAtLeast,
  nonEmptyString,
  parseFields,
  validateField,
} from "../../../src/validation";

function thrown(work: () => unknown): StudioValidationError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(StudioValidationError);
    return error as StudioValidationError;
  }
  throw new Error("expected a StudioValidationError");
}

describe("checkField", () => {
  it("passes the parsed value through, and undefined when the schema allows it", () => {
    expect(checkField("limit", integerAtLeast(0), 3)).toBe(3);
    expect(checkField("limit", z.optional(integerAtLeast(0)), undefined)).toBeUndefined();
  });

  it.each([
    [0, 1, "must be an integer of at least 1 (got 0)"],
    [1.5, 1, "must be an integer of at least 1 (got 1.5)"],
    [999, 1000, "must be an integer of at least 1000 (got 999)"],
  ])("integerAtLeast: %s with min %s is refused as the hand checks word it", (value, min, text) => {
    const error = thrown(() => checkField("maxMessageChars", integerAtLeast(min), value));
    expect(error.field).toBe("maxMessageChars");
    expect(error.message).toBe(`Invalid maxMessageChars: ${text}`);
  });

  it("nonEmptyString refuses '' and non-strings, naming the field", () => {
    expect(thrown(() => checkField("datasetId", nonEmptyString(described), "")).message).toBe(
      'Invalid datasetId: must be a non-empty string (got "")',
    );
    expect(thrown(() => checkField("datasetId", nonEmptyString(described), 5)).field).toBe(
      "datasetId",
    );
  });

  it("showValue: false and suffix word the message as the client options do", () => {
    const error = thrown(() =>
      checkField("baseUrl", nonEmptyString(), "", { suffix: () => " (from X)" }),
    );
    expect(error.message).toBe("Invalid baseUrl: must be a non-empty string (from X)");
  });
});

describe("parseFields and validateField keep their texts", () => {
  const schema = z.object({ temperature: z.optional(z.number({ error: "must be a number" })) });

  it("parseFields names the key (or its alias) and shows the value when asked", () => {
    expect(parseFields(schema, { temperature: 1 })).toEqual({ temperature: 1 });
    const error = thrown(() =>
      parseFields(schema, { temperature: "hot" }, "options", {
        showValue: true,
        rename: (field) => `model.${field}`,
      }),
    );
    expect(error.field).toBe("model.temperature");
    expect(error.message).toBe('Invalid model.temperature: must be a number (got "hot")');
  });

  it("validateField checks a sampling field by kind", () => {
    expect(() => validateField("temperature", "t", 1)).not.toThrow();
    expect(thrown(() => validateField("topP", "responseModel.topP", 0)).message).toBe(
      "Invalid responseModel.topP: must be in (0, 1] (got 0)",
    );
  });
});
