/**
 * `npm run demo`: a narrated walk through langchain-studio. With no configuration it starts the
 * emulator in this process (no account, no network); with STUDIO_API_KEY, STUDIO_BASE_URL and
 * STUDIO_PROXY_URL set it runs the same steps against the real service.
 */
import { randomUUID } from "node:crypto";
import { type Backend, openBackend } from "./backend";
import { readDemoConfig } from "./config";
import { explainFailure } from "./failure";
import type { DemoContext } from "./step";
import { steps } from "./steps";
import { ui } from "./ui";

async function main(): Promise<number> {
  const config = readDemoConfig();
  ui.title("langchain-studio demo");
  const { target } = config;
  if (target.kind === "service") {
    ui.explain(
      `Running against the real service (STUDIO_* variables are set):\n` +
        `studio ${target.baseUrl}, inference ${target.proxyUrl}`,
    );
  } else {
    ui.explain(
      "Running against the local emulator, started in this process: no account, no network.\n" +
        'Its model is scripted, so every run is predictable: it answers "You said: <your message>"\n' +
        "(prefixed by the start of the system prompt) and calls the tools your message names.\n" +
        "Set STUDIO_API_KEY, STUDIO_BASE_URL and STUDIO_PROXY_URL to use the real service instead.",
    );
    if (target.partialServiceVars.length > 0) {
      const set = target.partialServiceVars;
      ui.warn(
        `Only ${set.join(", ")} of the three STUDIO_* variables ${set.length === 1 ? "is" : "are"} ` +
          "set; all three are needed for the real service.",
      );
    }
  }

  let backend: Backend | undefined;
  let current = "Start-up";
  // Ctrl-C still closes the emulator, so its data file gets the last writes.
  process.once("SIGINT", () => {
    ui.failure([`Interrupted during "${current}".`]);
    const closing = backend ? backend.close() : Promise.resolve();
    void closing.finally(() => process.exit(130));
  });
  try {
    current = target.kind === "service" ? "Connect to the service" : "Start the emulator";
    backend = await openBackend(target, config.stateDir);
    if (target.kind === "emulator") {
      ui.explain(`Emulator at ${backend.connection.baseUrl}, data file ${target.dataFile}`);
    }

    const ctx: DemoContext = {
      config,
      backend,
      model: config.model ?? "",
      runId: randomUUID().slice(0, 8),
    };
    for (const [i, step] of steps.entries()) {
      current = step.title;
      ui.section(i + 1, steps.length, step.title);
      ui.explain(step.intro);
      await step.run(ctx);
    }
    ui.success("Demo finished: every step passed.");
    return 0;
  } catch (error) {
    ui.failure(explainFailure(current, error, target));
    return 1;
  } finally {
    if (backend) {
      try {
        await backend.close();
      } catch (error) {
        ui.failure(explainFailure("Shut down", error, target));
        process.exitCode = 1;
      }
    }
  }
}

const code = await main();
process.exitCode = process.exitCode || code;
// Everything is closed by now; should a stray handle still hold the event loop, leave anyway
// rather than hang a newcomer's terminal.
setTimeout(() => process.exit(), 5_000).unref();
