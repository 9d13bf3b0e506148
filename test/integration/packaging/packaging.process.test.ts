/**
 * What users install: the packed tarball holds only dist/, README, LICENSE and package.json, and
 * it imports from a throwaway ESM project and from CommonJS `require`. Needs `npm run build`
 * first (npm test builds before running vitest). The project lives inside the repo (ignored by
 * git) so that the package's dependencies and peers, `langchain` included, resolve from the
 * repo's node_modules without any network install; without-langchain.test.ts covers the rest.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packInto, REPO_ROOT as root, run } from "./pack";

let workDir = "";
let packedFiles: string[] = [];

beforeAll(async () => {
  await mkdir(path.join(root, ".studio"), { recursive: true });
  workDir = await mkdtemp(path.join(root, ".studio", "pack-"));
  packedFiles = (await packInto(workDir)).files;
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

  it("ships every file its exports map names, declarations included", async () => {
    const manifest = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    const targets = new Set<string>();
    const collect = (value: unknown): void => {
      if (typeof value === "string") targets.add(value.replace(/^\.\//, ""));
      else if (value && typeof value === "object") Object.values(value).forEach(collect);
    };
    collect(manifest.exports);
    expect([...targets].filter((file) => file.endsWith(".d.ts")).length).toBeGreaterThan(3);
    expect([...targets].filter((file) => !packedFiles.includes(file))).toEqual([]);
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

  it("requires from CommonJS (root, ./agents and ./emulator subpaths)", async () => {
    const file = path.join(workDir, "cjs.cjs");
    await writeFile(
      file,
      [
        'const { ChatStudio, StudioClient } = require("langchain-studio");',
        'const { startEmulator } = require("langchain-studio/emulator");',
        'const { loadAssistantAgent } = require("langchain-studio/agents");',
        "(async () => {",
        "  const emulator = await startEmulator({ port: 0 });",
        "  const client = new StudioClient({ baseUrl: emulator.baseUrl, proxyUrl: emulator.proxyUrl, apiKey: emulator.apiKey });",
        "  const model = new ChatStudio({ model: 'studio/echo-small', client });",
        "  const reply = await model.invoke('hello from cjs');",
        "  const agent = await loadAssistantAgent({ assistant: { id: 'a', modelName: 'studio/echo-small' }, client });",
        "  const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'agent' }] });",
        "  console.log(JSON.stringify({ reply: reply.content, agent: messages.at(-1).text }));",
        "  await client.close();",
        "  await emulator.close();",
        "})().catch((e) => { console.error(e); process.exit(1); });",
      ].join("\n"),
    );
    const { stdout } = await run(process.execPath, [file], { cwd: workDir });
    expect(JSON.parse(stdout.trim())).toEqual({
      reply: "You said: hello from cjs",
      agent: "You said: agent",
    });
  }, 60_000);

  it("runs an assistant through ./agents with the root's client and errors (one copy of each)", async () => {
    const file = path.join(workDir, "agents.mjs");
    await writeFile(
      file,
      [
        'import { StudioClient, StudioError, createAssistant, deleteAssistant } from "langchain-studio";',
        'import { loadAssistantAgent, StudioMaxIterationsError } from "langchain-studio/agents";',
        'import { startEmulator } from "langchain-studio/emulator";',
        "const emulator = await startEmulator({ port: 0 });",
        "const client = new StudioClient({ baseUrl: emulator.baseUrl, proxyUrl: emulator.proxyUrl, apiKey: emulator.apiKey });",
        "const assistant = await createAssistant({ assistantName: 'a', modelName: 'studio/echo-small' }, { client });",
        "const agent = await loadAssistantAgent({ assistantId: assistant.id, client });",
        "const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'hi' }] });",
        "const invalid = await loadAssistantAgent({ assistantId: ' ', client }).catch((e) => e);",
        "await deleteAssistant(assistant.id, { client });",
        "console.log(JSON.stringify({",
        "  answer: messages.at(-1).text,",
        "  rootErrorClass: invalid instanceof StudioError,",
        "  agentErrorClass: StudioMaxIterationsError.prototype instanceof StudioError,",
        "}));",
        "await client.close();",
        "await emulator.close();",
      ].join("\n"),
    );
    const { stdout } = await run(process.execPath, [file], { cwd: workDir });
    expect(JSON.parse(stdout.trim())).toEqual({
      answer: "You said: hi",
      rootErrorClass: true,
      agentErrorClass: true,
    });
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
