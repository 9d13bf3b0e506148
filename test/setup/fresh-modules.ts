/**
 * Setup file of the projects whose test files share a worker process (`isolate: false`), run
 * before each of their files.
 *
 * The worker loads what lives in node_modules (LangChain, LangGraph, zod, undici, nock) once for
 * all its files: about a second of CPU saved per file. The package's own modules (src/) and the
 * test helpers are evaluated again for each file (`vi.resetModules()`), so every file starts from
 * a fresh copy of the package's per-process state: the store's stamp clock, the session caches
 * keyed by the service address, the warn-once flags. Sharing them let a store test read another
 * file's state: the stamp clock an earlier file of the worker had moved to 2030 with fake time.
 *
 * What a file can leave in the process itself is undone after it: fake timers, stubbed variables
 * and globals, and nock (which patches `fetch` and `http` for the process once loaded: its
 * interceptors are cleared and the network allowed again, so a file's `disableNetConnect` never
 * reaches the next file's loopback server). vitest itself restores spies after each file.
 */
import { createRequire } from "node:module";
import { afterAll, vi } from "vitest";

vi.resetModules();

const require = createRequire(import.meta.url);

afterAll(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  resetNock();
});

/** nock back to "no interceptor, network allowed", if a file of this worker has loaded it. */
function resetNock(): void {
  const loaded = require.cache[require.resolve("nock")];
  if (loaded === undefined) return;
  const nock = loaded.exports as typeof import("nock");
  nock.abortPendingRequests();
  nock.cleanAll();
  nock.enableNetConnect();
}
