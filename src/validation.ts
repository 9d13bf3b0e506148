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

/**
 * The sampling ranges that the models' settings (src/models/settings.ts) and the assistants' model
 * settings share.
 */
export const samplingSchemas = {
  temperature: z
    .number({ error: "must be a number" })
    .check(
      z.gte(0, { error: "must be between 0 and 2" }),
      z.lte(2, { error: "must be between 0 and 2" }),
    ),
  topP: z
    .number({ error: "must be a number" })
    .check(z.gt(0, { error: "must be in (0, 1]" }), z.lte(1, { error: "must be in (0, 1]" })),
} as const;

export type SamplingField = keyof typeof samplingSchemas;

/** Throws `StudioValidationError` naming `field` when `value` fails the schema of `kind`. */
export function validateField(kind: SamplingField, field: string, value: unknown): void {
  if (value === undefined) return;
  const result = samplingSchemas[kind].safeParse(value);
  if (!result.success) throw invalidValue(field, result.error.issues[0]?.message, value);
}

/** How `parseOrThrow` and `checkField` word their error. */
export interface ParseOptions {
  /** Ends the message with "(got <value>)", a short safe description of it (default true). */
  showValue?: boolean;
  /** Added at the very end, e.g. where the value came from (" (from STUDIO_BASE_URL)"). */
  suffix?: (field: string) => string;
}

/**
 * `value` as `schema` parses it, or a `StudioValidationError` naming the field of the first issue
 * (`fieldName` maps the key it failed at, e.g. to the alias the caller used).
 */
export function parseOrThrow<T>(
  schema: z.ZodMiniType<T>,
  value: object,
  fieldName: (key: string) => string = (key) => key,
  options: ParseOptions = {},
): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const key = String(issue?.path[0] ?? "options");
  const field = fieldName(key);
  const shown = (value as Record<string, unknown>)[key];
  throw invalidValue(field, issue?.message, shown, options);
}

/**
 * One field's value as `schema` parses it (`undefined` passes when the schema allows it), or the
 * `StudioValidationError` naming `field`: the hand checks' `if (bad) throw ...` in one line.
 */
export function checkField<T>(
  field: string,
  schema: z.ZodMiniType<T>,
  value: unknown,
  options: ParseOptions = {},
): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw invalidValue(field, result.error.issues[0]?.message, value, options);
}

/** An integer of at least `min`, worded as the hand checks word it. */
export function integerAtLeast(min: number) {
  const error = `must be an integer of at least ${min}`;
  return z.number({ error }).check(z.int({ error }), z.gte(min, { error }));
}

/** A string with at least one character. */
export const nonEmptyString = z
  .string({ error: "must be a non-empty string" })
  .check(z.minLength(1, { error: "must be a non-empty string" }));

function invalidValue(
  field: string,
  message: string | undefined,
  value: unknown,
  options: ParseOptions = {},
): StudioValidationError {
  const got = options.showValue === false ? "" : ` (got ${describeValue(value)})`;
  return new StudioValidationError(
    field,
    `${message ?? "is invalid"}${got}${options.suffix?.(field) ?? ""}`,
  );
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
