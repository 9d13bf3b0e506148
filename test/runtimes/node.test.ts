/** Node 20 (this process's own binary) runs the scenario on the built package. */
import { join } from "node:path";
import { RUNTIMES_DIR, runRuntime, scenarioSuite } from "./harness";

scenarioSuite(
  "node",
  (options) =>
    runRuntime(process.execPath, [
      join(RUNTIMES_DIR, "cli-entry.mjs"),
      "node",
      JSON.stringify(options),
    ]),
  { checkExit: true },
);
