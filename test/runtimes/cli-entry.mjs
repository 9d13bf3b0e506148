/**
 * Entry of the runtime matrix for runtimes with a command line (Node, Bun, Deno):
 * `<runtime> cli-entry.mjs <name> <options JSON>`. Prints one `RUNTIME-RESULT <json>` line. The
 * package is imported dynamically so that a failure to load it is reported like a step's error.
 * The process is left to exit on its own: a client the classes build for themselves must not hold
 * it open.
 */
const args = globalThis.Deno ? globalThis.Deno.args : globalThis.process.argv.slice(2);
const [runtime, optionsJson] = args;

let result;
try {
  const { runScenario } = await import("./scenario.mjs");
  result = await runScenario(runtime, JSON.parse(optionsJson));
} catch (error) {
  const stack =
    error instanceof Error ? (error.stack ?? "").split("\n").slice(0, 8).join("\n") : "";
  result = {
    runtime,
    loadError: {
      name: error instanceof Error ? error.name : typeof error,
      message: error instanceof Error ? error.message : String(error),
      stack,
    },
  };
}
console.log(`RUNTIME-RESULT ${JSON.stringify(result)}`);
