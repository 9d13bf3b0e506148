import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Thread } from "../../../src/api-types";
import { PATHS } from "../../../src/api-types";
import { readDataFile } from "../../../src/emulator/persistence";
import { nodeEntry } from "../../helpers/node-entry";
import { call } from "./http";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const KEY = "cli-test-key-123";

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** What `tsx src/emulator/cli.ts` runs (test/helpers/node-entry.ts), set before the tests. */
let cliEntry: string[] = [];

function run(args: string[]): Run {
  const child = spawn(process.execPath, [...cliEntry, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (c: string) => {
    out += c;
  });
  child.stderr?.setEncoding("utf8").on("data", (c: string) => {
    err += c;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function waitFor(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("studio-emulator CLI", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "studio-emulator-cli-"));
    cliEntry = await nodeEntry("src/emulator/cli.ts");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("prints both addresses, the key and the export lines, serves, logs without the key, and stops on SIGTERM", async () => {
    const dataFile = join(dir, "cli.json");
    const cli = run(["--port", "0", "--api-key", KEY, "--log", "--data-file", dataFile]);
    try {
      await waitFor(() => /export STUDIO_API_KEY=.*\n/.test(cli.stdout()), "the startup banner");
      const out = cli.stdout();
      const baseUrl = /export STUDIO_BASE_URL=(\S+)/.exec(out)?.[1];
      const proxyUrl = /export STUDIO_PROXY_URL=(\S+)/.exec(out)?.[1];
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/studio$/);
      expect(proxyUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/inference$/);
      expect(out).toContain(`export STUDIO_API_KEY=${KEY}`);
      expect(out).toContain(`API key:`);

      const thread = await call<Thread>("POST", `${baseUrl}${PATHS.threads}`, {
        body: { title: "from the cli test" },
        headers: { "x-service-key": KEY },
      });
      expect(thread.status).toBe(200);
      const completion = await call("POST", `${proxyUrl}${PATHS.chatCompletions}`, {
        body: { model: "studio/echo-small", messages: [{ role: "user", content: "hi" }] },
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(completion.status).toBe(200);

      await waitFor(
        () => cli.stdout().includes("POST /inference/chat/completions 200"),
        "the log line",
      );
      const logLines = cli
        .stdout()
        .split("\n")
        .filter((l) => /^(GET|POST|DELETE) /.test(l));
      expect(logLines).toHaveLength(2);
      for (const line of logLines) expect(line).not.toContain(KEY);

      // SIGTERM goes to the emulator itself, by the process id it prints.
      const pid = Number(/process id:\s+(\d+)/.exec(out)?.[1]);
      expect(pid).toBeGreaterThan(0);
      process.kill(pid, "SIGTERM");
      expect(await cli.exited).toBe(0);
      expect(cli.stdout()).toContain("stopped (SIGTERM)");
      const saved = await readDataFile(dataFile);
      expect(saved?.threads.map((t) => t.id)).toEqual([thread.body.id]);
    } finally {
      const pid = Number(/process id:\s+(\d+)/.exec(cli.stdout())?.[1]);
      if (pid > 0) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Already gone: the normal case.
        }
      }
      cli.child.kill("SIGKILL");
    }
  });

  it("--lenient-tool-messages answers a tool call left without its result (real servers answer 400)", async () => {
    const cli = run(["--port", "0", "--api-key", KEY, "--lenient-tool-messages"]);
    try {
      await waitFor(() => /export STUDIO_PROXY_URL=\S+/.test(cli.stdout()), "the startup banner");
      const proxyUrl = /export STUDIO_PROXY_URL=(\S+)/.exec(cli.stdout())?.[1];
      const unanswered = {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "lookup", arguments: "{}" } },
        ],
      };
      const completion = await call("POST", `${proxyUrl}${PATHS.chatCompletions}`, {
        body: {
          model: "studio/echo-small",
          messages: [
            { role: "user", content: "hi" },
            unanswered,
            { role: "user", content: "go on" },
          ],
        },
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(completion.status).toBe(200);
    } finally {
      const pid = Number(/process id:\s+(\d+)/.exec(cli.stdout())?.[1]);
      if (pid > 0) process.kill(pid, "SIGKILL");
      cli.child.kill("SIGKILL");
    }
  });

  it("exits with code 2 and the usage on a bad option", async () => {
    const cli = run(["--port", "abc"]);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain("--port must be a non-negative integer");
    expect(cli.stderr()).toContain("Usage: studio-emulator");
  });

  it("exits with code 1 naming the file when the data file is corrupt", async () => {
    const dataFile = join(dir, "corrupt.json");
    await writeFile(dataFile, "{corrupt");
    const cli = run(["--port", "0", "--data-file", dataFile]);
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain(dataFile);
    expect(await readFile(dataFile, "utf8")).toBe("{corrupt");
  });
});
