/**
 * The newcomer's first command: `npm run demo` (= `tsx demo/index.ts`) on a machine with no
 * configuration. Run twice on one fresh state folder, the second run continues the first run's
 * conversation; pointed at a service that is not there, it fails clearly.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CommandResult,
  describeRun,
  envWithoutService,
  runCommand,
} from "../helpers/run-command";

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

function demoEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return envWithoutService({ NO_COLOR: "1", ...extra });
}

function runDemo(env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return runCommand("npx", ["tsx", "demo/index.ts"], { env, timeoutMs: RUN_TIMEOUT_MS });
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
  let first: CommandResult;
  let second: CommandResult;

  beforeAll(
    async () => {
      dir = await mkdtemp(join(tmpdir(), "studio-demo-"));
      const env = demoEnv({ STUDIO_DEMO_DIR: dir });
      first = await runDemo(env);
      second = await runDemo(env);
    },
    2 * RUN_TIMEOUT_MS + 10_000,
  );

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("runs on the emulator and exits 0, twice", () => {
    expect(first.code, describeRun(first)).toBe(0);
    expect(second.code, describeRun(second)).toBe(0);
    expect(first.stdout).toContain("local emulator");
    expect(first.stderr, describeRun(first)).not.toContain("Demo failed");
  });

  it("shows every section in order, on both runs", () => {
    for (const run of [first, second]) {
      let from = 0;
      for (const [i, title] of SECTIONS.entries()) {
        const header = `[${i + 1}/${SECTIONS.length}] ${title}`;
        const at = run.stdout.indexOf(header, from);
        expect(at, `missing "${header}"\n${describeRun(run)}`).toBeGreaterThanOrEqual(from);
        from = at;
      }
    }
  });

  it("continues the first run's conversation in the second run", () => {
    expect(first.stdout).toContain("no earlier conversation");
    expect(second.stdout).not.toContain("no earlier conversation");
    const firstTurn = /You: (This is visit number 1\b[^\n]*)/.exec(first.stdout);
    expect(firstTurn, describeRun(first)).not.toBeNull();
    const earlier = second.stdout.split("Earlier turns")[1] ?? "";
    expect(earlier, describeRun(second)).toContain(firstTurn![1]!);
    expect(second.stdout).toContain("This is visit number 2");
  });

  it(
    "fails clearly, with a non-zero exit, when the service cannot be reached",
    async () => {
      const port = await closedPort();
      const apiKey = "sk-demo-test-key-never-printed";
      const run = await runDemo(
        demoEnv({
          STUDIO_DEMO_DIR: dir,
          STUDIO_API_KEY: apiKey,
          STUDIO_BASE_URL: `http://127.0.0.1:${port}/studio`,
          STUDIO_PROXY_URL: `http://127.0.0.1:${port}/inference`,
        }),
      );
      expect(run.timedOut, describeRun(run)).toBe(false);
      expect(run.code, describeRun(run)).not.toBe(0);
      expect(run.stdout).toContain("Running against the real service");
      expect(run.stderr, describeRun(run)).toContain('Demo failed at step "Public models"');
      expect(run.stderr).toMatch(/Error: .*(connect|Connection)/i);
      expect(run.stderr).toContain("Hint: Check STUDIO_BASE_URL and STUDIO_PROXY_URL");
      expect(run.stdout + run.stderr).not.toContain(apiKey);
    },
    RUN_TIMEOUT_MS + 5_000,
  );
});
