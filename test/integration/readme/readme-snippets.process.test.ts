/**
 * The documentation's promise, checked the way a newcomer meets it: README's "Install" steps,
 * followed in a fresh directory outside the repository with the packed package, make an app; every
 * TypeScript or JavaScript snippet of README.md and of every docs/*.md page then runs in that app,
 * as written, against the emulator (the STUDIO_* variables point at it), and the TypeScript ones
 * type-check there with `strict`. A block that is not run is marked on its page with
 * `<!-- readme-test: not run (reason) -->` and counted here. Only README holds install steps.
 * Needs `npm run build` first (npm test builds before vitest runs).
 *
 * README's own snippets run as README says, `tsx <file>` with the app's tsx. The docs pages'
 * snippets run in a Node process each too, but from JavaScript made beforehand by the esbuild
 * that tsx itself uses, with tsx's options: tsx's module hooks cost each process about 2 s of
 * CPU on Node 20 (every module of LangChain passes through them), 40 s over the docs' snippets,
 * and the code they run is the same.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { describeRun, envWithoutService, REPO_ROOT, runCommand } from "../../helpers/run-command";
import { pack } from "../packaging/pack";
import { followInstallSteps } from "./install-steps";
import {
  docPages,
  importedPackages,
  type ReadmeBlock,
  readmeBlocks,
  snippetName,
  sortBlocks,
  whereIs,
} from "./readme-blocks";

const SNIPPET_TIMEOUT_MS = 60_000;
const TYPECHECK_TIMEOUT_MS = 120_000;

const pages = docPages(REPO_ROOT);
const { snippets, install, notRun, unmarked } = sortBlocks(
  pages.flatMap((page) => readmeBlocks(page.markdown, page.file)),
);
const emulator = useEmulator();

let sandbox = "";
let app = "";

/**
 * Where a snippet is written in the app, named by page and line (`store-line-42.ts`): `.ts` for a
 * TypeScript block, `.js` for JavaScript.
 */
function fileOf(snippet: ReadmeBlock): string {
  const extension = ["ts", "typescript"].includes(snippet.lang) ? "ts" : "js";
  return path.join(app, `${snippetName(snippet)}.${extension}`);
}

/**
 * The JavaScript a docs page's snippet runs as (`store-line-42.mjs`), beside its source: what tsx
 * would load, made once by tsx's own esbuild with the options tsx gives it (its Node as the
 * target, names kept, a source map so an error points at the snippet's line).
 */
function compiledOf(snippet: ReadmeBlock): string {
  return fileOf(snippet).replace(/\.[jt]s$/, ".mjs");
}

/** README's snippets run with tsx itself, as README tells a newcomer to run one. */
function runsWithTsx(snippet: ReadmeBlock): boolean {
  return snippet.file === "README.md";
}

async function compileSnippets(blocks: ReadmeBlock[]): Promise<void> {
  const tsxRequire = createRequire(path.join(app, "node_modules", "tsx", "package.json"));
  const esbuild = tsxRequire("esbuild") as typeof import("esbuild");
  for (const snippet of blocks) {
    const { code } = await esbuild.transform(snippet.code, {
      loader: fileOf(snippet).endsWith(".ts") ? "ts" : "js",
      format: "esm",
      target: `node${process.versions.node}`,
      keepNames: true,
      sourcemap: "inline",
      sourcefile: fileOf(snippet),
    });
    await writeFile(compiledOf(snippet), code);
  }
}

beforeAll(async () => {
  // Outside the repository, so nothing resolves from the repository's node_modules.
  sandbox = await realpath(await mkdtemp(path.join(tmpdir(), "studio-readme-")));
  // The steps start in the checkout, next to the tarball `npm pack` wrote there.
  const checkout = path.join(sandbox, "langchain-studio");
  await mkdir(checkout);
  await pack(checkout);
  if (install.length !== 1 || install[0]!.file !== "README.md") {
    throw new Error(
      `README.md must hold the one install block; found ${install.length}: ${install.map(whereIs).join(", ")}`,
    );
  }
  app = await followInstallSteps(install[0]!.code, checkout, process.env);
  for (const snippet of snippets) await writeFile(fileOf(snippet), `${snippet.code}\n`);
  await compileSnippets(snippets.filter((snippet) => !runsWithTsx(snippet)));
}, 240_000);

