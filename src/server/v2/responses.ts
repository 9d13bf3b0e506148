/**
 * Protocol v2 command answers: `success` with the command's result, `error` with one of the
 * protocol's codes and a message saying what happened and what to do; both carry `meta` (the
 * thread's id as the client named it, and the last event `seq` the thread has logged).
 */
import type { ErrorCode } from "@langchain/protocol";
import type { HttpProblem } from "../http";

export interface ResponseMeta {
  thread_id: string;
  applied_through_seq: number;
}

export class CommandError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "CommandError";
  }
}

export function success(id: number, result: unknown, meta?: ResponseMeta) {
  return { type: "success" as const, id, result, ...(meta ? { meta } : {}) };
}

export function failure(id: number | null, code: ErrorCode, message: string, meta?: ResponseMeta) {
  return { type: "error" as const, id, error: code, message, ...(meta ? { meta } : {}) };
}

/** The protocol code for an error a command's work threw (a route's HTTP problem included). */
export function errorCode(error: CommandError | HttpProblem): ErrorCode {
  if (error instanceof CommandError) return error.code;
  if (error.status === 403) return "permission_denied";
  return "invalid_argument";
}
