/**
 * The newcomer's first command: `npm run demo` (= `tsx demo/index.ts`) on a machine with no
 * configuration. Run twice on one fresh state folder: both runs pass, each shows memory across two
 * visits (a history by session id, an agent by thread_id), and neither leaves a thread or an
 * assistant behind in the emulator's data file. Pointed at a service that is not there, it fails
 * clearly. The first run is the command itself (`npx tsx`); the others run the same code from
 * its esbuild bundle in plain Node (test/helpers/node-entry.ts), sparing each tsx's 2 s of CPU.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDataFile } from "../../src/emulator/persistence";
import { nodeEntry } from "../helpers/node-entry";
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
  "Agent memory with a LangGraph checkpointer",
  "Dataset export",
  "Record agent runs for fine-tuning",
  "Assistant as an agent",
  "A chat UI backend (the Agent Server API)",
];

function demoEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return envWithoutService({ NO_COLOR: "1", ...extra });
}

function runDemo(env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return runCommand("npx", ["tsx", "demo/index.ts"], { env, timeoutMs: RUN_TIMEOUT_MS });
}

/** What `runDemo` runs, from its bundle in plain Node. */
async function runDemoBundled(env: NodeJS.ProcessEnv): Promise<CommandResult> {
  const args = await nodeEntry("demo/index.ts");
  return runCommand(process.execPath, args, { env, timeoutMs: RUN_TIMEOUT_MS });
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
      second = await runDemoBundled(env);
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

  it("shows a history that remembers the first visit in the second", () => {
    for (const run of [first, second]) {
      const step = run.stdout.split("Conversation memory in a thread")[1] ?? "";
      expect(step, describeRun(run)).toContain("no earlier conversation");
      const visit2 = step.split("Visit 2")[1] ?? "";
      expect(visit2, describeRun(run)).toMatch(/earlier turns found for session demo-user-\w+: 2/);
      expect(visit2).toContain("You: Hi, I am Ada. This is visit number 1.");
      expect(visit2).toContain("now holds 4 messages");
    }
  });

  it("shows an agent whose second run continues the first run's thread_id", () => {
    for (const run of [first, second]) {
      const step = run.stdout.split("Agent memory with a LangGraph checkpointer")[1] ?? "";
      expect(step, describeRun(run)).toContain("Run 2");
      // Run 1: question, tool call, tool result, answer.
      expect(step).toContain("4 messages of run 1 were in the agent's state");
    }
  });

  it("leaves no thread and no assistant behind, but the account's one sessions record", async () => {
    const data = await readDataFile(join(dir, "emulator-data.json"));
    // The record says this account files sessions by dataset; every session lookup relies on it.
    const left = (data?.threads ?? []).filter((t) => t.metadata?.lc_kind !== "session-layout");
    expect(left).toEqual([]);
    expect(data?.threads.length).toBeLessThanOrEqual(1);
    expect(data?.assistants).toEqual([]);
  });

  it(
    "fails clearly, with a non-zero exit, when the service cannot be reached",
    async () => {
      const port = await closedPort();
      const apiKey = "sk-demo-test-key-never-printed";
      const run = await runDemoBundled(
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
