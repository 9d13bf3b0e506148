/**
 * Every error the package throws is a `StudioError`. API errors are built by one factory,
 * `StudioAPIError.fromResponse`, which picks the subclass from the status, so callers can
 * `catch (e) { if (e instanceof StudioRateLimitError) ... }` without reading messages.
 *
 * No error ever holds the API key: messages are built from status, path and the server's own
 * message, and `redactSecrets` scrubs any known secret that a server might echo back.
 */

const knownSecrets = new Set<string>();

/** Registers a secret so that it is scrubbed from every error message built afterwards. */
export function registerSecret(secret: string | undefined): void {
  if (secret && secret.length >= 4) knownSecrets.add(secret);
}

/** Replaces every registered secret with a placeholder. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of knownSecrets) {
    if (out.includes(secret)) out = out.split(secret).join("[REDACTED]");
  }
  return out;
}

export class StudioError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(
      redactSecrets(message),
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = new.target.name;
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message };
  }
}

/** A configuration value is missing or unusable (raised at the first call that needs it). */
export class StudioConfigError extends StudioError {
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
  readonly method: string;
  readonly path: string;

  constructor(method: string, path: string, detail: string, options?: { cause?: unknown }) {
    super(`Unexpected response from ${method} ${path}: ${detail}`, options);
    this.method = method;
    this.path = path;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), method: this.method, path: this.path };
  }
}

/** The connection failed before a complete response arrived (refused, reset, DNS, TLS). */
export class StudioConnectionError extends StudioError {
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
    this.path = path;
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

/** The request (or, for streams, the wait between two events) took longer than allowed. */
export class StudioTimeoutError extends StudioError {
  readonly method: string;
  readonly path: string;
  readonly timeoutMs: number;

  constructor(method: string, path: string, timeoutMs: number, what = "request") {
    const request = what === "request";
    super(
      `${method} ${path} timed out: no ${request ? "complete response" : "stream event"} within ${timeoutMs} ms. Raise the "${request ? "timeout" : "streamIdleTimeout"}" option if the service is slow.`,
    );
    this.method = method;
    this.path = path;
    this.timeoutMs = timeoutMs;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), method: this.method, path: this.path, timeoutMs: this.timeoutMs };
  }
}

/** A streamed response was malformed, carried an error event, or ended before it was complete. */
export class StudioStreamError extends StudioError {
  readonly path: string;

  constructor(path: string, detail: string, options?: { cause?: unknown }) {
    super(`Stream from ${path} failed: ${detail}`, options);
    this.path = path;
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
    this.code = init.code;
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
    this.headers = init.headers ?? {};
    this.body = init.body;
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

export class StudioBadRequestError extends StudioAPIError {}
export class StudioAuthenticationError extends StudioAPIError {}
export class StudioPermissionDeniedError extends StudioAPIError {}
export class StudioNotFoundError extends StudioAPIError {}
export class StudioConflictError extends StudioAPIError {}
export class StudioUnprocessableEntityError extends StudioAPIError {}
export class StudioServerError extends StudioAPIError {}

export class StudioRateLimitError extends StudioAPIError {
  /** Milliseconds the server asked us to wait (from `Retry-After`), if it said. */
  readonly retryAfter: number | undefined;

  constructor(init: StudioAPIErrorInit) {
    super(init);
    this.retryAfter = init.retryAfterMs;
  }
}
