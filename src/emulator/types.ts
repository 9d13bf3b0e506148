import type { ModelScript, ScriptedReply } from "./script";

/**
 * Public contract of `langchain-studio/emulator`. Teammates' tests and users' suites code against
 * these shapes, so fields are only ever added, never changed.
 */

/** A WHATWG fetch: `handle.fetch`, served in process by the emulator. */
export type EmulatorFetch = (
  input: string | URL | Request,
  init?: RequestInit,
) => Promise<Response>;

export interface FaultSpec {
  /** 0..1 probability per request: 429 with Retry-After. */
  rate429?: number;
  /** Value of Retry-After on injected 429s, in seconds (default 0). */
  retryAfterSeconds?: number;
  /** 500 before doing the work. */
  rate500Before?: number;
  /** 503 before doing the work. */
  rate503Before?: number;
  /** Do the work (commit the state change), then answer 500. */
  rate500After?: number;
  /** Destroy the socket before doing the work. */
  resetBefore?: number;
  /** Do the work, then destroy the socket without answering. */
  resetAfter?: number;
  /** Streamed completions: cut the connection after a few chunks (no [DONE]). */
  streamCut?: number;
  /** Added latency before answering, in ms. */
  latencyMs?: number;
  /** Only requests whose path contains this substring get faults. */
  match?: string;
}

export interface EmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default `DEFAULT_EMULATOR_API_KEY`. */
  apiKey?: string;
  /**
   * File (JSON lines) holding threads, messages and assistants across restarts: each change is
   * appended before it is answered, and the file is compacted now and then.
   */
  dataFile?: string;
  /** Fault rates; the string form is the CLI's: "rate429=0.1,resetAfter=0.05,latencyMs=20". */
  faults?: FaultSpec | string;
  /** Makes fault draws and generated ids reproducible (default 1). */
  seed?: number;
  /** One line per request; never contains the key. `true` logs to stdout. */
  log?: boolean | ((line: string) => void);
  /** OpenAI-compatible base URL: completions are forwarded there instead of the scripted model. */
  upstream?: string;
  /** Key sent to `upstream` as `Authorization: Bearer <key>` (the emulator's own key never is). */
  upstreamApiKey?: string;
  /**
   * How many of the latest requests `handle.requests` keeps: `true` (default) the last 1,000, a
   * number that many (`Infinity`: every one), `false` none.
   */
  recordRequests?: boolean | number;
  /** Pause between streamed chunks in ms (default 0), for tests that stop reading mid-stream. */
  chunkDelayMs?: number;
  /**
   * Refuse chat conversations whose tool calls and tool messages do not pair up, with the 400s
   * OpenAI-compatible servers give (default true; false accepts them, as lenient servers do).
   */
  strictToolMessages?: boolean;
}

export interface RecordedRequest {
  method: string;
  /** Path as received, without the query, e.g. `/studio/v1/threads`. */
  path: string;
  query: Record<string, string>;
  /** Lower-cased names; auth header values replaced by "[REDACTED]". */
  headers: Record<string, string>;
  /** Parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
}

export interface EmulatorHandle {
  /** `http://<host>:<port>/studio`: `{baseUrl}/v1/threads` ... */
  baseUrl: string;
  /** `http://<host>:<port>/inference`: `{proxyUrl}/chat/completions` */
  proxyUrl: string;
  apiKey: string;
  /** The port listened on; 0 for an in-process emulator (`createInProcessEmulator`). */
  port: number;
  /**
   * A WHATWG fetch served in process by this emulator's routes, with no socket: pass it as a
   * client's `fetch` option (with `baseUrl` / `proxyUrl`) to skip loopback HTTP. Faults, scripts,
   * the request log and the data file behave as over HTTP. Refuses like a closed port after
   * `close()`.
   */
  fetch: EmulatorFetch;
  /** Flushes the data file and closes all sockets (keep-alive ones too). */
  close(): Promise<void>;
  /**
   * Empties threads, messages, assistants, datasets and the request log; reseeds models. Ids
   * issued after it never repeat one issued before.
   */
  reset(): Promise<void>;
  /** Changes faults at run time (undefined = none). */
  setFaults(faults?: FaultSpec | string): void;
  /**
   * What `model` answers next: each valid completion request for it takes the next reply, in
   * order, instead of the scripted model's echo; once used up, requests get a 400 saying so.
   * Replaces the model's earlier script; `reset()` drops every script.
   */
  script(model: string, replies: readonly ScriptedReply[]): ModelScript;
  /** The latest requests received (see `recordRequests`), oldest first. */
  readonly requests: readonly RecordedRequest[];
  clearRequests(): void;
}
