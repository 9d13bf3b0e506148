/**
 * The optional peer `langchain` costs nothing to an app that never runs an assistant as an agent.
 * The packed package is unpacked into a project OUTSIDE the repo, whose node_modules holds only
 * what such an app installs: langchain-studio, its dependencies (undici, zod), @langchain/core and
 * @types/node (linked from the repo; no `langchain`). There the root entry type-checks with
 * `skipLibCheck: false`, bundles with esbuild without aliases, and runs against the emulator;
 * only `langchain-studio/agents` asks for `langchain`. Needs `npm run build` first.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { packInto, REPO_ROOT, run } from "./pack";

/** What an app that uses only the root entry has installed besides langchain-studio. */
const INSTALLED = ["@langchain/core", "@types/node", "undici", "zod"];

const APP = `import {
  type Assistant,
  ChatStudio,
  type ChatStudioInput,
  createAssistant,
  deleteAssistant,
  listAssistants,
  StudioChatMessageHistory,
  StudioClient,
  type StudioClientOptions,
  StudioError,
  StudioLLM,
} from "langchain-studio";

const options: StudioClientOptions = {
  apiKey: process.env.STUDIO_API_KEY ?? "",
  baseUrl: process.env.STUDIO_BASE_URL ?? "",
  proxyUrl: process.env.STUDIO_PROXY_URL ?? "",
  maxRetries: 0,
};
const client = new StudioClient(options);
const input: ChatStudioInput = { model: "studio/echo-small", client };
const reply = await new ChatStudio(input).invoke("hi");
const llm = new StudioLLM({ model: "studio/echo-text", client });
const history = new StudioChatMessageHistory({ client });
const created: Assistant = await createAssistant({ assistantName: "plain" }, { client });
let listed = 0;
for await (const _ of listAssistants({ client })) listed += 1;
const deleted = await deleteAssistant(created.id, { client });
await client.close();
console.log(
  JSON.stringify({
    reply: reply.text,
    listed,
    deleted: deleted.deleted,
    kinds: [typeof llm.invoke, typeof history.getMessages, typeof StudioError],
  }),
);
`;

const emulator = useEmulator();
let project = "";

beforeAll(async () => {
  // Outside the repo: nothing resolves from the repo's node_modules, where langchain is installed.
  project = await realpath(await mkdtemp(path.join(tmpdir(), "studio-no-langchain-")));
  await packInto(project);
  for (const name of INSTALLED) {
    const link = path.join(project, "node_modules", name);
    await mkdir(path.dirname(link), { recursive: true });
    await symlink(path.join(REPO_ROOT, "node_modules", name), link, "dir");
  }
  await writeFile(
    path.join(project, "package.json"),
    JSON.stringify({ name: "app", private: true, type: "module" }),
  );
  await writeFile(path.join(project, "app.ts"), APP);
  await writeFile(
    path.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        lib: ["ES2023"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: false,
        types: ["node"],
        noEmit: true,
      },
      files: ["app.ts"],
    }),
  );
}, 120_000);

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe("an app without langchain installed", () => {
  it("has no langchain to resolve", async () => {
    const result = await run(
      process.execPath,
      ["--input-type=module", "-e", 'await import("langchain")'],
      { cwd: project },
    ).catch((error: { stderr: string }) => error);
    expect("stderr" in result && result.stderr).toMatch(/Cannot find package 'langchain'/);
  });

  it("type-checks the root entry with skipLibCheck: false", async () => {
    const tsc = path.join(REPO_ROOT, "node_modules/typescript/bin/tsc");
    const result = await run(process.execPath, [tsc, "-p", project], { cwd: project }).catch(
      (error: { stdout: string }) => error,
    );
    expect("stdout" in result ? result.stdout : "").toBe("");
  }, 120_000);

  it("bundles the root entry with esbuild, @langchain/core external, no aliases", async () => {
    const esbuild = path.join(REPO_ROOT, "node_modules/esbuild/bin/esbuild");
    const meta = path.join(project, "meta.json");
    await run(
      esbuild,
      [
        "app.ts",
        "--bundle",
        "--platform=node",
        "--format=esm",
        "--external:@langchain/core",
        "--log-level=error",
        `--metafile=${meta}`,
        "--outfile=bundle.mjs",
      ],
      { cwd: project },
    );
    const { inputs } = JSON.parse(await readFile(meta, "utf8")) as {
      inputs: Record<string, unknown>;
    };
    const fromPackage = Object.keys(inputs).filter((p) => p.includes("langchain-studio/dist/"));
    expect(fromPackage.length).toBeGreaterThan(0);
    expect(fromPackage.some((p) => p.includes("/agents/"))).toBe(false);
    expect(Object.keys(inputs).filter((p) => /node_modules\/langchain\//.test(p))).toEqual([]);
  }, 60_000);

  it("runs the root entry against the emulator", async () => {
    const { handle } = emulator;
    // The app with its types stripped (not bundled), run by plain Node: tsx's module hooks would
    // add 2 s of CPU and nothing to what is checked.
    const esbuild = path.join(REPO_ROOT, "node_modules/esbuild/bin/esbuild");
    await run(esbuild, ["app.ts", "--format=esm", "--log-level=error", "--outfile=app.mjs"], {
      cwd: project,
    });
    const { stdout } = await run(process.execPath, ["app.mjs"], {
      cwd: project,
      env: {
        ...process.env,
        STUDIO_API_KEY: handle.apiKey,
        STUDIO_BASE_URL: handle.baseUrl,
        STUDIO_PROXY_URL: handle.proxyUrl,
      },
      timeout: 60_000,
    });
    expect(JSON.parse(stdout.trim())).toEqual({
      reply: "You said: hi",
      listed: 1,
      deleted: true,
      kinds: ["function", "function", "function"],
    });
  }, 90_000);

  it("asks for langchain only when the ./agents subpath is imported", async () => {
    const result = await run(
      process.execPath,
      ["--input-type=module", "-e", 'await import("langchain-studio/agents")'],
      { cwd: project },
    ).catch((error: { stderr: string }) => error);
    expect("stderr" in result && result.stderr).toMatch(/Cannot find package 'langchain'/);
  });
});
