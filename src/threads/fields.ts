/**
 * One way for the memory and dataset rooms to check a class's fields: a zod schema per fields
 * type (as `client/options.ts` does for the client), parsed before anything is sent, and the first
 * issue raised as a `StudioValidationError` naming the field. The messages are the schemas' own, so
 * each schema says its rule and the rejected value once, where the field is declared.
 */
import * as z from "zod/v4/mini";
import { StudioValidationError } from "../errors";
import { describeValue } from "../validation";
import { useEnglishMessages } from "../zod-locale";

useEnglishMessages();

/** The issue's rejected value, as an error message shows it. */
type Describe = (value: unknown) => string;

/** `typeof`: what the history's older messages named ("got number"). */
export const typeName: Describe = (value) => typeof value;
/** `String(value)`: the number or value as written ("got 1.5"). */
export const asWritten: Describe = (value) => String(value);
/** A short, quoted description ("got \"abc\""), as the dataset room writes it. */
export const described: Describe = describeValue;

/** `message`, followed by " (got <value>)" when `describe` is given. */
function issueText(message: string, describe: Describe | undefined) {
  return describe === undefined
    ? message
    : (issue: { input?: unknown }) => `${message} (got ${describe(issue.input)})`;
}

/** A string with at least one character (`trim`: one that is not only white space). */
export function nonEmptyString(describe?: Describe, options: { trim?: boolean } = {}) {
  const error = issueText("must be a non-empty string", describe);
  return z
    .string({ error })
    .check(
      options.trim
        ? z.refine((value: string) => value.trim() !== "", { error })
        : z.minLength(1, { error }),
    );
}

/** An integer of at least `min`, with the message the rooms already give. */
export function integerAtLeast(min: number, message: string, describe: Describe = asWritten) {
  const error = issueText(message, describe);
  return z.number({ error }).check(z.int({ error }), z.gte(min, { error }));
}

/** A function (a callback field). */
export function functionField(describe?: Describe) {
  return z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", {
    error: issueText("must be a function", describe),
  });
}

/** One of `values`, e.g. `must be "fail" or "skip" (got "x")`. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  const listed = values.map((value) => `"${value}"`);
  const words =
    listed.length === 1 ? listed[0]! : `${listed.slice(0, -1).join(", ")} or ${listed.at(-1)}`;
  return z.enum(values, { error: issueText(`must be ${words}`, described) });
}

/**
 * `value` as `schema` parses it, or a `StudioValidationError` naming the field of the first issue
 * (`whole` names the value itself, when it is not an object at all).
 */
export function parseFields<T>(schema: z.ZodMiniType<T>, value: unknown, whole = "fields"): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : whole;
  throw new StudioValidationError(field, issue?.message ?? "is invalid");
}
