/**
 * One emulator without a transport: its state (store, data file, scripts, faults, request log),
 * its routes and the pipeline that serves them, and the controls of its handle. `startEmulator`
 * puts an HTTP server in front of it; `createInProcessEmulator` only the in-process fetch. Both
 * serve the same routes through the same pipeline.
 */
import type { Model } from "../api-types";
import { assistantRoutes } from "./assistants";
import { catalogRoutes } from "./catalog";
import { completionRoutes } from "./completions";
import { controlRoutes } from "./control";
import { FaultBook } from "./faults";
import { createInProcessFetch } from "./in-process-fetch";
import { seedModels } from "./models";
import { openStore } from "./persistence";
import { HEALTH_PATH, RequestPipeline } from "./pipeline";
import { RequestLog, requestLogBytes, requestLogLimit } from "./request-log";
import { createRng } from "./rng";
import { Router } from "./router";
import { checkScope } from "./scope";
import { ScriptBook } from "./script";
import { Store } from "./store";
import { threadRoutes } from "./threads";
import type { EmulatorFetch, EmulatorHandle, EmulatorOptions } from "./types";
import { Upstream } from "./upstream";

/** The fixed development key the emulator accepts unless `apiKey` is given. */
export const DEFAULT_EMULATOR_API_KEY = "studio-emulator-dev-key";
export const STUDIO_PREFIX = "/studio";
export const INFERENCE_PREFIX = "/inference";
const DEFAULT_SEED = 1;

/** The `scope` of a handle call's options, checked as the header is. */
function checkedScope(options: { scope?: string | undefined } | undefined): string | undefined {
  if (options?.scope === undefined) return undefined;
  try {
    return checkScope(options.scope, "scope");
  } catch (error) {
    throw new Error(`emulator: ${(error as Error).message}`);
  }
}

/** The handle's members that do not depend on the transport. */
type Controls = Pick<
  EmulatorHandle,
  "apiKey" | "requests" | "clearRequests" | "setFaults" | "script" | "reset" | "fetch"
>;

export interface AssembledEmulator {
  pipeline: RequestPipeline;
  chunkDelayMs: number;
  /** Called once the origin is known (the port is); models point at its proxy address. */
  setOrigin(origin: string): { baseUrl: string; proxyUrl: string };
  controls: Controls;
  /** Makes the in-process fetch refuse, closes the upstream's connections and the data file. */
  dispose(): Promise<void>;
}

export async function assembleEmulator(options: EmulatorOptions): Promise<AssembledEmulator> {
  const apiKey = options.apiKey ?? DEFAULT_EMULATOR_API_KEY;
  if (apiKey === "") throw new Error("startEmulator: apiKey must not be empty.");
  const requestLog = new RequestLog(
    requestLogLimit(options.recordRequests),
    apiKey,
    requestLogBytes(options.recordRequestBytes),
  );
  const seed = options.seed ?? DEFAULT_SEED;
  const log =
    typeof options.log === "function"
      ? options.log
      : options.log
        ? (line: string) => console.log(line)
        : undefined;

  const faults = new FaultBook(seed);
  faults.set(options.faults);

  // Ids and completion ids draw from streams of their own, so fault draws stay independent.
  const idRng = createRng(seed ^ 0x5bd1e995);
  const completionRng = createRng(seed ^ 0x27d4eb2f);
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
        scripts,
        strictToolMessages: options.strictToolMessages ?? true,
      },
      INFERENCE_PREFIX,
    ),
  ]) {
    router.add(route);
  }
  const setScript = (model: string, replies: unknown, scope: string | undefined) => {
    if (upstream) {
      throw new Error(
        "emulator.script(): this emulator forwards completions to `upstream`; scripts answer in " +
          "place of the scripted model only.",
      );
    }
    return scripts.set(model, replies, models, scope);
  };
  const reset = async (scope: string | undefined) => {
    if (scope !== undefined) {
      // One test's own things only: the emulator's state is shared with the tests running
      // beside it.
      scripts.clear(scope);
      faults.set(undefined, scope);
      return;
    }
    store.clear();
    requestLog.clear();
    models = seedModels(proxyUrl);
    // A reset emulator behaves like a fresh one (same faults), but no id repeats one from
    // before: a client may still hold that id, and must not find another session's thread
    // under it.
    faults.reset();
    scripts.clear();
    dataFile?.compact();
  };
  for (const route of controlRoutes({ script: setScript, scripts, faults, reset })) {
    router.add(route);
  }
  router.add({
    method: "GET",
    path: HEALTH_PATH,
    auth: "none",
    handler: () => ({ kind: "json", body: { status: "ok", baseUrl, proxyUrl } }),
  });

  const pipeline = new RequestPipeline({ router, faults, apiKey, requestLog, log });
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  let disposed = false;
  const fetch: EmulatorFetch = createInProcessFetch({
    pipeline,
    chunkDelayMs,
    isClosed: () => disposed,
  });

  return {
    pipeline,
    chunkDelayMs,
    setOrigin(origin) {
      baseUrl = `${origin}${STUDIO_PREFIX}`;
      proxyUrl = `${origin}${INFERENCE_PREFIX}`;
      models = seedModels(proxyUrl);
      return { baseUrl, proxyUrl };
    },
    controls: {
      apiKey,
      fetch,
      get requests() {
        return requestLog.entries;
      },
      clearRequests() {
        requestLog.clear();
      },
      setFaults(spec, options) {
        faults.set(spec, checkedScope(options));
      },
      script(model, replies, options) {
        return setScript(model, replies, checkedScope(options));
      },
      reset(options) {
        return reset(checkedScope(options));
      },
    },
    async dispose() {
      disposed = true;
      await upstream?.close();
      dataFile?.shutdown();
    },
  };
}
