/**
 * What users install: the packed tarball holds only dist/, README, LICENSE and package.json, and
 * it imports from a throwaway ESM project and from CommonJS `require`. Needs `npm run build`
 * first (npm test builds before running vitest).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../../..");

let workDir = "";
let tarball = "";
let packedFiles: string[] = [];

beforeAll(async () => {
  if (!existsSync(path.join(root, "dist/index.js"))) {
    throw new Error("dist/ is missing: run `npm run build` before the packaging test");
  }
  // The throwaway project lives inside the repo (ignored by git) so that the package's own
  // dependencies resolve from the repo's node_modules without any network install.
  await mkdir(path.join(root, ".studio"), { recursive: true });
  workDir = await mkdtemp(path.join(root, ".studio", "pack-"));
  const { stdout } = await run(
    "npm",
    ["pack", "--json", "--ignore-scripts", "--pack-destination", workDir],
    { cwd: root },
  );
  const report = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  tarball = path.join(workDir, report[0]!.filename);
  packedFiles = report[0]!.files.map((f) => f.path);
  const target = path.join(workDir, "node_modules", "langchain-studio");
  await mkdir(target, { recursive: true });
  await run("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"]);
}, 120_000);

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("the packed package", () => {
  it("contains only dist/, README.md, LICENSE and package.json", () => {
    expect(packedFiles.length).toBeGreaterThan(0);
    const outside = packedFiles.filter(
      (f) => !f.startsWith("dist/") && !["README.md", "LICENSE", "package.json"].includes(f),
    );
    expect(outside).toEqual([]);
    expect(packedFiles).toEqual(expect.arrayContaining(["README.md", "LICENSE", "package.json"]));
  });

  it("imports from an ESM project (root and ./emulator subpath)", async () => {
    const file = path.join(workDir, "esm.mjs");
    await writeFile(
      file,
      [
        'import { ChatStudio, StudioClient, StudioError } from "langchain-studio";',
        'import { startEmulator } from "langchain-studio/emulator";',
        "const emulator = await startEmulator({ port: 0 });",
        "const client = new StudioClient({ baseUrl: emulator.baseUrl, proxyUrl: emulator.proxyUrl, apiKey: emulator.apiKey });",
        "const model = new ChatStudio({ model: 'studio/echo-small', client });",
        "const reply = await model.invoke('hello from esm');",
        "console.log(JSON.stringify({ reply: reply.content, isError: typeof StudioError }));",
        "await client.close();",
        "await emulator.close();",
      ].join("\n"),
    );
    const { stdout } = await run(process.execPath, [file], { cwd: workDir });
    expect(JSON.parse(stdout.trim())).toEqual({
      reply: "You said: hello from esm",
      isError: "function",
    });
  }, 60_000);

  it("requires from CommonJS (root and ./emulator subpath)", async () => {
    const file = path.join(workDir, "cjs.cjs");
    await writeFile(
      file,
      [
        'const { ChatStudio, StudioClient } = require("langchain-studio");',
        'const { startEmulator } = require("langchain-studio/emulator");',
        "(async () => {",
        "  const emulator = await startEmulator({ port: 0 });",
        "  const client = new StudioClient({ baseUrl: emulator.baseUrl, proxyUrl: emulator.proxyUrl, apiKey: emulator.apiKey });",
        "  const model = new ChatStudio({ model: 'studio/echo-small', client });",
        "  const reply = await model.invoke('hello from cjs');",
        "  console.log(JSON.stringify({ reply: reply.content }));",
        "  await client.close();",
        "  await emulator.close();",
        "})().catch((e) => { console.error(e); process.exit(1); });",
      ].join("\n"),
    );
    const { stdout } = await run(process.execPath, [file], { cwd: workDir });
    expect(JSON.parse(stdout.trim())).toEqual({ reply: "You said: hello from cjs" });
  }, 60_000);

  it("ships the emulator CLI as an executable bin with a shebang", async () => {
    const files = await readdir(path.join(workDir, "node_modules/langchain-studio/dist/emulator"));
    expect(files).toContain("cli.js");
    const { stdout } = await run("head", [
      "-1",
      path.join(workDir, "node_modules/langchain-studio/dist/emulator/cli.js"),
    ]);
    expect(stdout.trim()).toBe("#!/usr/bin/env node");
  });
});
