/**
 * The emulator in a child process for benchmarks: the load generator and the server then run on
 * different cores (the machine has two), so the numbers measure our code, not the two of them
 * competing for one core. Request recording is off: it would grow for the whole run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface ChildEmulator {
  baseUrl: string;
  proxyUrl: string;
  apiKey: string;
  stop(): Promise<void>;
}

export async function startChildEmulator(
  options: { chunkDelayMs?: number } = {},
): Promise<ChildEmulator> {
  const script = [
    'const { startEmulator } = await import("./src/emulator/index.ts");',
    `const e = await startEmulator({ port: 0, recordRequests: false, ${options.chunkDelayMs ? `chunkDelayMs: ${options.chunkDelayMs}` : ""} });`,
    "process.stdout.write(JSON.stringify({ baseUrl: e.baseUrl, proxyUrl: e.proxyUrl, apiKey: e.apiKey }) + '\\n');",
    'process.on("SIGTERM", () => e.close().then(() => process.exit(0)));',
  ].join("");
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(
      () => reject(new Error("the emulator did not start within 30 s")),
      30_000,
    );
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      text += chunk;
      const end = text.indexOf("\n");
      if (end >= 0) {
        clearTimeout(timer);
        resolve(text.slice(0, end));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the emulator exited with code ${code}`));
    });
  });
  const addresses = JSON.parse(line) as { baseUrl: string; proxyUrl: string; apiKey: string };
  return {
    ...addresses,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
