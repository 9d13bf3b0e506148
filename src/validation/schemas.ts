/**
 * Field schemas the rooms share, each worded once: a rule, and the rejected value when a
 * `Describe` is given (the rooms' older texts differ in how they show it, and keep doing so).
 */
import * as z from "zod/v4/mini";
import { useEnglishMessages } from "../zod-locale";
import { asWritten, type Describe, described } from "./describe";

useEnglishMessages();

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

/** An integer of at least `min` ("must be an integer of at least 1 (got 0)" by default). */
export function integerAtLeast(
  min: number,
  message = `must be an integer of at least ${min}`,
  describe: Describe | undefined = asWritten,
) {
  const error = issueText(message, describe);
  return z.number({ error }).check(z.int({ error }), z.gte(min, { error }));
}

/** A function (a callback field). */
export function functionField(describe?: Describe) {
  return z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", {
    error: issueText("must be a function", describe),
  });
}

/** `a, b or c`, each quoted. */
export function quotedList(values: readonly string[]): string {
  const listed = values.map((value) => `"${value}"`);
  return listed.length === 1 ? listed[0]! : `${listed.slice(0, -1).join(", ")} or ${listed.at(-1)}`;
}

/** One of `values`, e.g. `must be "fail" or "skip" (got "x")`. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: issueText(`must be ${quotedList(values)}`, described) });
}
