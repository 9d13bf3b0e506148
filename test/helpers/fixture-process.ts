/**
 * Runs a fixture script in a Node process of its own (test/helpers/node-entry.ts) and reports
 * how it ended: its exit code, what it printed, and how long it went on running after it first
 * printed. The leaked-handle tests assert that a process whose work is done exits on its own,
 * soon after.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { nodeEntry } from "./node-entry";
import { REPO_ROOT } from "./run-command";

export interface FixtureRun {
  /** The exit code, "signal", or why the process was killed. */
  code: number | string;
  stdout: string;
  stderr: string;
  /** Milliseconds from its first output to its exit. */
  lingeredMs: number;
}

/** Runs `fixture` with `args`; kills it after 30 s (startup is slow on a busy machine). */
export async function runFixture(fixture: URL, args: string[]): Promise<FixtureRun> {
  const child = spawn(process.execPath, await nodeEntry(fileURLToPath(fixture), args), {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let printedAt = 0;
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
    printedAt ||= Date.now();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => {
    const done = (code: number | string) => {
      resolve({ code, stdout, stderr, lingeredMs: Date.now() - printedAt });
    };
    const kill = setTimeout(() => {
      child.kill("SIGKILL");
      done("killed: still running after 30 s");
    }, 30_000);
    child.on("exit", (exitCode) => {
      clearTimeout(kill);
      done(exitCode ?? "signal");
    });
  });
}
