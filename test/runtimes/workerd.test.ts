/**
 * Cloudflare workerd WITHOUT `nodejs_compat` (through miniflare) runs the scenario, bundled the
 * way wrangler bundles a worker: esbuild, `workerd`/`worker`/`browser` conditions, everything in.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { bundleForWeb, describeBundle } from "./bundle";
import { RUNTIMES_DIR, runRuntime, scenarioSuite } from "./harness";
import { webSocketSuite } from "./ws-suite";

let workDir: string | undefined;
let wsDir: string | undefined;
afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
  if (wsDir) await rm(wsDir, { recursive: true, force: true });
});

scenarioSuite("workerd", async (options) => {
  workDir = await mkdtemp(join(tmpdir(), "studio-workerd-"));
  const bundle = await bundleForWeb("worker-entry.mjs", join(workDir, "worker.js"), {
    conditions: ["workerd", "worker", "browser"],
  });
  if (bundle.errors.length > 0 || bundle.nodeBuiltins.length > 0) {
    return {
      result: {
        runtime: "workerd",
        loadError: { name: "BundleError", message: describeBundle(bundle) },
      },
      details: describeBundle(bundle),
      exitedOnItsOwn: true,
    };
  }
  return runRuntime(process.execPath, [
    join(RUNTIMES_DIR, "workerd-run.mjs"),
    bundle.outfile,
    JSON.stringify(options),
  ]);
});

webSocketSuite("workerd", async (options) => {
  wsDir = await mkdtemp(join(tmpdir(), "studio-workerd-ws-"));
  const bundle = await bundleForWeb("ws-worker-entry.mjs", join(wsDir, "worker.js"), {
    conditions: ["workerd", "worker", "browser"],
  });
  if (bundle.errors.length > 0 || bundle.nodeBuiltins.length > 0) {
    const message = describeBundle(bundle);
    return {
      result: {
        runtime: "workerd",
        steps: { webSocket: { ok: false, error: { name: "BundleError", message } } },
      },
      details: message,
      exitedOnItsOwn: true,
    };
  }
  return runRuntime(process.execPath, [
    join(RUNTIMES_DIR, "workerd-ws-run.mjs"),
    bundle.outfile,
    JSON.stringify(options),
  ]);
});
