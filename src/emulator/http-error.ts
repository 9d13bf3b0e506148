import type { ErrorBody } from "../api-types";

/**
 * An error answered to the caller as `{ error: { message, type, code, param? } }`. Handlers throw
 * it; the server turns it into the response, so no handler writes error bodies itself.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string;
  readonly param: string | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    message: string,
    options: {
      type?: string;
      code?: string;
      param?: string;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.status = status;
    this.type = options.type ?? defaultType(status);
    this.code = options.code ?? defaultCode(status);
    this.param = options.param;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    const error: ErrorBody["error"] = { message: this.message, type: this.type, code: this.code };
    if (this.param !== undefined) error.param = this.param;
    return { error };
  }
}

/** 400 naming the offending field, e.g. `invalid("temperature", "must be between 0 and 2")`. */
export function invalid(param: string, problem: string, code = "invalid_value"): HttpError {
  return new HttpError(400, `${param} ${problem}`, { param, code });
}

export function notFound(what: string, id: string, param?: string): HttpError {
  return new HttpError(404, `${what} ${JSON.stringify(id)} not found`, {
    code: `${what.replace(/\s+/g, "_")}_not_found`,
    ...(param === undefined ? {} : { param }),
  });
}

function defaultType(status: number): string {
  switch (status) {
    case 401:
      return "authentication_error";
    case 404:
      return "not_found_error";
    case 429:
      return "rate_limit_error";
    default:
      return status >= 500 ? "server_error" : "invalid_request_error";
  }
}

function defaultCode(status: number): string {
  switch (status) {
    case 400:
      return "invalid_request";
    case 401:
      return "invalid_api_key";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 413:
      return "payload_too_large";
    case 415:
      return "unsupported_media_type";
    case 429:
      return "rate_limit_exceeded";
    case 502:
      return "bad_gateway";
    case 503:
      return "service_unavailable";
    default:
      return status >= 500 ? "internal_error" : "error";
  }
}
