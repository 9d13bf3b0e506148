/**
 * Parsing and shape-checking 2xx bodies. JSON is parsed once; the schemas come from
 * src/api-types.ts and keep unknown fields.
 */

import type * as z from "zod/v4/mini";
import { StudioResponseError } from "../errors";
import { excerpt } from "./errors-from-response";

/** `choices[0].message.role` from zod's `["choices", 0, "message", "role"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out || "(root)";
}

export function formatIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return "unknown problem";
  return `field ${formatPath(issue.path)}: ${issue.message}`;
}

/**
 * JSON.parse + safeParse (which also normalises, see api-types), with a `StudioResponseError`
 * naming the call and the first bad field.
 */
export function parseResponse<T>(
  schema: z.ZodMiniType<T>,
  text: string,
  call: string,
  method: string,
  path: string,
): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const shown = excerpt(text);
    throw new StudioResponseError(
      method,
      path,
      `${call} expected a JSON body, got ${shown ? `"${shown}"` : "an empty body"}`,
      { cause: error },
    );
  }
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  throw new StudioResponseError(
    method,
    path,
    `${call} got a body of the wrong shape: ${formatIssue(result.error.issues[0])}`,
  );
}
