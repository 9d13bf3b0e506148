import nock from "nock";
import { afterEach, beforeEach } from "vitest";
import { StudioClient } from "../../../src/client";
import type { StudioClientOptions } from "../../../src/client/options";
import { StudioValidationError } from "../../../src/errors";

export const STUDIO = "http://studio.test";
export const PROXY = "http://proxy.test";
export const KEY = "sk-unit-test-key-0123456789";

export interface Captured {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

/** nock on, real network off, clean between tests. */
export function useNock(): void {
  beforeEach(() => {
    nock.disableNetConnect();
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    nock.enableNetConnect();
    if (pending.length > 0) throw new Error(`nock interceptors not used: ${pending.join(", ")}`);
  });
}

/** A client on the fetch transport (nock intercepts only global fetch). */
export function makeClient(options: StudioClientOptions = {}): StudioClient {
  return new StudioClient({
    apiKey: KEY,
    baseUrl: STUDIO,
    proxyUrl: PROXY,
    fetch: globalThis.fetch,
    ...options,
  });
}

function flatHeaders(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}

/**
 * Intercepts `times` requests to `origin` + `method` + `path` (query included when given),
 * records each, and answers with `reply(n)` (status, body, headers).
 */
export function intercept(
  origin: string,
  method: string,
  path: string | RegExp,
  reply: (
    attempt: number,
    captured: Captured,
  ) => [number, unknown] | [number, unknown, Record<string, string>],
  times = 1,
): Captured[] {
  const calls: Captured[] = [];
  nock(origin)
    .intercept(path, method)
    .times(times)
    .reply(function (uri, body) {
      const captured: Captured = {
        method: this.req.method ?? method,
        path: uri,
        headers: flatHeaders(this.req.headers),
        body: typeof body === "string" && body !== "" ? JSON.parse(body) : body || undefined,
      };
      calls.push(captured);
      return reply(calls.length, captured);
    });
  return calls;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}) {
  return (): [number, unknown, Record<string, string>] => [
    status,
    body,
    { "content-type": "application/json", ...headers },
  ];
}

export async function collect<T>(iterable: AsyncIterable<T>, max = 1000): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) {
    out.push(item);
    if (out.length >= max) break;
  }
  return out;
}

/** Resolves to the error a promise (or a lazy iteration) rejects with; fails if it resolves. */
export async function failure(work: Promise<unknown> | AsyncIterable<unknown>): Promise<Error> {
  try {
    if (Symbol.asyncIterator in Object(work)) await collect(work as AsyncIterable<unknown>);
    else await work;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure, got success");
}

// Fixtures shaped like the spec's tables.
export const THREAD = { id: "thread_1", object: "thread", createdAt: "2024-01-01T00:00:00Z" };
export const MESSAGE = {
  id: "msg_1",
  object: "thread.message",
  threadId: "thread_1",
  role: "user",
  content: [{ type: "text", text: "hi" }],
};
export const ASSISTANT = { id: "asst_1", assistantName: "helper", modelName: "owner/model" };
export const CHAT = {
  id: "chatcmpl_1",
  object: "chat.completion",
  created: 1,
  model: "owner/model",
  usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
  choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
};
export const TEXT = {
  id: "cmpl_1",
  object: "text_completion",
  created: 1,
  model: "owner/model",
  choices: [{ index: 0, text: "hi", finish_reason: "stop" }],
};
export const MODEL = { id: "model_1", uri: "owner/model", public: true, state: { state: "READY" } };

export function sse(...events: unknown[]): string {
  return events
    .map((event) => `data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`)
    .join("");
}

/** The request headers the client decides (fetch adds its own, e.g. accept-encoding). */
const CLIENT_HEADERS = [
  "accept",
  "content-type",
  "user-agent",
  "authorization",
  "x-service-key",
  "x-org-id",
];

export function clientHeaders(captured: Captured): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CLIENT_HEADERS) {
    const value = captured.headers[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** The field a `StudioValidationError` thrown by `work` names; undefined when nothing is thrown. */
export function field(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    if (error instanceof StudioValidationError) return error.field;
    throw error;
  }
  return undefined;
}
