/**
 * `langchain-studio/emulator`: a real HTTP server on loopback implementing the whole service
 * interface (spec + notes), for tests, demos and offline use; or the same emulator in process,
 * served through a `fetch` function with no port at all.
 *
 * ```ts
 * const emulator = await startEmulator({ port: 0 });
 * // emulator.baseUrl, emulator.proxyUrl, emulator.apiKey ...
 * await emulator.close();
 *
 * const inProcess = await createInProcessEmulator();
 * // new StudioClient({ ...addresses, apiKey: inProcess.apiKey, fetch: inProcess.fetch })
 * ```
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type AssembledEmulator, assembleEmulator } from "./assemble";
import { nodeRequestHandler } from "./server";
import type { EmulatorHandle, EmulatorOptions } from "./types";

export {
  DEFAULT_EMULATOR_API_KEY,
  INFERENCE_PREFIX,
  STUDIO_PREFIX,
} from "./assemble";
export { EmulatorDataFileError } from "./persistence";
export type {
  ModelScript,
  ScriptedError,
  ScriptedReply,
  ScriptedReplyFields,
  ScriptedRequest,
  ScriptedToolCall,
} from "./script";
export type {
  EmulatorFetch,
  EmulatorHandle,
  EmulatorOptions,
  FaultSpec,
  RecordedRequest,
} from "./types";

/**
 * The origin of an in-process emulator's addresses. `.invalid` never resolves (RFC 2606), so a
 * client that was not given the emulator's `fetch` fails at once instead of reaching anything.
 */
export const IN_PROCESS_ORIGIN = "http://studio-emulator.invalid";

/** The emulator as an HTTP server on `host:port` (port 0: a free one). */
export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const host = options.host ?? "127.0.0.1";
  const emulator = await assembleEmulator(options);
  const server = createServer(
    { keepAliveTimeout: 5_000 },
    nodeRequestHandler(emulator.pipeline, emulator.chunkDelayMs),
  );
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await emulator.dispose();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const { baseUrl, proxyUrl } = emulator.setOrigin(
    `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
  );
  let closing: Promise<void> | undefined;
  return handle(emulator, baseUrl, proxyUrl, port, () => {
    closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await emulator.dispose();
    })();
    return closing;
  });
}

/**
 * The emulator without a server: the same routes, state, scripts and faults, reached only through
 * `handle.fetch`, a WHATWG fetch that needs no port or loopback. `baseUrl` and `proxyUrl` are on
 * `IN_PROCESS_ORIGIN`; give clients both addresses and `fetch: handle.fetch`. `port` is 0.
 */
export async function createInProcessEmulator(
  options: Omit<EmulatorOptions, "port" | "host"> = {},
): Promise<EmulatorHandle> {
  const emulator = await assembleEmulator(options);
  const { baseUrl, proxyUrl } = emulator.setOrigin(IN_PROCESS_ORIGIN);
  let closing: Promise<void> | undefined;
  return handle(emulator, baseUrl, proxyUrl, 0, () => {
    closing ??= emulator.dispose();
    return closing;
  });
}

function handle(
  emulator: AssembledEmulator,
  baseUrl: string,
  proxyUrl: string,
  port: number,
  close: () => Promise<void>,
): EmulatorHandle {
  const { controls } = emulator;
  return {
    baseUrl,
    proxyUrl,
    apiKey: controls.apiKey,
    port,
    fetch: controls.fetch,
    get requests() {
      return controls.requests;
    },
    clearRequests: () => controls.clearRequests(),
    setFaults: (faults) => controls.setFaults(faults),
    script: (model, replies) => controls.script(model, replies),
    reset: () => controls.reset(),
    close,
  };
}
