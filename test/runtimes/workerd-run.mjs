/**
 * Runs the bundled worker in workerd WITHOUT `nodejs_compat`, through miniflare, and prints one
 * `RUNTIME-RESULT <json>` line: `node workerd-run.mjs <bundle.js> <options JSON>`.
 *
 * Miniflare's default outbound network allows private addresses (loopback included), so the
 * worker's own `fetch` reaches the emulator on 127.0.0.1 without any outbound service. `cf: false`
 * keeps miniflare from downloading its `Request.cf` sample: the run stays on loopback.
 */
import { readFile } from "node:fs/promises";
import { Log, LogLevel, Miniflare } from "miniflare";

const [bundlePath, optionsJson] = process.argv.slice(2);

function report(error) {
  return {
    runtime: "workerd",
    loadError: {
      name: error instanceof Error ? error.name : typeof error,
      message: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? (error.stack ?? "").split("\n").slice(0, 8).join("\n") : "",
    },
  };
}

const mf = new Miniflare({
  // The bundle as one module, listed the way wrangler hands its bundle over; left to scan it,
  // miniflare would refuse any `import(variable)` even on a path the worker never takes.
  modules: [{ type: "ESModule", path: "worker.js", contents: await readFile(bundlePath, "utf8") }],
  cf: false,
  compatibilityDate: "2026-04-01",
  compatibilityFlags: [],
  log: new Log(LogLevel.WARN),
});
let result;
try {
  const response = await mf.dispatchFetch("http://worker.test/", {
    method: "POST",
    body: optionsJson,
  });
  const text = await response.text();
  result = response.ok
    ? JSON.parse(text)
    : report(new Error(`worker answered ${response.status}: ${text}`));
} catch (error) {
  result = report(error);
} finally {
  await mf.dispose().catch(() => undefined);
}
console.log(`RUNTIME-RESULT ${JSON.stringify(result)}`);
