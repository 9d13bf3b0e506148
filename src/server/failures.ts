/**
 * What the operator and the browser are told of an error the handler did not expect: the error
 * itself to `onError`, and to the browser a generic answer (service errors name hosts, paths and
 * accounts), a 503 with `Retry-After` for the service's rate limit.
 */
import { StudioRateLimitError } from "../errors";
import { json, problem } from "./http";
import type { AgentServerOptions } from "./options";

/** Tells the operator; never lets a faulty hook turn the answer into a crash. */
export function report(
  onError: AgentServerOptions["onError"],
  error: unknown,
  request: Request,
): void {
  try {
    if (onError) onError(error, request);
    else console.error(`Agent Server: ${request.method} ${request.url} failed:`, error);
  } catch {
    // The hook's own failure must not change what the caller gets.
  }
}

/** A 503 for the service's rate limit (with its `Retry-After`), else a 500 with no detail. */
export function unexpected(error: unknown): Response {
  if (!(error instanceof StudioRateLimitError)) {
    return problem(500, "Internal Server Error", "internal error");
  }
  const seconds =
    error.retryAfter !== undefined ? Math.max(1, Math.ceil(error.retryAfter / 1000)) : 0;
  return json(
    { error: "Service Unavailable", message: "the server is busy; try again shortly" },
    503,
    seconds > 0 ? { "Retry-After": String(seconds) } : undefined,
  );
}
