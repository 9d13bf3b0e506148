/**
 * What a failed run tells the browser. A run's error names the service's hosts, paths, request ids
 * and whatever a tool or a model put in its message, so the stream's `error` event carries a
 * generic text and a code, and the cause goes to the server's `onError`, as the HTTP errors do.
 * A graph author who means a message for the user throws an `AgentRunError`: its message and code
 * pass through as written.
 */
import { StudioRateLimitError, StudioThreadDeletedError } from "../errors";

/** The `error` event's data: the SDK's `StreamError` takes `error` as its name. */
export interface RunErrorEvent {
  error: string;
  message: string;
  code: string;
}

/**
 * An error whose message the user may see: thrown in a graph's node or tool, the stream's `error`
 * event carries its `message` and `code` as they are (it still goes to `onError` too).
 */
export class AgentRunError extends Error {
  readonly code: string;

  constructor(message: string, options: { code?: string | undefined; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AgentRunError";
    this.code = options.code ?? "run_error";
  }
}

/** A run whose thread another process deleted meanwhile: nothing of it was kept. */
export const THREAD_DELETED: RunErrorEvent = {
  error: "RunError",
  message: "This conversation was deleted while the run was going on. Start a new thread.",
  code: "thread_deleted",
};

/** The user's view of `error`; never its text unless it is an `AgentRunError`. */
export function runErrorEvent(error: unknown): RunErrorEvent {
  if (isAgentRunError(error)) {
    return { error: "AgentRunError", message: error.message, code: error.code };
  }
  // `strict_resume` refused the resume: LangGraph's message names only the interrupt ids sent.
  if (error instanceof Error && error.name === "UnknownInterruptError") {
    return { error: "UnknownInterruptError", message: error.message, code: "unknown_interrupt" };
  }
  // By name: core's class would add a dependency for one check, and its message is the service's.
  if (error instanceof Error && error.name === "ContextOverflowError") {
    return {
      error: "RunError",
      message: "The conversation is too long for the model. Start a new thread.",
      code: "context_overflow",
    };
  }
  if (error instanceof StudioRateLimitError) {
    return {
      error: "RunError",
      message: "The model is busy. Try again in a moment.",
      code: "rate_limited",
    };
  }
  if (error instanceof StudioThreadDeletedError) return THREAD_DELETED;
  return {
    error: "RunError",
    message: "The run failed. Try again; if it keeps failing, contact the site's owner.",
    code: "run_failed",
  };
}

/** By name and shape too: a graph bundled with another copy of this package throws its class. */
function isAgentRunError(error: unknown): error is AgentRunError {
  return (
    error instanceof AgentRunError ||
    (error instanceof Error &&
      error.name === "AgentRunError" &&
      typeof (error as { code?: unknown }).code === "string")
  );
}