afterAll(async () => {
  if (sandbox) await rm(sandbox, { recursive: true, force: true });
});

describe("README and docs/", () => {
  it("has snippets to run and one block of install steps, in README", () => {
    expect(snippets.length).toBeGreaterThanOrEqual(8);
    expect(install.map((block) => block.file)).toEqual(["README.md"]);
  });

  it("reads README.md and every docs/ page", () => {
    expect(pages.map((page) => page.file)).toContain("README.md");
    expect(pages.filter((page) => page.file.startsWith("docs/")).length).toBeGreaterThanOrEqual(14);
  });

  it(`marks each block it does not run, with the reason (${notRun.length} marked: ${notRun
    .map((b) => `${b.file} line ${b.line}`)
    .join(", ")})`, () => {
    expect(
      unmarked.map(whereIs),
      "not runnable and not marked `<!-- readme-test: not run (reason) -->`",
    ).toEqual([]);
    expect(notRun.filter((b) => b.reason === "").map(whereIs), "marked without a reason").toEqual(
      [],
    );
  });

  it("install steps make an ES module app that lists every package the snippets import", async () => {
    const manifest = JSON.parse(await readFile(path.join(app, "package.json"), "utf8")) as {
      type?: string;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    expect(manifest.type).toBe("module");
    const listed = { ...manifest.dependencies, ...manifest.devDependencies };
    const imported = new Set(snippets.flatMap((s) => importedPackages(s.code)));
    expect([...imported].filter((name) => !(name in listed))).toEqual([]);
  });
});

describe("README and docs/ snippets, run in the installed app", () => {
  it.each(snippets.map((s) => [whereIs(s), s] as const))(
    "%s runs against the emulator",
    async (_where, snippet) => {
      const { apiKey, baseUrl, proxyUrl } = emulator.handle;
      // How README says to run one: `npx tsx example.ts`, with the app's own tsx (or, for a docs
      // page's snippet, what that tsx would run: see the header).
      const [command, args] = runsWithTsx(snippet)
        ? [path.join(app, "node_modules", ".bin", "tsx"), [fileOf(snippet)]]
        : [process.execPath, ["--enable-source-maps", compiledOf(snippet)]];
      const result = await runCommand(command, args, {
        cwd: app,
        env: envWithoutService({
          STUDIO_API_KEY: apiKey,
          STUDIO_BASE_URL: baseUrl,
          STUDIO_PROXY_URL: proxyUrl,
        }),
        timeoutMs: SNIPPET_TIMEOUT_MS,
      });
      expect(result.code, describeRun(result)).toBe(0);
    },
    SNIPPET_TIMEOUT_MS + 30_000,
  );
});

describe("README's and docs/' TypeScript snippets, type-checked in the installed app", () => {
  it(
    "pass `tsc --strict` (NodeNext) against the packed declarations",
    async () => {
      // The repository's compiler and Node types: a type-checking user brings their own, and the
      // app's node_modules holds only what README installs.
      await writeFile(
        path.join(app, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            lib: ["ES2023"],
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            // The packages' own declarations are checked elsewhere (without-langchain.test.ts);
            // here only the snippets' use of them, a few seconds of CPU instead of a minute.
            skipLibCheck: true,
            typeRoots: [path.join(REPO_ROOT, "node_modules", "@types")],
            types: ["node"],
            noEmit: true,
          },
          files: snippets.filter((s) => fileOf(s).endsWith(".ts")).map(fileOf),
        }),
      );
      const tsc = path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
      const result = await runCommand(process.execPath, [tsc, "-p", app], {
        cwd: app,
        env: process.env,
        timeoutMs: TYPECHECK_TIMEOUT_MS,
      });
      expect(result.stdout, describeRun(result)).toBe("");
      expect(result.code, describeRun(result)).toBe(0);
    },
    TYPECHECK_TIMEOUT_MS + 30_000,
  );
});
