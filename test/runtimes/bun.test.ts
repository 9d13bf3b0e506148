/** Bun (the `bun` devDependency) runs the scenario on the built package. */
import { join } from "node:path";
import { binary, RUNTIMES_DIR, runRuntime, scenarioSuite } from "./harness";
import { SERVER_WS_SCRIPT, webSocketSuite } from "./ws-suite";

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

webSocketSuite("bun", (options) =>
  runRuntime(binary("bun"), [SERVER_WS_SCRIPT, "bun", JSON.stringify(options)]),
);
