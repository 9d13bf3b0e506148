/**
 * The latest requests an emulator received (`handle.requests`), with the keys redacted. Bounded by
 * count and by bytes, so a long-running emulator (a whole suite, a load test) holds the last few,
 * not every one, and a run of large requests (15 MiB bodies, say) does not hold hundreds of MB.
 */
import type { IncomingHttpHeaders } from "node:http";
import { SECRET_HEADERS } from "./auth";
import type { RecordedRequest } from "./types";

/**
 * Requests kept by default: enough for a test to look back over what it sent, small enough that a
 * long-running emulator holds a few MB of them, not every request.
 */
const DEFAULT_REQUEST_LOG_LIMIT = 1_000;
/**
 * Bytes kept by default (bodies as received, plus headers): the largest body the emulator takes,
 * so the newest request is always kept whole.
 */
export const DEFAULT_REQUEST_LOG_BYTES = 16 * 1024 * 1024;

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
  /** The size counted for each entry, in the same order. */
  private readonly sizes: number[] = [];
  private bytes = 0;

  constructor(
    private readonly limit: number,
    private readonly apiKey: string,
    private readonly maxBytes: number = DEFAULT_REQUEST_LOG_BYTES,
  ) {}

  /** Bytes the kept requests hold (bodies as received, plus headers and path). */
  get keptBytes(): number {
    return this.bytes;
  }

  add(request: LoggedRequest): void {
    if (this.limit <= 0) return;
    const entry = record(request, this.apiKey);
    let size = request.bytes + overheadOf(entry);
    if (size > this.maxBytes) {
      // Alone over the bound: kept without its body, so the log still shows the request came.
      entry.body = undefined;
      entry.bodyOmitted = true;
      size = overheadOf(entry);
    }
    this.entries.push(entry);
    this.sizes.push(size);
    this.bytes += size;
    while (
      this.entries.length > this.limit ||
      (this.bytes > this.maxBytes && this.entries.length > 1)
    ) {
      this.entries.shift();
      this.bytes -= this.sizes.shift()!;
    }
  }

  clear(): void {
    this.entries.length = 0;
    this.sizes.length = 0;
    this.bytes = 0;
  }
}

/** The `recordRequestBytes` option, checked. */
export function requestLogBytes(option: number | undefined): number {
  if (option === undefined) return DEFAULT_REQUEST_LOG_BYTES;
  if (option === Number.POSITIVE_INFINITY || (Number.isInteger(option) && option >= 0)) {
    return option;
  }
  throw new Error(
    "startEmulator: recordRequestBytes must be a whole number of bytes >= 0 or Infinity (got " +
      `${option}).`,
  );
}

/** What an entry holds besides its body: path, query and headers. */
function overheadOf(entry: RecordedRequest): number {
  let size = entry.method.length + entry.path.length;
  for (const [k, v] of Object.entries(entry.query)) size += k.length + v.length;
  for (const [k, v] of Object.entries(entry.headers)) size += k.length + v.length;
  return size;
}

/** The `recordRequests` option as a number of requests to keep. */
export function requestLogLimit(option: boolean | number | undefined): number {
  if (option === undefined || option === true) return DEFAULT_REQUEST_LOG_LIMIT;
  if (option === false) return 0;
  if (option === Number.POSITIVE_INFINITY || (Number.isInteger(option) && option >= 0)) {
    return option;
  }
  throw new Error(
    "startEmulator: recordRequests must be true, false, a whole number >= 0 or Infinity (got " +
      `${option}).`,
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
  return { method, path, query, headers, body, bodyBytes: request.bytes };
}
