import type { Dispatcher } from "undici";

/** A WHATWG `fetch` (the global one, or any compatible implementation). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface StudioClientOptions {
  /** API key. Env: `STUDIO_API_KEY`. Needed by every call except listing public models. */
  apiKey?: string;
  /** Organization id, sent as `X-Org-Id` on completions when set. Env: `STUDIO_ORG_ID`. */
  orgId?: string;
  /** Studio address (threads, assistants, models, datasets). Env: `STUDIO_BASE_URL`. */
  baseUrl?: string;
  /** Inference address (chat and text completions). Env: `STUDIO_PROXY_URL`. */
  proxyUrl?: string;
  /** Overall request timeout in ms (default 60000). */
  timeout?: number;
  /** Longest wait between two complete stream events in ms (default: `timeout`). */
  streamIdleTimeout?: number;
  /**
   * Longest a whole stream may take, in ms, retries included: the last guard against a server that
   * never ends (default 600000, 10 minutes, or `timeout` when that is longer).
   */
  streamTimeout?: number;
  /** Retries after the first attempt on retryable failures (default 2). */
  maxRetries?: number;
  /** Headers added to every request (never overriding the auth headers). */
  defaultHeaders?: Record<string, string>;
  /**
   * Sockets per origin in the client's own keep-alive pool, on Node (default 64; ignored with
   * `dispatcher` or `fetch`).
   */
  connections?: number;
  /** An undici Dispatcher (Pool, Agent, MockAgent...), passed to fetch; its owner closes it. */
  dispatcher?: Dispatcher;
  /**
   * A WHATWG fetch every request goes through. Default: undici's fetch on Node (loaded on the
   * first call), the runtime's own fetch elsewhere.
   */
  fetch?: FetchLike;
  /** Largest response body accepted, in bytes (default 32 MiB); larger is a clear error. */
  maxResponseBytes?: number;
}

/** Per-call options accepted by every client method. */
export interface RequestOptions {
  signal?: AbortSignal | undefined;
  /** Overrides the client's timeout for this call. */
  timeout?: number | undefined;
  /** Overrides the client's maxRetries for this call. */
  maxRetries?: number | undefined;
  /** Extra headers for this call (never overriding the auth headers). */
  headers?: Record<string, string> | undefined;
}
