/**
 * The runtime matrix: every runtime runs `scenario.mjs` (the default construction: invoke,
 * stream, a tool call, a history write and read-back, an encrypted store item and checkpoint)
 * against one emulator started here in Node, on loopback. Each runtime runs once per file, in a
 * child process bounded in time; the steps are then asserted one by one, so a report names the
 * step and carries the runtime's own error.
 *
 * The runtimes load the BUILT package (`dist/`, through the package's `exports`): `npm test`
 * builds it before vitest runs.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../helpers/emulator";
import {
  type CommandResult,
  describeRun,
  envWithoutService,
  REPO_ROOT,
} from "../helpers/run-command";

export const RUNTIMES_DIR = join(REPO_ROOT, "test", "runtimes");

/** Upper bound of one runtime's run; a cold Deno or workerd start takes a few seconds. */
export const RUNTIME_TIMEOUT_MS = 90_000;

/** What the runtime is pointed at: the emulator's addresses and key (no `client`, no `fetch`). */
export interface ScenarioOptions {
  apiKey: string;
  baseUrl: string;
  proxyUrl: string;
}

interface ErrorReport {
  name: string;
  message: string;
  stack?: string;
}

type StepResult = { ok: true; value: Record<string, unknown> } | { ok: false; error: ErrorReport };

export interface ScenarioResult {
  runtime: string;
  /** Set when the package (or the bundle) failed to load: no step ran. */
  loadError?: ErrorReport;
  steps?: Record<string, StepResult>;
}

/** A runtime's run: its parsed result line (if any) and how the process went, for messages. */
export interface RuntimeOutcome {
  result: ScenarioResult | undefined;
  /** Exit status and output, or whatever else explains a missing result. */
  details: string;
  /** Whether the process ended by itself (false: killed at the timeout). */
  exitedOnItsOwn: boolean;
  /** The runtime's version as it reports it, when the suite checks which runtime ran. */
  version?: string;
}

const RESULT_PREFIX = "RUNTIME-RESULT ";

export function parseResult(output: string): ScenarioResult | undefined {
  const line = output.split("\n").find((l) => l.startsWith(RESULT_PREFIX));
  return line === undefined
    ? undefined
    : (JSON.parse(line.slice(RESULT_PREFIX.length)) as ScenarioResult);
}

/** After the result line, how long a process may take to exit before it is said to hang. */
const EXIT_GRACE_MS = 15_000;

/**
 * Runs one runtime in its own process group and collects its result line. The run is bounded:
 * the whole group is killed at `timeoutMs`, or `EXIT_GRACE_MS` after the result line when the
 * process does not end by itself (an open socket or timer holding it).
 */
export function runRuntime(
  command: string,
  args: string[],
  {
    env = runtimeEnv(),
    timeoutMs = RUNTIME_TIMEOUT_MS,
  }: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<RuntimeOutcome> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: REPO_ROOT,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const run: CommandResult = {
      code: null,
      signal: null,
      timedOut: false,
      stdout: "",
      stderr: "",
    };
    let graceTimer: NodeJS.Timeout | undefined;
    const kill = () => {
      run.timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(kill, timeoutMs);
    child.stdout.setEncoding("utf8").on("data", (data: string) => {
      run.stdout += data;
      if (graceTimer === undefined && run.stdout.includes(RESULT_PREFIX)) {
        graceTimer = setTimeout(kill, EXIT_GRACE_MS);
      }
    });
    child.stderr.setEncoding("utf8").on("data", (data: string) => {
      run.stderr += data;
    });
    child.on("error", (error) => {
      run.stderr += `\n${error.message}`;
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      Object.assign(run, { code, signal });
      resolve({
        result: parseResult(run.stdout),
        details: describeRun(run, 4_000),
        exitedOnItsOwn: !run.timedOut,
      });
    });
  });
}

/** The test's environment for a runtime: no STUDIO_* settings, no proxy for loopback, no colour. */
export function runtimeEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = envWithoutService({ NO_PROXY: "127.0.0.1,localhost", NO_COLOR: "1", ...extra });
  for (const name of [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
  ]) {
    delete env[name];
  }
  return env;
}

