/**
 * Test scopes: a request carrying `x-emulator-scope: <scope>` takes the scripts and faults set for
 * that scope only, so tests sharing one emulator (a CLI emulator serving a whole suite, tests run
 * concurrently) never take each other's replies or faults.
 */
import type { IncomingHttpHeaders } from "node:http";
import { HttpError } from "./http-error";

export const SCOPE_HEADER = "x-emulator-scope";
const MAX_SCOPE_CHARS = 200;

/** The request's scope; undefined without the header. A blank or oversized one is a 400. */
export function readScope(headers: IncomingHttpHeaders): string | undefined {
  const value = headers[SCOPE_HEADER];
  if (value === undefined) return undefined;
  return checkScope(Array.isArray(value) ? value.join(", ") : value, SCOPE_HEADER);
}

/** A scope given in a control body (`scope`), checked as the header is. */
export function checkScope(value: unknown, param: string): string {
  if (typeof value !== "string" || value.trim() === "" || value.length > MAX_SCOPE_CHARS) {
    throw new HttpError(
      400,
      `${param} must be a non-blank string of at most ${MAX_SCOPE_CHARS} characters (a test's ` +
        "id, say).",
      { param, code: "invalid_scope" },
    );
  }
  return value;
}
