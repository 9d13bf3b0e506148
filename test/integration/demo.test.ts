/**
 * The newcomer's first command: `npm run demo` (= `tsx demo/index.ts`) on a machine with no
 * configuration. Run twice on one fresh state folder, the second run continues the first run's
 * conversation; pointed at a service that is not there, it fails clearly.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repoRoot = join(import.meta.dirname, "..", "..");
const RUN_TIMEOUT_MS = 90_000;

const SECTIONS = [
  "Public models",
  "Invoke the chat model",
  "Stream tokens",
  "Tool calling",
  "Structured output",
  "Conversation memory in a thread",
  "Dataset export",
  "Assistant as an agent",
];

interface RunResult {
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("STUDIO_")),
  );
  return { ...env, NO_COLOR: "1", ...extra };
}

function runDemo(env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve) => {
    // Its own process group, so a timeout kills npx, tsx and node together.
    const child = spawn("npx", ["tsx", "demo/index.ts"], {
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
    }, RUN_TIMEOUT_MS);
    child.on("error", (error) => {
      stderr += `\n${error.message}`;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, stdout, stderr });
    });
  });
}

function report(run: RunResult): string {
  return `exit ${run.code}${run.timedOut ? " (timed out)" : ""}\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("npm run demo", () => {
  let dir = "";
  let first: RunResult;
  let second: RunResult;

  beforeAll(
    async () => {
      dir = await mkdtemp(join(tmpdir(), "studio-demo-"));
      const env = cleanEnv({ STUDIO_DEMO_DIR: dir });
      first = await runDemo(env);
      second = await runDemo(env);
    },
    2 * RUN_TIMEOUT_MS + 10_000,
  );

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("runs on the emulator and exits 0, twice", () => {
    expect(first.code, report(first)).toBe(0);
    expect(second.code, report(second)).toBe(0);
    expect(first.stdout).toContain("local emulator");
    expect(first.stderr, report(first)).not.toContain("Demo failed");
  });

  it("shows every section in order, on both runs", () => {
    for (const run of [first, second]) {
      let from = 0;
      for (const [i, title] of SECTIONS.entries()) {
        const header = `[${i + 1}/${SECTIONS.length}] ${title}`;
        const at = run.stdout.indexOf(header, from);
        expect(at, `missing "${header}"\n${report(run)}`).toBeGreaterThanOrEqual(from);
        from = at;
      }
    }
  });

  it("continues the first run's conversation in the second run", () => {
    expect(first.stdout).toContain("no earlier conversation");
    expect(second.stdout).not.toContain("no earlier conversation");
    const firstTurn = /You: (This is visit number 1\b[^\n]*)/.exec(first.stdout);
    expect(firstTurn, report(first)).not.toBeNull();
    const earlier = second.stdout.split("Earlier turns")[1] ?? "";
    expect(earlier, report(second)).toContain(firstTurn![1]!);
    expect(second.stdout).toContain("This is visit number 2");
  });

  it(
    "fails clearly, with a non-zero exit, when the service cannot be reached",
    async () => {
      const port = await closedPort();
      const apiKey = "sk-demo-test-key-never-printed";
      const run = await runDemo(
        cleanEnv({
          STUDIO_DEMO_DIR: dir,
          STUDIO_API_KEY: apiKey,
          STUDIO_BASE_URL: `http://127.0.0.1:${port}/studio`,
          STUDIO_PROXY_URL: `http://127.0.0.1:${port}/inference`,
        }),
      );
      expect(run.timedOut, report(run)).toBe(false);
      expect(run.code, report(run)).not.toBe(0);
      expect(run.stdout).toContain("Running against the real service");
      expect(run.stderr, report(run)).toContain('Demo failed at step "Public models"');
      expect(run.stderr).toMatch(/Error: .*(connect|Connection)/i);
      expect(run.stderr).toContain("Hint: Check STUDIO_BASE_URL and STUDIO_PROXY_URL");
      expect(run.stdout + run.stderr).not.toContain(apiKey);
    },
    RUN_TIMEOUT_MS + 5_000,
  );
});
