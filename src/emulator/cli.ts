#!/usr/bin/env node
/**
 * `studio-emulator`: runs the emulator until SIGINT/SIGTERM, printing the addresses, the key and
 * the environment lines that point the package (and its examples) at it.
 */
import { parseArgs } from "node:util";
import { DEFAULT_EMULATOR_API_KEY, type EmulatorHandle, startEmulator } from "./index";

const USAGE = `Usage: studio-emulator [options]

  --port <n>            port to listen on (default 8787; 0 = any free port)
  --host <h>            address to bind (default 127.0.0.1)
  --api-key <k>         key the emulator accepts (default ${DEFAULT_EMULATOR_API_KEY})
  --data-file <f>       keep threads, messages and assistants in this file (JSON lines)
                        across restarts
  --faults <spec>       inject faults, e.g. "rate429=0.1,resetAfter=0.05,latencyMs=20"
  --seed <n>            seed of fault draws and ids (default 1)
  --log                 one line per request (never the key)
  --upstream <url>      forward completions to this OpenAI-compatible server
  --upstream-api-key <k> key sent to the upstream
  --lenient-tool-messages  accept tool calls and tool results that do not pair up
                           (real servers answer 400)
  -h, --help            show this help

While it runs, tests script, reset and fault it over HTTP with the same key:
  POST /_emulator/script {model, replies}   POST /_emulator/reset   POST /_emulator/faults {faults}
and keep apart by sending x-emulator-scope: <test id> (see the emulator docs).`;

function fail(message: string, code: number): never {
  process.stderr.write(`studio-emulator: ${message}\n`);
  process.exit(code);
}

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    fail(`--${name} must be a non-negative integer (got "${value}")\n\n${USAGE}`, 2);
  return n;
}

async function main(): Promise<void> {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse().values;
  } catch (error) {
    fail(`${(error as Error).message}\n\n${USAGE}`, 2);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }

  let handle: EmulatorHandle;
  try {
    handle = await startEmulator({
      port: integer("port", values.port, 8787),
      host: values.host ?? "127.0.0.1",
      apiKey: values["api-key"] ?? DEFAULT_EMULATOR_API_KEY,
      ...(values["data-file"] ? { dataFile: values["data-file"] } : {}),
      ...(values.faults ? { faults: values.faults } : {}),
      seed: integer("seed", values.seed, 1),
      log: values.log ?? false,
      ...(values.upstream ? { upstream: values.upstream } : {}),
      ...(values["upstream-api-key"] ? { upstreamApiKey: values["upstream-api-key"] } : {}),
      strictToolMessages: !values["lenient-tool-messages"],
      // Nobody can read the request log of a CLI process; keeping one would only cost memory.
      recordRequests: false,
    });
  } catch (error) {
    fail((error as Error).message, 1);
  }

  // Listened to before the banner: a signal sent on reading it would otherwise meet the default
  // action, which ends the process without closing the emulator (its data file stays locked).
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    handle.close().then(
      () => {
        process.stdout.write(`Studio emulator stopped (${signal}).\n`);
        process.exit(0);
      },
      (error: unknown) => fail(`shutdown failed: ${(error as Error).message}`, 1),
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));

  process.stdout.write(
    [
      "Studio emulator " +
        `listening${values["data-file"] ? ` (data file ${values["data-file"]})` : ""}`,
      `  studio address (baseUrl):     ${handle.baseUrl}`,
      `  inference address (proxyUrl): ${handle.proxyUrl}`,
      `  API key:                      ${handle.apiKey}`,
      `  process id:                   ${process.pid}`,
      "  test control (same key):      " +
        `${new URL(handle.baseUrl).origin}/_emulator/{script,reset,faults}`,
      "",
      `export STUDIO_BASE_URL=${handle.baseUrl}`,
      `export STUDIO_PROXY_URL=${handle.proxyUrl}`,
      `export STUDIO_API_KEY=${handle.apiKey}`,
      "",
      "Press Ctrl+C to stop.",
      "",
    ].join("\n"),
  );
}

function parse() {
  return parseArgs({
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "api-key": { type: "string" },
      "data-file": { type: "string" },
      faults: { type: "string" },
      seed: { type: "string" },
      log: { type: "boolean" },
      upstream: { type: "string" },
      "upstream-api-key": { type: "string" },
      "lenient-tool-messages": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
}

void main();
