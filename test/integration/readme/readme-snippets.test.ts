/**
 * Every TypeScript snippet in README.md runs, as written, against the emulator: README cannot rot.
 * Each snippet is written to a file inside the repo (so its imports resolve from node_modules),
 * with the package imports pointed at the sources, and run in its own process with the STUDIO_*
 * variables set to a fresh emulator.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../../..");
const workDir = path.join(root, ".studio", "readme-snippets");

function snippetsOf(markdown: string): { heading: string; code: string }[] {
  const out: { heading: string; code: string }[] = [];
  let heading = "top";
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("#")) heading = line.replace(/^#+\s*/, "");
    if (line.trim() === "```ts") {
      const body: string[] = [];
      for (i++; i < lines.length && lines[i]!.trim() !== "```"; i++) body.push(lines[i]!);
      out.push({ heading, code: body.join("\n") });
    }
  }
  return out;
}

/** `langchain-studio` and its subpaths (`/agents`, `/emulator`, `/langgraph`) -> their sources. */
function pointAtSources(code: string): string {
  return code.replace(/from "langchain-studio(?:\/(\w+))?"/g, (_match, subpath?: string) => {
    const source = path.join(root, "src", subpath ?? "", "index.ts");
    return `from ${JSON.stringify(source)}`;
  });
}

const readme = await readFile(path.join(root, "README.md"), "utf8");
const snippets = snippetsOf(readme);
const emulator = useEmulator();

beforeAll(async () => {
  await mkdir(workDir, { recursive: true });
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("README snippets", () => {
  it("has TypeScript snippets to check", () => {
    expect(snippets.length).toBeGreaterThanOrEqual(8);
  });

  it.each(snippets.map((s, index) => [index, s.heading, s.code] as const))(
    "snippet %i (%s) runs against the emulator",
    async (index, _heading, code) => {
      const file = path.join(workDir, `snippet-${index}.mts`);
      await writeFile(file, `${pointAtSources(code)}\n`);
      const { handle } = emulator;
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        STUDIO_API_KEY: handle.apiKey,
        STUDIO_BASE_URL: handle.baseUrl,
        STUDIO_PROXY_URL: handle.proxyUrl,
      };
      delete env.STUDIO_ORG_ID;
      const result = await run(process.execPath, ["--import", "tsx", file], {
        cwd: root,
        env,
        timeout: 60_000,
      }).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
      const failure = "code" in result && result.code ? `\n${result.stderr ?? ""}` : "";
      expect(failure).toBe("");
    },
    90_000,
  );
});
