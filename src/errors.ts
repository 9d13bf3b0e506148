/**
 * Every error the package throws is a `StudioError`. API errors are built by one factory,
 * `StudioAPIError.fromResponse`, which picks the subclass from the status, so callers can
 * `catch (e) { if (e instanceof StudioRateLimitError) ... }` without reading messages.
 *
 * No error ever holds the API key: every message, every field that can carry server or caller
 * text, and every cause goes through client/redact.ts, which finds the key in any form a server
 * may echo it (raw, JSON-escaped, percent-encoded, cut short).
 *
 * Each class names itself with a string literal (`static { named(...) }`), not from its
 * constructor's name, so `err.name` stays right after bundlers and minifiers rename classes.
 */
import { redactCause, redactDeep, redactText, registerSecret } from "./client/redact";

export { registerSecret };

/** Sets the `name` every instance of `cls` reports (on the prototype, like `Error`'s own). */
export function named(cls: { prototype: Error }, name: string): void {
  Object.defineProperty(cls.prototype, "name", {
    value: name,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

export class StudioError extends Error {
  static {
    named(StudioError, "StudioError");
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super(
      redactText(message),
      options?.cause === undefined ? undefined : { cause: redactCause(options.cause) },
    );
    // A subclass declared elsewhere without `named` still gets a name, if a minifiable one.
    if (!Object.hasOwn(new.target.prototype, "name")) this.name = new.target.name;
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message };
  }
}

/** A configuration value is missing or unusable (raised at the first call that needs it). */
export class StudioConfigError extends StudioError {
  static {
    named(StudioConfigError, "StudioConfigError");
  }

  readonly option: string;
  readonly envVar: string | undefined;

  constructor(option: string, envVar: string | undefined, message?: string) {
    super(
      message ??
        `Missing ${option}: pass the "${option}" option${envVar ? ` or set the ${envVar} environment variable` : ""}.`,
    );
    this.option = option;
    this.envVar = envVar;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), option: this.option, envVar: this.envVar };
  }
}

/** A caller-supplied value is out of range or of the wrong type; nothing was sent. */
export class StudioValidationError extends StudioError {
  static {
    named(StudioValidationError, "StudioValidationError");
  }

  /** Dotted path of the offending field, e.g. `temperature` or `messages[2].content`. */
  readonly field: string;

  constructor(field: string, message: string) {
    super(`Invalid ${field}: ${message}`);
    this.field = field;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), field: this.field };
  }
}

/** The server answered 200 but the body does not have the shape the interface promises. */
export class StudioResponseError extends StudioError {
  static {
    named(StudioResponseError, "StudioResponseError");
  }

  readonly method: string;
  readonly path: string;

  constructor(method: string, path: string, detail: string, options?: { cause?: unknown }) {
    super(`Unexpected response from ${method} ${path}: ${detail}`, options);
    this.method = method;
    this.path = redactText(path);
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), method: this.method, path: this.path };
  }
}

/** The connection failed before a complete response arrived (refused, reset, DNS, TLS). */
export class StudioConnectionError extends StudioError {
  static {
    named(StudioConnectionError, "StudioConnectionError");
  }

  readonly method: string;
  readonly path: string;
  /** True when the failure happened after the request may have reached the server. */
  readonly mayHaveReachedServer: boolean;

  constructor(
    method: string,
    path: string,
    detail: string,
    mayHaveReachedServer: boolean,
    options?: { cause?: unknown },
  ) {
    super(
      `Connection to ${method} ${path} failed: ${detail}. Check the address and your network; the call can be retried.`,
      options,
    );
    this.method = method;
    this.path = redactText(path);
    this.mayHaveReachedServer = mayHaveReachedServer;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      method: this.method,
      path: this.path,
      mayHaveReachedServer: this.mayHaveReachedServer,
    };
  }
}

const TIMEOUT_WORDS = {
  request: ["complete response", "timeout"],
  event: ["stream event", "streamIdleTimeout"],
  stream: ["end of the stream", "streamTimeout"],
} as const;

/**
 * The request, the wait between two stream events (`event`) or a whole stream (`stream`) took
 * longer than allowed.
 */
export class StudioTimeoutError extends StudioError {
  static {
    named(StudioTimeoutError, "StudioTimeoutError");
  }

  readonly method: string;
  readonly path: string;
  readonly timeoutMs: number;

  constructor(
    method: string,
    path: string,
    timeoutMs: number,
    what: "request" | "event" | "stream" = "request",
  ) {
    const [missing, option] = TIMEOUT_WORDS[what];
    super(
      `${method} ${path} timed out: no ${missing} within ${timeoutMs} ms. Raise the "${option}" option if the service is slow.`,
    );
    this.method = method;
    this.path = redactText(path);
    this.timeoutMs = timeoutMs;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), method: this.method, path: this.path, timeoutMs: this.timeoutMs };
  }
}

/** A streamed response was malformed, carried an error event, or ended before it was complete. */
export class StudioStreamError extends StudioError {
  static {
    named(StudioStreamError, "StudioStreamError");
  }

  readonly path: string;

  constructor(path: string, detail: string, options?: { cause?: unknown }) {
    super(`Stream from ${path} failed: ${detail}`, options);
    this.path = redactText(path);
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), path: this.path };
  }
}

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

  constructor(init: StudioAPIErrorInit) {
    const id = init.requestId ? ` (request id ${init.requestId})` : "";
    super(
      `${init.method} ${init.path} failed with status ${init.status}${init.code ? ` [${init.code}]` : ""}: ${init.serverMessage}${id}${hintFor(init.status)}`,
    );
    this.status = init.status;
    // Each field is redacted on its own: they are shown apart from the message.
    this.code = init.code === undefined ? undefined : redactText(init.code);
    this.requestId = init.requestId === undefined ? undefined : redactText(init.requestId);
    this.method = init.method;
    this.path = redactText(init.path);
    this.headers = redactDeep(init.headers ?? {}) as Record<string, string>;
    this.body = redactDeep(init.body);
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
