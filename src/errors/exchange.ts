/**
 * An exchange with the service failed without an error status: the connection, a timeout, a body
 * of the wrong shape, a broken stream.
 */
import { redactText } from "./redact";
import { named, StudioError } from "./studio-error";

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
      `Connection to ${method} ${path} failed: ${detail}. Check the address and your network; ` +
        "the call can be retried.",
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
      `${method} ${path} timed out: no ${missing} within ${timeoutMs} ms. Raise the "${option}" ` +
        "option if the service is slow.",
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
