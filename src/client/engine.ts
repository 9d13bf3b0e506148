/**
 * Which `fetch` the client's requests go through, chosen once per client:
 * - the `fetch` option, when given;
 * - on Node (not Bun or Deno, which also define `process.versions.node`): undici's `fetch` over a
 *   keep-alive `Agent` of the client's own (`connections` sockets per origin), or over the
 *   caller's `dispatcher`. undici is the package's declared dependency, loaded on the first call
 *   with a dynamic import that bundlers leave alone, so loading the package loads nothing
 *   Node-only and browser bundles never pull undici in;
 * - everywhere else, the runtime's own `globalThis.fetch`.
 * A `dispatcher` is handed to whichever fetch runs, as its `dispatcher` init member, and stays
 * its owner's to close. The client's own Agent keeps idle sockets only for undici's keep-alive
 * timeout and unreferenced, so a process with a forgotten client still exits on its own.
 */
import type { Agent, Dispatcher } from "undici";
import type { FetchLike } from "./types";

export interface EngineOptions {
  readonly fetch: FetchLike | undefined;
  readonly dispatcher: Dispatcher | undefined;
  readonly connections: number;
}

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
  #loading: Promise<FetchLike> | undefined;
  #agent: Agent | undefined;
  #closed = false;

  constructor(options: EngineOptions) {
    this.#options = options;
  }

  /** What the engine is, for `toJSON`: undici, or a fetch (the caller's or the runtime's). */
  get name(): "undici" | "fetch" {
    return !this.#options.fetch && isNode() ? "undici" : "fetch";
  }

  /** The fetch to call; on Node, undici is loaded (once) on the first call. */
  fetch(): Promise<FetchLike> {
    this.#loading ??= this.#load();
    return this.#loading;
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

  async #load(): Promise<FetchLike> {
    const { fetch, dispatcher, connections } = this.#options;
    if (fetch) return dispatcher ? withDispatcher(fetch, dispatcher) : fetch;
    if (isNode()) {
      const undici = await loadUndici();
      if (undici) {
        if (dispatcher) return withDispatcher(undici.fetch as unknown as FetchLike, dispatcher);
        if (this.#closed) throw new Error("the client is closed");
        // The client enforces its own timeouts; undici's 300 s defaults would cut long streams
        // that the caller allowed.
        const agent = new undici.Agent({ connections, headersTimeout: 0, bodyTimeout: 0 });
        this.#agent = agent;
        return withDispatcher(undici.fetch as unknown as FetchLike, agent);
      }
    }
    const global = globalThis.fetch as FetchLike | undefined;
    if (typeof global !== "function") {
      throw new Error("this runtime has no fetch; pass one in the `fetch` option");
    }
    const bound: FetchLike = (input, init) => global(input, init);
    return dispatcher ? withDispatcher(bound, dispatcher) : bound;
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

function withDispatcher(fetch: FetchLike, dispatcher: Dispatcher): FetchLike {
  return (input, init) => fetch(input, { ...init, dispatcher } as unknown as RequestInit);
}
