/**
 * Runs a command the way a user would type it (`npx tsx demo/index.ts`) and collects its output,
 * for the tests that check what a newcomer sees. A run is always bounded: past `timeoutMs` the
 * whole process tree is killed and the result says so.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

export const REPO_ROOT = join(import.meta.dirname, "..", "..");

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

export interface RunCommandOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Default: the repository root. */
  cwd?: string;
}

export function runCommand(
  command: string,
  args: string[],
  { env, timeoutMs, cwd = REPO_ROOT }: RunCommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    // Its own process group, so a timeout kills npx, tsx and node together.
    const child = spawn(command, args, {
      cwd,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone between the timer firing and the kill.
      }
    }, timeoutMs);
    child.on("error", (error) => {
      stderr += `\n${error.message}`;
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, stdout, stderr });
    });
  });
}

/**
 * This process's environment without any `STUDIO_*` variable, plus `extra`: what runs in it uses
 * its own emulator, whatever the developer's shell points at.
 */
export function envWithoutService(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("STUDIO_")),
  );
  return { ...env, ...extra };
}

/** Exit status and output of a run, for an assertion's message; `tail` keeps the last characters. */
export function describeRun(result: CommandResult, tail = Number.POSITIVE_INFINITY): string {
  const { code, signal, timedOut, stdout, stderr } = result;
  const last = (text: string) => (text.length > tail ? text.slice(-tail) : text);
  return [
    `exit code ${code}, signal ${signal}${timedOut ? " (timed out)" : ""}`,
    `--- stdout ---\n${last(stdout)}`,
    `--- stderr ---\n${last(stderr)}`,
  ].join("\n");
}