export function binary(name: string): string {
  return join(REPO_ROOT, "node_modules", ".bin", name);
}

function requireDist(): void {
  for (const file of ["dist/index.js", "dist/emulator/index.js"]) {
    if (!existsSync(join(REPO_ROOT, file))) {
      throw new Error(
        `${file} is missing: the runtime matrix runs the built package. Run \`npm run build\` first (\`npm test\` does).`,
      );
    }
  }
}

function failure(outcome: RuntimeOutcome, step: string): string {
  const { result } = outcome;
  if (!result) return `the runtime printed no result line.\n${outcome.details}`;
  if (result.loadError) {
    const { name, message, stack } = result.loadError;
    // The details carry the runtime's own log (workerd names the failing module only there).
    return `the package failed to load in ${result.runtime}: ${name}: ${message}\n${stack ?? ""}\n${outcome.details}`;
  }
  const stepResult = result.steps?.[step];
  if (!stepResult) return `no result for step "${step}".\n${outcome.details}`;
  if (!stepResult.ok) {
    const { name, message, stack } = stepResult.error;
    return `step "${step}" failed in ${result.runtime}: ${name}: ${message}\n${stack ?? ""}`;
  }
  return "";
}

function stepValue(outcome: RuntimeOutcome, step: string): Record<string, unknown> {
  const reason = failure(outcome, step);
  if (reason) expect.fail(reason);
  const stepResult = outcome.result?.steps?.[step];
  return stepResult?.ok ? stepResult.value : {};
}

/**
 * Registers the matrix's tests for one runtime: `run` starts it against the emulator (once, in
 * `beforeAll`), and each step of the scenario becomes one test.
 */
export function scenarioSuite(
  runtime: string,
  run: (options: ScenarioOptions) => Promise<RuntimeOutcome>,
  {
    checkExit = false,
    version,
  }: {
    checkExit?: boolean;
    /** How `outcome.version` must start: proof that the intended runtime ran the scenario. */
    version?: string;
  } = {},
): void {
  describe(`${runtime}: default construction against the emulator`, () => {
    const emulator = useEmulator({ recordRequests: false });
    let outcome: RuntimeOutcome = { result: undefined, details: "not run", exitedOnItsOwn: false };

    beforeAll(async () => {
      requireDist();
      const { apiKey, baseUrl, proxyUrl } = emulator.handle;
      outcome = await run({ apiKey, baseUrl, proxyUrl });
    }, RUNTIME_TIMEOUT_MS + 30_000);

    it("ChatStudio.invoke answers", () => {
      expect(stepValue(outcome, "invoke")).toEqual({ text: `You said: Hello from ${runtime}` });
    });

    it("ChatStudio.stream streams the answer in several chunks", () => {
      const value = stepValue(outcome, "stream");
      expect(value.text).toBe(`You said: Stream to ${runtime}`);
      expect(value.chunks).toBeGreaterThan(1);
    });

    it("bindTools + invoke returns the tool call", () => {
      expect(stepValue(outcome, "toolCall")).toEqual({
        toolCalls: [{ name: "get_weather", args: { city: "Paris" } }],
      });
    });

    it("StudioChatMessageHistory writes, and a second history reads the thread back", () => {
      expect(stepValue(outcome, "history")).toEqual({
        messages: [
          { type: "human", text: `Remember ${runtime}` },
          { type: "ai", text: `Remembered ${runtime}` },
        ],
      });
    });

    it("encrypted StudioStore and StudioCheckpointSaver read back; another key is refused", () => {
      expect(stepValue(outcome, "encryptedMemory")).toEqual({
        storeText: `Secret fact from ${runtime}`,
        checkpointText: `Secret checkpoint from ${runtime}`,
        refusal: { name: "StudioDecryptionError", reason: "tampered" },
      });
    });

    if (version) {
      it(`runs in ${version}*`, () => {
        expect(outcome.version?.slice(0, version.length), outcome.details).toBe(version);
      });
    }

    if (checkExit) {
      it("the process exits on its own once done (the built client holds no socket open)", () => {
        expect(outcome.exitedOnItsOwn, outcome.details).toBe(true);
      });
    }
  });
}
