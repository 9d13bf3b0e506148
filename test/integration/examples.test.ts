/**
 * Smoke test: every `examples/*.ts` runs to a zero exit, exactly as a user would run it
 * (`npx tsx examples/<name>.ts`), against its own emulator. New examples are picked up by
 * listing the folder, so none can be forgotten.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const repoRoot = join(import.meta.dirname, "..", "..");
const examples = readdirSync(join(repoRoot, "examples"))
  .filter((name) => name.endsWith(".ts"))
  .sort();

const PER_EXAMPLE_TIMEOUT_MS = 60_000;
const PARALLEL = 2;

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/** Examples must use their own emulator, whatever the developer's shell has configured. */
function withoutServiceEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith("STUDIO_")));
}

function runExample(name: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve) => {
    // Its own process group, so a timeout kills npx, tsx and node together.
    const child = spawn("npx", ["tsx", join("examples", name)], {
      cwd: repoRoot,
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
    }, PER_EXAMPLE_TIMEOUT_MS);
    child.on("error", (error) => {
      stderr += `\n${error.message}`;
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, stdout, stderr });
    });
  });
}

async function runAll(names: string[]): Promise<Map<string, RunResult>> {
  const results = new Map<string, RunResult>();
  const queue = [...names];
  const env = withoutServiceEnv(process.env);
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      results.set(name, await runExample(name, env));
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return results;
}

describe("examples", () => {
  let results = new Map<string, RunResult>();

  beforeAll(
    async () => {
      results = await runAll(examples);
    },
    // Worst case: every example runs into its own timeout, two at a time.
    Math.ceil(examples.length / PARALLEL) * (PER_EXAMPLE_TIMEOUT_MS + 5_000) + 10_000,
  );

  it("finds the examples", () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it.each(examples)("%s exits 0", (name) => {
    const result = results.get(name);
    expect(result, `${name} did not run`).toBeDefined();
    const { code, signal, timedOut, stdout, stderr } = result!;
    const report = [
      `examples/${name}: exit code ${code}, signal ${signal}${timedOut ? " (timed out)" : ""}`,
      `--- stdout (tail) ---\n${stdout.slice(-3000)}`,
      `--- stderr (tail) ---\n${stderr.slice(-3000)}`,
    ].join("\n");
    expect(code === 0 && !timedOut, report).toBe(true);
  });
});
