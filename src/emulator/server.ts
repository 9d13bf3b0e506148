/**
 * The request pipeline: read the body, record it, draw faults, route, authenticate, parse JSON,
 * run the handler, then write its result (or the fault that replaces it). Handlers never touch the
 * response; that is what lets an "after" fault discard a committed result and fail instead.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { checkAuth, SECRET_HEADERS } from "./auth";
import type { FaultDraw, FaultInjector } from "./faults";
import { HttpError } from "./http-error";
import type { HandlerResult, Router } from "./router";
import { createSseOut } from "./sse";
import type { RecordedRequest } from "./types";

const MAX_BODY_BYTES = 16 * 1024 * 1024;
/**
 * Requests kept by default: enough for a test to look back over what it sent, small enough that a
 * long-running emulator (a whole suite, a load test) holds a few MB of them, not every request.
 */
const DEFAULT_REQUEST_LOG_LIMIT = 1_000;
/** Readiness probe; never faulted, needs no key. */
export const HEALTH_PATH = "/health";

export interface PipelineOptions {
  router: Router;
  faults: FaultInjector;
  apiKey: string;
  /** How many of the latest requests `requests` keeps (0: none). */
  requestLogLimit: number;
  chunkDelayMs: number;
  log: ((line: string) => void) | undefined;
}

export class RequestPipeline {
  readonly requests: RecordedRequest[] = [];
  private counter = 0;

  constructor(private readonly options: PipelineOptions) {}

  handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.run(req, res).catch((error: unknown) => {
      // Only a bug in the emulator lands here; the socket must not hang.
      if (!res.headersSent) {
        sendError(
          res,
          new HttpError(500, `Internal emulator error: ${(error as Error)?.message ?? error}`),
        );
      } else {
        res.destroy();
      }
    });
  };

  private async run(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = req.method ?? "GET";
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    const query = q === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(q + 1)));
    const requestId = `req_${++this.counter}`;
    res.setHeader("x-request-id", requestId);

    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch (error) {
      if (error instanceof HttpError) sendError(res, error);
      else res.destroy();
      return;
    }
    const parsed = parseBody(raw);
    if (this.options.requestLogLimit > 0) {
      this.requests.push(record(method, path, query, req, parsed, this.options.apiKey));
      if (this.requests.length > this.options.requestLogLimit) this.requests.shift();
    }
    const fault = path === HEALTH_PATH ? undefined : this.options.faults.draw(path);
    if (this.options.log) this.logWhenDone(res, method, path, started, fault);

    if (fault && fault.latencyMs > 0) await sleep(fault.latencyMs);
    if (fault?.before === "reset") {
      req.socket.destroy();
      return;
    }
    if (fault?.before !== undefined) {
      sendError(res, injected(fault.before, fault.retryAfterSeconds));
      return;
    }

    let result: HandlerResult;
    try {
      const { route, params } = this.options.router.match(method, path);
      checkAuth(route.auth, req.headers, this.options.apiKey);
      if (parsed.error) throw parsed.error;
      if (raw.length > 0 && !isJson(req.headers["content-type"])) {
        throw new HttpError(
          415,
          "Content-Type must be application/json for a request with a body.",
        );
      }
      result = await route.handler({
        method,
        path,
        params,
        query,
        headers: req.headers,
        body: parsed.value,
        raw,
      });
    } catch (error) {
      if (error instanceof HttpError) {
        sendError(res, error);
        return;
      }
      throw error;
    }

    if (fault?.after !== undefined) {
      // The work is committed; the caller just never learns it succeeded.
      if (result.kind === "proxy") result.body.destroy();
      if (fault.after === "reset") req.socket.destroy();
      else sendError(res, injected(500, 0));
      return;
    }
    await this.send(res, result, fault);
  }

  private async send(
    res: ServerResponse,
    result: HandlerResult,
    fault: FaultDraw | undefined,
  ): Promise<void> {
    switch (result.kind) {
      case "json":
        sendJson(res, result.status ?? 200, result.body);
        return;
      case "sse": {
        const out = createSseOut(res, {
          cutAfter: fault?.cutAfter,
          chunkDelayMs: this.options.chunkDelayMs,
        });
        await result.produce(out);
        return;
      }
      case "proxy":
        res.writeHead(result.status, result.headers);
        await pipeline(result.body, res).catch(() => {
          // The client or the upstream went away mid-stream; both ends are already closed.
        });
        return;
    }
  }

  private logWhenDone(
    res: ServerResponse,
    method: string,
    path: string,
    started: number,
    fault: FaultDraw | undefined,
  ): void {
    const log = this.options.log!;
    const key = this.options.apiKey;
    res.once("close", () => {
      const ms = (performance.now() - started).toFixed(1);
      const status = res.writableFinished ? String(res.statusCode) : "reset";
      const tags = fault ? faultTags(fault) : "";
      const line = `${method} ${path} ${status} ${ms}ms${tags}`;
      log(key ? line.split(key).join("[REDACTED]") : line);
    });
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

function faultTags(fault: FaultDraw): string {
  const tags: string[] = [];
  if (fault.latencyMs > 0) tags.push(`latency=${fault.latencyMs}ms`);
  if (fault.before !== undefined) tags.push(`before=${fault.before}`);
  if (fault.after !== undefined) tags.push(`after=${fault.after}`);
  if (fault.cutAfter !== undefined) tags.push(`cut=${fault.cutAfter}`);
  return tags.length > 0 ? ` [fault ${tags.join(" ")}]` : "";
}

function injected(kind: 429 | 503 | 500, retryAfterSeconds: number): HttpError {
  if (kind === 429) {
    return new HttpError(
      429,
      "Rate limit exceeded (injected fault); retry after the Retry-After delay.",
      {
        headers: { "retry-after": String(retryAfterSeconds) },
      },
    );
  }
  if (kind === 503) return new HttpError(503, "Service unavailable (injected fault); retry later.");
  return new HttpError(500, "Internal server error (injected fault).");
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners("data");
        reject(new HttpError(413, `Request body exceeds ${MAX_BODY_BYTES} bytes.`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.once("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once("error", reject);
  });
}

interface ParsedBody {
  value: unknown;
  error?: HttpError;
  text?: string;
}

function parseBody(raw: Buffer): ParsedBody {
  if (raw.length === 0) return { value: undefined };
  const text = raw.toString("utf8");
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return {
      value: undefined,
      text,
      error: new HttpError(400, `Request body is not valid JSON: ${(error as Error).message}`, {
        code: "invalid_json",
      }),
    };
  }
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.toLowerCase().includes("json") ?? false;
}

function record(
  method: string,
  path: string,
  query: Record<string, string>,
  req: IncomingMessage,
  parsed: ParsedBody,
  apiKey: string | undefined,
): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(", ") : value;
    // A client configured with another key header name (`serviceKeyHeader`) sends the key under
    // a name this list cannot know, so any header holding the key is redacted too.
    const secret = SECRET_HEADERS.has(name) || (apiKey !== undefined && text.includes(apiKey));
    headers[name] = secret ? "[REDACTED]" : text;
  }
  return { method, path, query, headers, body: parsed.error ? parsed.text : parsed.value };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

function sendError(res: ServerResponse, error: HttpError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, error.toBody(), error.headers);
}
