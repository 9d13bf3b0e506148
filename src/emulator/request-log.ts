/**
 * The latest requests an emulator received (`handle.requests`), with the keys redacted. Bounded by
 * count, so a long-running emulator (a whole suite, a load test) holds the last few, not every one.
 */
import type { IncomingHttpHeaders } from "node:http";
import { SECRET_HEADERS } from "./auth";
import type { RecordedRequest } from "./types";

/**
 * Requests kept by default: enough for a test to look back over what it sent, small enough that a
 * long-running emulator holds a few MB of them, not every request.
 */
const DEFAULT_REQUEST_LOG_LIMIT = 1_000;

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The body's size as received. */
  bytes: number;
}

export class RequestLog {
  readonly entries: RecordedRequest[] = [];

  constructor(
    private readonly limit: number,
    private readonly apiKey: string,
  ) {}

  add(request: LoggedRequest): void {
    if (this.limit <= 0) return;
    this.entries.push(record(request, this.apiKey));
    if (this.entries.length > this.limit) this.entries.shift();
  }

  clear(): void {
    this.entries.length = 0;
  }
}

/** The `recordRequests` option as a number of requests to keep. */
export function requestLogLimit(option: boolean | number | undefined): number {
  if (option === undefined || option === true) return DEFAULT_REQUEST_LOG_LIMIT;
  if (option === false) return 0;
  if (option === Number.POSITIVE_INFINITY || (Number.isInteger(option) && option >= 0)) {
    return option;
  }
  throw new Error(
    `startEmulator: recordRequests must be true, false, a whole number >= 0 or Infinity (got ${option}).`,
  );
}

function record(request: LoggedRequest, apiKey: string): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(", ") : value;
    // A client configured with another key header name (`serviceKeyHeader`) sends the key under
    // a name this list cannot know, so any header holding the key is redacted too.
    const secret = SECRET_HEADERS.has(name) || text.includes(apiKey);
    headers[name] = secret ? "[REDACTED]" : text;
  }
  const { method, path, query, body } = request;
  return { method, path, query, headers, body };
}
