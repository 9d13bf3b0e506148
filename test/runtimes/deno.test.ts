/**
 * Deno (the `deno` devDependency) runs the scenario on the built package, resolving packages from
 * the repository's node_modules (`--node-modules-dir=manual`), without a lock file or any download.
 */
import { join } from "node:path";
import { binary, RUNTIMES_DIR, runRuntime, runtimeEnv, scenarioSuite } from "./harness";
import { SERVER_WS_SCRIPT, webSocketSuite } from "./ws-suite";

scenarioSuite(
  "deno",
  (options) =>
    runRuntime(
      binary("deno"),
      [
        "run",
        "-A",
        "--no-lock",
        "--node-modules-dir=manual",
        join(RUNTIMES_DIR, "cli-entry.mjs"),
        "deno",
        JSON.stringify(options),
      ],
      { env: runtimeEnv({ DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" }) },
    ),
  { checkExit: true },
);

webSocketSuite("deno", (options) =>
  runRuntime(
    binary("deno"),
    [
      "run",
      "-A",
      "--no-lock",
      "--node-modules-dir=manual",
      SERVER_WS_SCRIPT,
      "deno",
      JSON.stringify(options),
    ],
    { env: runtimeEnv({ DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" }) },
  ),
);
