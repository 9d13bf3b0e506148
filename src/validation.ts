/**
 * Validation of caller input, shared by every class. Each check names the field and the allowed
 * range, and runs before any request is sent.
 */
import * as z from "zod/v4/mini";
import { METADATA_LIMITS } from "./api-types";
import { StudioValidationError } from "./errors";
import { useEnglishMessages } from "./zod-locale";

useEnglishMessages();

/** `<owner>/<model-name>`: two non-empty segments without spaces. */
export const MODEL_URI_PATTERN = /^[^\s/]+\/[^\s]+$/;

export const samplingSchemas = {
  model: z
    .string({ error: "must be a string" })
    .check(
      z.regex(MODEL_URI_PATTERN, { error: 'must be a model uri shaped "<owner>/<model-name>"' }),
    ),
  temperature: z
    .number({ error: "must be a number" })
    .check(
      z.gte(0, { error: "must be between 0 and 2" }),
      z.lte(2, { error: "must be between 0 and 2" }),
    ),
  topP: z
    .number({ error: "must be a number" })
    .check(z.gt(0, { error: "must be in (0, 1]" }), z.lte(1, { error: "must be in (0, 1]" })),
  n: z
    .number({ error: "must be a number" })
    .check(
      z.int({ error: "must be an integer >= 1" }),
      z.gte(1, { error: "must be an integer >= 1" }),
    ),
  maxTokens: z
    .number({ error: "must be a number" })
    .check(
      z.int({ error: "must be a positive integer" }),
      z.gte(1, { error: "must be a positive integer" }),
    ),
  penalty: z
    .number({ error: "must be a number" })
    .check(z.refine(Number.isFinite, { error: "must be a finite number" })),
  stop: z.array(z.string({ error: "must be strings" }), { error: "must be an array of strings" }),
  logitBias: z.record(z.string(), z.number({ error: "values must be numbers" }), {
    error: "must be an object of token to number",
  }),
  timeout: z
    .number({ error: "must be a number" })
    .check(z.int(), z.positive({ error: "must be > 0 ms" })),
  maxRetries: z
    .number({ error: "must be a number" })
    .check(
      z.int({ error: "must be an integer >= 0" }),
      z.gte(0, { error: "must be an integer >= 0" }),
    ),
  seed: z.number({ error: "must be a number" }).check(z.int({ error: "must be an integer" })),
  user: z.string({ error: "must be a string" }),
  flag: z.boolean({ error: "must be true or false" }),
} as const;

export type SamplingField = keyof typeof samplingSchemas;

/** Throws `StudioValidationError` naming `field` when `value` fails the schema of `kind`. */
export function validateField(kind: SamplingField, field: string, value: unknown): void {
  if (value === undefined) return;
  const result = samplingSchemas[kind].safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new StudioValidationError(
      field,
      `${issue?.message ?? "is invalid"} (got ${describeValue(value)})`,
    );
  }
}

/**
 * Checks metadata against the notes' limits (string values, at most 16 keys, keys <= 64 chars,
 * values <= 512 chars).
 */
export function validateMetadata(field: string, metadata: unknown): void {
  if (metadata === undefined) return;
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) {
    throw new StudioValidationError(field, "must be an object of string values");
  }
  const entries = Object.entries(metadata);
  if (entries.length > METADATA_LIMITS.maxKeys) {
    throw new StudioValidationError(
      field,
      `has ${entries.length} keys; at most ${METADATA_LIMITS.maxKeys} are allowed`,
    );
  }
  for (const [key, value] of entries) {
    if (key.length > METADATA_LIMITS.maxKeyLength) {
      throw new StudioValidationError(
        `${field}.${key.slice(0, 20)}...`,
        `key is ${key.length} characters; at most ${METADATA_LIMITS.maxKeyLength} are allowed`,
      );
    }
    if (typeof value !== "string") {
      throw new StudioValidationError(
        `${field}.${key}`,
        `must be a string (got ${describeValue(value)})`,
      );
    }
    if (value.length > METADATA_LIMITS.maxValueLength) {
      throw new StudioValidationError(
        `${field}.${key}`,
        `value is ${value.length} characters; at most ${METADATA_LIMITS.maxValueLength} are allowed`,
      );
    }
  }
}

/** A short, safe description of a rejected value for error messages. */
export function describeValue(value: unknown): string {
  if (typeof value === "string")
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
