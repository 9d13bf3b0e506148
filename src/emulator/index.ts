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
import { loadSnapshot, Persister } from "./persistence";
import { createRng } from "./rng";
import { Router } from "./router";
import { RequestPipeline } from "./server";
import { Store } from "./store";
import { threadRoutes } from "./threads";
import type { EmulatorHandle, EmulatorOptions } from "./types";
import { Upstream } from "./upstream";

export { EmulatorDataFileError } from "./persistence";
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
  const store = new Store(createRng(seed ^ 0x5bd1e995), () => persister?.markDirty());
  let persister: Persister | undefined;
  if (options.dataFile) {
    const snapshot = await loadSnapshot(options.dataFile);
    if (snapshot) store.restore(snapshot);
    persister = new Persister(
      options.dataFile,
      () => store.snapshot(),
      (error) => log?.(`emulator: saving ${options.dataFile} failed: ${(error as Error).message}`),
    );
  }
  const upstream = options.upstream
    ? new Upstream(options.upstream, options.upstreamApiKey)
    : undefined;

  let models: Model[] = [];
  const router = new Router();
  const pipeline = new RequestPipeline({
    router,
    faults,
    apiKey,
    record: options.recordRequests ?? true,
    chunkDelayMs: options.chunkDelayMs ?? 0,
    log,
  });
  const server = createServer({ keepAliveTimeout: 5_000 }, pipeline.handle);
  // A burst of keep-alive connections (benchmarks, 100 concurrent writers) must not be refused.
  server.maxHeadersCount = 200;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const baseUrl = `${origin}${STUDIO_PREFIX}`;
  const proxyUrl = `${origin}${INFERENCE_PREFIX}`;
  models = seedModels(proxyUrl);
  const currentModels = () => models;

  for (const route of [
    ...catalogRoutes(store, currentModels, STUDIO_PREFIX),
    ...threadRoutes(store, STUDIO_PREFIX),
    ...assistantRoutes(store, currentModels, STUDIO_PREFIX),
    ...completionRoutes(
      { models: currentModels, rng: createRng(seed ^ 0x27d4eb2f), upstream },
      INFERENCE_PREFIX,
    ),
  ]) {
    router.add(route);
  }
  router.add({
    method: "GET",
    path: "/health",
    auth: "none",
    handler: () => ({ kind: "json", body: { status: "ok", baseUrl, proxyUrl } }),
  });

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
    async reset() {
      store.clear();
      pipeline.requests.length = 0;
      models = seedModels(proxyUrl);
      faults.reseed();
      await persister?.flush();
    },
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        await upstream?.close();
        await persister?.flush();
      })();
      return closing;
    },
  };
}
