/**
 * The checks of a client call's own arguments (ids, list queries, completion bodies), as
 * schemas, run before anything is sent.
 */
import * as z from "zod/v4/mini";
import type { ListQuery } from "../api-types";
import { checkField, MODEL_URI_PATTERN } from "../validation";
import { useEnglishMessages } from "../zod-locale";
import { checkLimit } from "./pagination";

useEnglishMessages();

const ID_REQUIRED = "must be a non-empty string";

/** The first character that makes no sense in a path segment: `/`, `?`, `#` or a control one. */
function badCharacterAt(value: string): number {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2f || c === 0x3f || c === 0x23) return i;
  }
  return -1;
}

/**
 * Ids become path segments. `encodeURIComponent` (in PATHS) keeps most characters harmless, but
 * not `.` and `..` (servers and proxies resolve them: `deleteMessage("T1", "..")` would delete the
 * thread), and ids holding `/`, `?`, `#` or control characters are never real ids but mistakes
 * that some server would read as a different path. Those are refused before anything is sent.
 */
const idSchema = z
  .string({ error: ID_REQUIRED })
  .check(z.minLength(1, { error: ID_REQUIRED }), (ctx) => {
    const value = ctx.value;
    if (value === "." || value === "..") {
      ctx.issues.push({
        code: "custom",
        input: value,
        message: `must not be "${value}": as a path segment it names another resource`,
      });
      return;
    }
    const at = badCharacterAt(value);
    if (at >= 0) {
      ctx.issues.push({
        code: "custom",
        input: value,
        message: `must not contain "/", "?", "#" or control characters (found one at index ${at})`,
      });
    }
  });

export function checkId(field: string, value: unknown): void {
  checkField(field, idSchema, value);
}

const orderSchema = z.optional(
  z.enum(["asc", "desc"], {
    error: (issue) => `must be "asc" or "desc" (got ${String(issue.input)})`,
  }),
);

export function checkListQuery(query: ListQuery | undefined): void {
  if (!query) return;
  checkLimit("limit", query.limit);
  checkField("order", orderSchema, query.order);
}

const completionSchema = z.looseObject(
  {
    model: z.string({ error: modelError }).check(z.regex(MODEL_URI_PATTERN, { error: modelError })),
  },
  { error: "must be an object" },
);

function modelError(issue: { input?: unknown }): string {
  return `must be a model uri shaped "<owner>/<model-name>" (got ${JSON.stringify(issue.input)})`;
}

const required = z.custom((value) => value !== undefined, { error: "is required" });

/** Returns `body` once it is known to be a completion request with a model uri and `field`. */
export function checkCompletion<B extends { model?: unknown }>(
  body: B | undefined,
  field: string,
  value: unknown,
): B {
  checkField("body", completionSchema, body);
  checkField(field, required, value);
  return body as B;
}
