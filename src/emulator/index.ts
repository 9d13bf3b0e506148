/**
 * `langchain-studio/emulator`: a real HTTP server on loopback implementing the whole service
 * interface (spec + notes), for tests, demos and offline use.
 *
 * ```ts
 * const emulator = await startEmulator({ port: 0 });
 * // emulator.baseUrl, emulator.proxyUrl, emulator.apiKey ...
 * await emulator.close();
 * ```
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Model } from "../api-types";
import { assistantRoutes } from "./assistants";
import { catalogRoutes } from "./catalog";
import { completionRoutes } from "./completions";
import { FaultInjector } from "./faults";
import { seedModels } from "./models";
import { openStore } from "./persistence";
import { createRng } from "./rng";
import { Router } from "./router";
import { ScriptBook } from "./script";
import { HEALTH_PATH, RequestPipeline, requestLogLimit } from "./server";
import { Store } from "./store";
import { threadRoutes } from "./threads";
import type { EmulatorHandle, EmulatorOptions } from "./types";
import { Upstream } from "./upstream";

export { EmulatorDataFileError } from "./persistence";
export type {
  ModelScript,
  ScriptedError,
  ScriptedReply,
  ScriptedReplyFields,
  ScriptedRequest,
  ScriptedToolCall,
} from "./script";
export type { EmulatorHandle, EmulatorOptions, FaultSpec, RecordedRequest } from "./types";

/** The fixed development key the emulator accepts unless `apiKey` is given. */
export const DEFAULT_EMULATOR_API_KEY = "studio-emulator-dev-key";

const DEFAULT_SEED = 1;
export const STUDIO_PREFIX = "/studio";
export const INFERENCE_PREFIX = "/inference";

export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const host = options.host ?? "127.0.0.1";
  const apiKey = options.apiKey ?? DEFAULT_EMULATOR_API_KEY;
  if (apiKey === "") throw new Error("startEmulator: apiKey must not be empty.");
  const requestsKept = requestLogLimit(options.recordRequests);
  const seed = options.seed ?? DEFAULT_SEED;
  const log =
    typeof options.log === "function"
      ? options.log
      : options.log
        ? (line: string) => console.log(line)
        : undefined;

  const faults = new FaultInjector(seed);
  faults.set(options.faults);

  // Ids and completion ids draw from streams of their own, so fault draws stay independent.
  const idRng = createRng(seed ^ 0x5bd1e995);
  const completionRng = createRng(seed ^ 0x27d4eb2f);
  const counters = { toolCalls: 0 };
  const scripts = new ScriptBook();
  const { store, dataFile } = options.dataFile
    ? await openStore(options.dataFile, idRng)
    : { store: new Store(idRng), dataFile: undefined };
  const upstream = options.upstream
    ? new Upstream(options.upstream, options.upstreamApiKey)
    : undefined;

  // Models point at the proxy address, known once the port is; routes exist before the first
  // request can arrive, so they read the models and addresses through closures.
  let models: Model[] = [];
  let baseUrl = "";
  let proxyUrl = "";
  const currentModels = () => models;
  const router = new Router();
  for (const route of [
    ...catalogRoutes(store, currentModels, STUDIO_PREFIX),
    ...threadRoutes(store, STUDIO_PREFIX),
    ...assistantRoutes(store, currentModels, STUDIO_PREFIX),
    ...completionRoutes(
      {
        models: currentModels,
        rng: completionRng,
        upstream,
        counters,
        scripts,
        strictToolMessages: options.strictToolMessages ?? true,
      },
      INFERENCE_PREFIX,
    ),
  ]) {
    router.add(route);
  }
  router.add({
    method: "GET",
    path: HEALTH_PATH,
    auth: "none",
    handler: () => ({ kind: "json", body: { status: "ok", baseUrl, proxyUrl } }),
  });

  const pipeline = new RequestPipeline({
    router,
    faults,
    apiKey,
    requestLogLimit: requestsKept,
    chunkDelayMs: options.chunkDelayMs ?? 0,
    log,
  });
  const server = createServer({ keepAliveTimeout: 5_000 }, pipeline.handle);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await upstream?.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  baseUrl = `${origin}${STUDIO_PREFIX}`;
  proxyUrl = `${origin}${INFERENCE_PREFIX}`;
  models = seedModels(proxyUrl);

  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    proxyUrl,
    apiKey,
    port,
    get requests() {
      return pipeline.requests;
    },
    clearRequests() {
      pipeline.requests.length = 0;
    },
    setFaults(spec) {
      faults.set(spec);
    },
    script(model, replies) {
      if (upstream) {
        throw new Error(
          "emulator.script(): this emulator forwards completions to `upstream`; scripts answer in place of the scripted model only.",
        );
      }
      return scripts.set(model, replies, models);
    },
    async reset() {
      store.clear();
      pipeline.requests.length = 0;
      models = seedModels(proxyUrl);
      // A reset emulator behaves like a fresh one (same faults), but no id repeats one from before:
      // a client may still hold that id, and must not find another session's thread under it.
      faults.reseed();
      scripts.clear();
      dataFile?.compact();
    },
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        await upstream?.close();
        dataFile?.close();
      })();
      return closing;
    },
  };
}
