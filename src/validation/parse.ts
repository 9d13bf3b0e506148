/**
 * The one step from a zod issue to a `StudioValidationError`: the field named by its path in one
 * notation (`ttl.defaultTTL`, `messages[2].content`), the schema's message, and, when asked, the
 * rejected value and where the value came from.
 */
import type * as z from "zod/v4/mini";
import { StudioValidationError } from "../errors";
import { describeValue } from "./describe";

/** How `parseFields` and `checkField` word their error. */
export interface ParseOptions {
  /** Ends the message with "(got <value>)", a short safe description of it (default false). */
  showValue?: boolean;
  /** Added at the very end, e.g. where the value came from (" (from STUDIO_BASE_URL)"). */
  suffix?: (field: string) => string;
  /** The name the caller used for a field (an alias), from the schema's. */
  rename?: (field: string) => string;
}

/**
 * `["ttl", "defaultTTL"]` -> `ttl.defaultTTL`; `["messages", 2, "content"]` ->
 * `messages[2].content`.
 */
export function fieldPath(path: readonly PropertyKey[], prefix = ""): string {
  let field = prefix;
  for (const key of path) {
    field += typeof key === "number" ? `[${key}]` : `${field === "" ? "" : "."}${String(key)}`;
  }
  return field;
}

/** The value at `path` inside `input` (undefined when the path leaves it). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * The error for a failed parse of `input`: its first issue, at the field its path names (under
 * `prefix`), or at `whole` when the issue is about the input itself.
 */
export function issueError(
  error: z.core.$ZodError,
  input: unknown,
  whole: string,
  options: ParseOptions = {},
  prefix = "",
): StudioValidationError {
  const issue = error.issues[0];
  const path = issue?.path ?? [];
  const named = path.length > 0 ? fieldPath(path, prefix) : whole;
  const field = options.rename?.(named) ?? named;
  const got = options.showValue ? ` (got ${describeValue(valueAt(input, path))})` : "";
  return new StudioValidationError(
    field,
    `${issue?.message ?? "is invalid"}${got}${options.suffix?.(field) ?? ""}`,
  );
}

/**
 * `input` as `schema` parses it, or a `StudioValidationError` naming the field of the first issue
 * (`where` names the input itself, when it is not an object at all: "fields", "options", "input").
 */
export function parseFields<T>(
  schema: z.ZodMiniType<T>,
  input: unknown,
  where = "fields",
  options: ParseOptions = {},
): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw issueError(result.error, input, where, options);
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
  throw issueError(result.error, value, field, options, field);
}
