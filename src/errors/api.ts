/**
 * The service answered with an error status. One factory, `StudioAPIError.fromResponse`, picks the
 * subclass from the status, so callers can
 * `catch (e) { if (e instanceof StudioRateLimitError) ... }` without reading messages.
 */
import type { LangChainErrorCodes } from "@langchain/core/errors";
import { redactDeep, redactText } from "./redact";
import { named, StudioError } from "./studio-error";

export interface StudioAPIErrorInit {
  status: number;
  method: string;
  path: string;
  /** The server's message, already extracted from the body. */
  serverMessage: string;
  code?: string | undefined;
  requestId?: string | undefined;
  headers?: Record<string, string> | undefined;
  /** Parsed JSON body, or a short excerpt of a non-JSON body. */
  body?: unknown;
  retryAfterMs?: number | undefined;
  /** What to do, in place of the status's usual advice (starts with ". "). */
  hint?: string | undefined;
  /** The option whose address has no such route (a 404 on a path that holds no id). */
  wrongAddress?: "baseUrl" | "proxyUrl" | undefined;
}

/**
 * LangChain's own codes for the failures it documents, set as @langchain/openai sets them, so code
 * written for any provider (`error.lc_error_code === "MODEL_RATE_LIMIT"`) recognises ours.
 */
const LC_ERROR_CODES: Readonly<Partial<Record<number, LangChainErrorCodes>>> = {
  401: "MODEL_AUTHENTICATION",
  429: "MODEL_RATE_LIMIT",
};

function troubleshooting(code: LangChainErrorCodes | undefined): string {
  return code === undefined
    ? ""
    : `\n\nTroubleshooting URL: ` +
        `https://docs.langchain.com/oss/javascript/langchain/errors/${code}/`;
}

/** The service answered with a non-2xx status. */
export class StudioAPIError extends StudioError {
  static {
    named(StudioAPIError, "StudioAPIError");
  }

  readonly status: number;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  /**
   * Set on a 404 at a path that holds no id (a listing, a create, a completion): no resource can
   * be missing there, so the address in this option is wrong (often baseUrl and proxyUrl
   * swapped). Code that reads a 404 as "the service lacks this feature" and falls back must not
   * take this one: the call never reached the service's API.
   */
  readonly wrongAddress: "baseUrl" | "proxyUrl" | undefined;
  /** LangChain's code for the failure (401: `MODEL_AUTHENTICATION`, 429: `MODEL_RATE_LIMIT`). */
  declare readonly lc_error_code?: LangChainErrorCodes;

  constructor(init: StudioAPIErrorInit) {
    const id = init.requestId ? ` (request id ${init.requestId})` : "";
    const lcErrorCode = LC_ERROR_CODES[init.status];
    super(
      `${init.method} ${init.path} failed with status ` +
        `${init.status}${init.code ? ` [${init.code}]` : ""}: ` +
        `${init.serverMessage}${id}${init.hint ?? hintFor(init.status)}` +
        troubleshooting(lcErrorCode),
    );
    if (lcErrorCode !== undefined) this.lc_error_code = lcErrorCode;
    this.status = init.status;
    // Each field is redacted on its own: they are shown apart from the message.
    this.code = init.code === undefined ? undefined : redactText(init.code);
    this.requestId = init.requestId === undefined ? undefined : redactText(init.requestId);
    this.method = init.method;
    this.path = redactText(init.path);
    this.headers = redactDeep(init.headers ?? {}) as Record<string, string>;
    this.body = redactDeep(init.body);
    this.wrongAddress = init.wrongAddress;
  }

  /** Picks the subclass for the status family. */
  static fromResponse(init: StudioAPIErrorInit): StudioAPIError {
    const { status } = init;
    if (status === 400) return new StudioBadRequestError(init);
    if (status === 401) return new StudioAuthenticationError(init);
    if (status === 403) return new StudioPermissionDeniedError(init);
    if (status === 404) return new StudioNotFoundError(init);
    if (status === 409) return new StudioConflictError(init);
    if (status === 422) return new StudioUnprocessableEntityError(init);
    if (status === 429) return new StudioRateLimitError(init);
    if (status >= 500) return new StudioServerError(init);
    return new StudioAPIError(init);
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      status: this.status,
      code: this.code,
      requestId: this.requestId,
      method: this.method,
      path: this.path,
      ...(this.lc_error_code === undefined ? {} : { lc_error_code: this.lc_error_code }),
    };
  }
}

function hintFor(status: number): string {
  switch (status) {
    case 401:
      return ". Check the API key (apiKey option or STUDIO_API_KEY).";
    case 403:
      return ". The key is valid but not allowed to do this; check the organization and the plan.";
    case 404:
      return ". Check the id and the address (baseUrl / proxyUrl).";
    case 413:
      // Never retried (retry.ts): the same body is refused again, so the advice is to shrink it.
      return (
        ". The request body is larger than the service accepts; send less (shorter messages," +
        " fewer or smaller attachments): retrying the same call cannot succeed."
      );
    case 429:
      return ". Rate limited; retry later or raise maxRetries.";
    default:
      return status >= 500 ? ". The service failed; the call can be retried." : "";
  }
}

export class StudioBadRequestError extends StudioAPIError {
  static {
    named(StudioBadRequestError, "StudioBadRequestError");
  }
}
export class StudioAuthenticationError extends StudioAPIError {
  static {
    named(StudioAuthenticationError, "StudioAuthenticationError");
  }
}
export class StudioPermissionDeniedError extends StudioAPIError {
  static {
    named(StudioPermissionDeniedError, "StudioPermissionDeniedError");
  }
}
export class StudioNotFoundError extends StudioAPIError {
  static {
    named(StudioNotFoundError, "StudioNotFoundError");
  }
}
export class StudioConflictError extends StudioAPIError {
  static {
    named(StudioConflictError, "StudioConflictError");
  }
}
export class StudioUnprocessableEntityError extends StudioAPIError {
  static {
    named(StudioUnprocessableEntityError, "StudioUnprocessableEntityError");
  }
}
export class StudioServerError extends StudioAPIError {
  static {
    named(StudioServerError, "StudioServerError");
  }
}

export class StudioRateLimitError extends StudioAPIError {
  static {
    named(StudioRateLimitError, "StudioRateLimitError");
  }

  /** Milliseconds the server asked us to wait (from `Retry-After`), if it said. */
  readonly retryAfter: number | undefined;

  constructor(init: StudioAPIErrorInit) {
    super(init);
    this.retryAfter = init.retryAfterMs;
  }
}
