/**
 * The control routes from TypeScript: script, reset and fault a running emulator (the CLI, a
 * compose service, another process's `startEmulator`) as `EmulatorHandle` does in process. Any
 * other language calls the same routes (see `control.ts`) with its own HTTP client.
 *
 * ```ts
 * const control = connectEmulator({ url: process.env.STUDIO_BASE_URL!, apiKey, scope: "test-42" });
 * await control.script("studio/echo-small", ["Hello from the script"]);
 * // the code under test sends `x-emulator-scope: test-42` (control.headers) with its requests
 * ```
 */
import { DEFAULT_EMULATOR_API_KEY } from "./assemble";
import { CONTROL_PATHS } from "./control";
import { SCOPE_HEADER } from "./scope";
import type { ScriptedReply } from "./script";
import type { EmulatorFetch, FaultSpec, ScopeOptions } from "./types";

export interface ConnectEmulatorOptions {
  /** Any of the emulator's addresses (`baseUrl`, `proxyUrl`) or its origin. */
  url: string;
  /** Default `DEFAULT_EMULATOR_API_KEY`. */
  apiKey?: string;
  /** The scope of every call unless the call names another. */
  scope?: string;
  /** Default: the global fetch. */
  fetch?: EmulatorFetch;
}

/** A script as the emulator reports it. */
export interface RemoteScript {
  model: string;
  scope: string | null;
  remaining: number;
  /** The bodies of the requests the script answered, in order. */
  requests: unknown[];
}

export interface EmulatorControl {
  /** `{ "x-emulator-scope": scope }` for the clients of the code under test; `{}` unscoped. */
  readonly headers: Record<string, string>;
  script(
    model: string,
    replies: readonly ScriptedReply[],
    options?: ScopeOptions,
  ): Promise<RemoteScript>;
  /** The script's state: what it answered and what is left. */
  getScript(model: string, options?: ScopeOptions): Promise<RemoteScript>;
  /** With a scope (given here or to `connectEmulator`), only its scripts and faults. */
  reset(options?: ScopeOptions): Promise<void>;
  setFaults(faults?: FaultSpec | string, options?: ScopeOptions): Promise<void>;
}

export function connectEmulator(options: ConnectEmulatorOptions): EmulatorControl {
  const origin = new URL(options.url).origin;
  const apiKey = options.apiKey ?? DEFAULT_EMULATOR_API_KEY;
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  const scopeOf = (call?: ScopeOptions) => call?.scope ?? options.scope;

  async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await send(`${origin}${path}`, {
      method,
      headers: {
        "x-service-key": apiKey,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) {
      let message = text;
      try {
        message = (JSON.parse(text) as { error: { message: string } }).error.message;
      } catch {
        // Not the emulator's error body (a proxy in between?): keep the text as it came.
      }
      throw new Error(`Emulator control ${method} ${path} failed (${response.status}): ${message}`);
    }
    return JSON.parse(text) as T;
  }

  return {
    headers: options.scope === undefined ? {} : { [SCOPE_HEADER]: options.scope },
    script(model, replies, call) {
      return request("POST", CONTROL_PATHS.script, { model, replies, scope: scopeOf(call) });
    },
    getScript(model, call) {
      const scope = scopeOf(call);
      const query = new URLSearchParams({ model, ...(scope === undefined ? {} : { scope }) });
      return request("GET", `${CONTROL_PATHS.script}?${query}`);
    },
    async reset(call) {
      await request("POST", CONTROL_PATHS.reset, { scope: scopeOf(call) });
    },
    async setFaults(faults, call) {
      await request("POST", CONTROL_PATHS.faults, { faults: faults ?? null, scope: scopeOf(call) });
    },
  };
}
