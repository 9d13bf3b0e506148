/**
 * Value rules more than one room shares: the sampling ranges, the model uri, thread metadata, and
 * how an error shows a rejected value.
 */
import * as z from "zod/v4/mini";
import { METADATA_LIMITS } from "../api-types";
import { StudioValidationError } from "../errors";
import { useEnglishMessages } from "../zod-locale";
import { describeValue } from "./describe";
import { checkField } from "./parse";

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
  checkField(field, samplingSchemas[kind], value, { showValue: true });
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
        `value is ${value.length} characters; at most ${METADATA_LIMITS.maxValueLength} are ` +
          "allowed",
      );
    }
  }
}
