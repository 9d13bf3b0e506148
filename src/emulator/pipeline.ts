/**
 * The request pipeline, without a transport: record the request, draw faults, route,
 * authenticate, parse JSON, run the handler, then say what to answer (or the fault that replaces
 * it). The HTTP server (`server.ts`) and the in-process fetch (`in-process-fetch.ts`) are two thin
 * ways of carrying a request in and the outcome out; every rule lives here, once.
 */
import type { IncomingHttpHeaders } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { checkAuth } from "./auth";
import type { FaultDraw, FaultInjector } from "./faults";
import { HttpError } from "./http-error";
import type { RequestLog } from "./request-log";
import type { HandlerResult, Router } from "./router";

/** Readiness probe; never faulted, needs no key. */
export const HEALTH_PATH = "/health";
/** The largest body either transport reads; a larger one is a 413. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface IncomingRequest {
  method: string;
  /** Path and query as received, e.g. `/studio/v1/threads?limit=2`. */
  url: string;
  /** Lower-case names, as Node gives them. */
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

/** What the transport does with a request. */
export type Outcome =
  /** Drop the connection without an answer (a reset fault, before or after the work). */
  | { kind: "drop" }
  | { kind: "error"; error: HttpError }
  /** `cutAfter`: a stream-cut fault ends a streamed answer after that many events. */
  | { kind: "result"; result: HandlerResult; cutAfter: number | undefined };

export interface Processed {
  requestId: string;
  outcome: Outcome;
  /** The transport calls it once the answer is over (for the log line). */
  finished(status: number | "reset"): void;
}

export interface PipelineOptions {
  router: Router;
  faults: FaultInjector;
  apiKey: string;
  requestLog: RequestLog;
  log: ((line: string) => void) | undefined;
}

export class RequestPipeline {
  private counter = 0;

  constructor(private readonly options: PipelineOptions) {}

  /** A fresh request id (also for the 413 a transport answers before the pipeline runs). */
  nextRequestId(): string {
    return `req_${++this.counter}`;
  }

  async process(request: IncomingRequest, requestId = this.nextRequestId()): Promise<Processed> {
    const started = performance.now();
    const { method, url, headers, raw } = request;
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    const query = q === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(q + 1)));
    const parsed = parseBody(raw);
    this.options.requestLog.add({
      method,
      path,
      query,
      headers,
      body: parsed.error ? parsed.text : parsed.value,
      bytes: raw.length,
    });
    const fault = path === HEALTH_PATH ? undefined : this.options.faults.draw(path);
    const finished = (status: number | "reset") =>
      this.logLine(method, path, started, status, fault);
    const done = (outcome: Outcome): Processed => ({ requestId, outcome, finished });

    if (fault && fault.latencyMs > 0) await sleep(fault.latencyMs);
    if (fault?.before === "reset") return done({ kind: "drop" });
    if (fault?.before !== undefined) {
      return done({ kind: "error", error: injected(fault.before, fault.retryAfterSeconds) });
    }

    let result: HandlerResult;
    try {
      const { route, params } = this.options.router.match(method, path);
      checkAuth(route.auth, headers, this.options.apiKey);
      if (parsed.error) throw parsed.error;
      if (raw.length > 0 && !isJson(headers["content-type"])) {
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
        headers,
        body: parsed.value,
        raw,
      });
    } catch (error) {
      if (error instanceof HttpError) return done({ kind: "error", error });
      throw error;
    }

    if (fault?.after !== undefined) {
      // The work is committed; the caller just never learns it succeeded.
      if (result.kind === "proxy") result.body.destroy();
      if (fault.after === "reset") return done({ kind: "drop" });
      return done({ kind: "error", error: injected(500, 0) });
    }
    return done({ kind: "result", result, cutAfter: fault?.cutAfter });
  }

  private logLine(
    method: string,
    path: string,
    started: number,
    status: number | "reset",
    fault: FaultDraw | undefined,
  ): void {
    const log = this.options.log;
    if (!log) return;
    const key = this.options.apiKey;
    const ms = (performance.now() - started).toFixed(1);
    const tags = fault ? faultTags(fault) : "";
    const line = `${method} ${path} ${status} ${ms}ms${tags}`;
    log(key ? line.split(key).join("[REDACTED]") : line);
  }
}

/** The 413 both transports answer for a body over `MAX_BODY_BYTES`. */
export function bodyTooLarge(): HttpError {
  return new HttpError(413, `Request body exceeds ${MAX_BODY_BYTES} bytes.`);
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

function isJson(contentType: string | string[] | undefined): boolean {
  return typeof contentType === "string" && contentType.toLowerCase().includes("json");
}
