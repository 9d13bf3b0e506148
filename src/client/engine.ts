/**
 * What sends the client's requests, chosen once per client:
 * - the `fetch` option, when given;
 * - on Node (not Bun or Deno, which also define `process.versions.node`): undici's `request` over
 *   a keep-alive `Agent` of the client's own (`connections` sockets per origin), or over the
 *   caller's `dispatcher`. undici is the package's declared dependency, loaded on the first call
 *   with a dynamic import that bundlers leave alone, so loading the package loads nothing
 *   Node-only and browser bundles never pull undici in;
 * - everywhere else, the runtime's own `globalThis.fetch`.
 *
 * Either way the transport gets the same `EngineResponse`: status, headers and a body reader.
 * On Node the body stays undici's own stream: wrapping it in a WHATWG `Response` (which is what
 * undici's `fetch` does too) adds more latency to every call than the bench allows the whole
 * client. A `dispatcher` is handed to whichever engine runs and stays its owner's to close. The
 * client's own Agent keeps idle sockets only for undici's keep-alive timeout, unreferenced, so
 * a process with a forgotten client still exits on its own.
 */
import type { Agent, Dispatcher } from "undici";
import type { FetchLike } from "./options";

export interface EngineOptions {
  readonly fetch: FetchLike | undefined;
  readonly dispatcher: Dispatcher | undefined;
  readonly connections: number;
}

/** What the transport sends: fetch's terms, without redirects (they are never followed). */
export interface EngineRequest {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string | null;
  readonly signal: AbortSignal;
}

/** A body read piece by piece; `cancel` stops reading and frees the connection. */
export interface BodyReader {
  read(): Promise<{ done?: boolean | undefined; value?: Uint8Array | undefined }>;
  cancel(): Promise<unknown>;
}

/** The part of WHATWG `Headers` the transport reads (a fetch `Response`'s headers are one). */
export interface HeaderLookup {
  get(name: string): string | null;
  forEach(callback: (value: string, name: string) => void): void;
}

/** A response whose headers are in; the body is still to be read. */
export interface EngineResponse {
  readonly status: number;
  readonly headers: HeaderLookup;
  readonly body: BodyReader | null;
}

type Send = (url: string, request: EngineRequest) => Promise<EngineResponse>;

/** Hidden from bundlers: a variable specifier plus the ignore comments webpack and Vite read. */
const UNDICI = "undici";

type Undici = typeof import("undici");

/** Node itself: Bun and Deno define `process.versions.node` too. */
export function isNode(): boolean {
  const g = globalThis as { Bun?: unknown; Deno?: unknown };
  return (
    typeof process !== "undefined" &&
    typeof process.versions?.node === "string" &&
    g.Bun === undefined &&
    g.Deno === undefined
  );
}

export class Engine {
  readonly #options: EngineOptions;
  #loading: Promise<Send> | undefined;
  #agent: Agent | undefined;
  #closed = false;

  constructor(options: EngineOptions) {
    this.#options = options;
  }

  /** What the engine is, for `toJSON`: undici, or a fetch (the caller's or the runtime's). */
  get name(): "undici" | "fetch" {
    return !this.#options.fetch && isNode() ? "undici" : "fetch";
  }

  /** Sends one request; on Node, undici is loaded (once) on the first call. */
  async send(url: string, request: EngineRequest): Promise<EngineResponse> {
    this.#loading ??= this.#load();
    const send = await this.#loading;
    return send(url, request);
  }

  /** Destroys the client's own Agent (a caller's dispatcher is left open). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const agent = this.#agent;
    this.#agent = undefined;
    // Destroy, not a graceful close: a stream abandoned without `break` would keep a graceful
    // close waiting forever.
    if (agent) await agent.destroy();
  }

  async #load(): Promise<Send> {
    const { fetch, dispatcher, connections } = this.#options;
    if (fetch) return sendWithFetch(fetch, dispatcher);
    if (isNode()) {
      const undici = await loadUndici();
      if (undici) {
        if (dispatcher) return sendWithUndici(undici, dispatcher);
        if (this.#closed) throw new Error("the client is closed");
        const agent = new undici.Agent({ connections, headersTimeout: 0, bodyTimeout: 0 });
        this.#agent = agent;
        return sendWithUndici(undici, agent);
      }
    }
    const global = globalThis.fetch as FetchLike | undefined;
    if (typeof global !== "function") {
      throw new Error("this runtime has no fetch; pass one in the `fetch` option");
    }
    return sendWithFetch((input, init) => global(input, init), dispatcher);
  }
}

/** undici, or undefined when this "Node" cannot load it (an edge runtime's Node compatibility). */
async function loadUndici(): Promise<Undici | undefined> {
  try {
    return (await import(/* webpackIgnore: true */ /* @vite-ignore */ UNDICI)) as Undici;
  } catch {
    return undefined;
  }
}

/** A fetch, with `redirect: "manual"` so the key is never replayed to another address. */
function sendWithFetch(fetch: FetchLike, dispatcher: Dispatcher | undefined): Send {
  return async (url, request) => {
    const init = { ...request, redirect: "manual", ...(dispatcher ? { dispatcher } : {}) };
    const response = await fetch(url, init as RequestInit);
    return {
      // An opaque redirect (browsers) has status 0; report it as the redirect it is.
      status: response.type === "opaqueredirect" ? 302 : response.status,
      headers: response.headers,
      body: response.body?.getReader() ?? null,
    };
  };
}

/** undici's `request`, which never follows redirects. */
function sendWithUndici(undici: Undici, dispatcher: Dispatcher): Send {
  return async (url, request) => {
    const { statusCode, headers, body } = await undici.request(url, {
      dispatcher,
      method: request.method as Dispatcher.HttpMethod,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
      // The client enforces its own timeouts; undici's 300 s defaults would cut long streams
      // that the caller allowed.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    const chunks: AsyncIterator<Uint8Array> = body[Symbol.asyncIterator]();
    return {
      status: statusCode,
      headers: undiciHeaders(headers),
      body: {
        read: () => chunks.next(),
        // Ending the iteration destroys the stream, which aborts an unfinished response.
        cancel: async () => chunks.return?.(),
      },
    };
  };
}

/** undici's header record (lower-case names) read as `Headers` would read it. */
function undiciHeaders(headers: Record<string, string | string[] | undefined>): HeaderLookup {
  const value = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(", ") : v);
  return {
    get: (name) => value(headers[name.toLowerCase()]) ?? null,
    forEach: (callback) => {
      for (const [name, v] of Object.entries(headers)) {
        const joined = value(v);
        if (joined !== undefined) callback(joined, name);
      }
    },
  };
}
