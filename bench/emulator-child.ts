/**
 * The emulator in a child process for benchmarks: the load generator and the server then run on
 * different cores (the machine has two), so the numbers measure our code, not the two of them
 * competing for one core. Request recording is off unless the options turn it on, so the
 * numbers leave it out. `stop()` reports the child's heap (after a GC) as it was when asked to stop.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { EmulatorOptions } from "../src/emulator";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface ChildEmulator {
  baseUrl: string;
  proxyUrl: string;
  apiKey: string;
  /** ms `startEmulator` took in the child (loading `dataFile` included). */
  startMs: number;
  /** Heap used in bytes, or undefined when the child had already exited. */
  stop(): Promise<number | undefined>;
}

export async function startChildEmulator(options: EmulatorOptions = {}): Promise<ChildEmulator> {
  const script = [
    'const { startEmulator } = await import("./src/emulator/index.ts");',
    "const started = performance.now();",
    `const e = await startEmulator({ port: 0, recordRequests: false, ...${JSON.stringify(options)} });`,
    "process.stdout.write(JSON.stringify({ baseUrl: e.baseUrl, proxyUrl: e.proxyUrl, apiKey: e.apiKey, startMs: performance.now() - started }) + '\\n');",
    'process.on("SIGTERM", () => { gc(); const heapUsed = process.memoryUsage().heapUsed; e.close().then(() => { process.stdout.write(JSON.stringify({ heapUsed }) + "\\n"); process.exit(0); }); });',
  ].join("");
  const child: ChildProcess = spawn(
    process.execPath,
    ["--expose-gc", "--import", "tsx", "--input-type=module", "-e", script],
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
  const ready = JSON.parse(line) as Omit<ChildEmulator, "stop">;
  let output = "";
  child.stdout?.on("data", (chunk: string) => {
    output += chunk;
  });
  return {
    ...ready,
    stop: async () => {
      if (child.exitCode !== null) return undefined;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      await exited;
      const last = output.trim().split("\n").at(-1);
      return last ? (JSON.parse(last) as { heapUsed: number }).heapUsed : undefined;
    },
  };
}
