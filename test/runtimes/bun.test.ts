/** Bun (the `bun` devDependency) runs the scenario on the built package. */
import { join } from "node:path";
import { binary, RUNTIMES_DIR, runRuntime, scenarioSuite } from "./harness";

scenarioSuite(
  "bun",
  (options) =>
    runRuntime(binary("bun"), [
      join(RUNTIMES_DIR, "cli-entry.mjs"),
      "bun",
      JSON.stringify(options),
    ]),
  { checkExit: true },
);
