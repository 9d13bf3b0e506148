/**
 * Runs one of the repository's TypeScript entry points (a fixture script, the emulator's CLI, an
 * example) in a Node process of its own without tsx: the entry and the repository files it
 * imports are bundled once per test file by esbuild (the transformer tsx uses, finding the same
 * tsconfig), packages left as imports, and plain Node runs the result. On Node 20, tsx's module
 * hooks cost each process about 2 s of CPU, since every module of LangChain passes through them;
 * `npx` adds half a second more. The code that runs is the same: the repository's files with
 * their types stripped, each keeping its own `import.meta.url`, and the packages as installed. A
 * source map keeps an error's stack on the TypeScript lines.
 *
 * The bundles are written to a temporary folder whose `node_modules` links to every package of
 * the repository's and to the repository itself as `langchain-studio` (so an import of the
 * package by name reaches the built `dist/` through its `exports`, as the package's own files
 * do); the folder is removed after the test file. A test that is about how a user starts
 * something (`npm run demo`, README's `npx tsx`) keeps starting it that way.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { afterAll } from "vitest";
import { REPO_ROOT } from "./run-command";

let folder: Promise<string> | undefined;
const bundles = new Map<string, Promise<string>>();

afterAll(async () => {
  const made = folder;
  folder = undefined;
  bundles.clear();
  if (made) await rm(await made, { recursive: true, force: true });
});

/** A temporary folder whose node_modules resolves as the repository's files resolve. */
async function bundleFolder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "studio-node-entry-"));
  const modules = path.join(dir, "node_modules");
  await mkdir(modules);
  const installed = path.join(REPO_ROOT, "node_modules");
  for (const name of await readdir(installed)) {
    if (name === ".bin") continue;
    await symlink(path.join(installed, name), path.join(modules, name), "dir");
  }
  const own = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as {
    name: string;
  };
  await symlink(REPO_ROOT, path.join(modules, own.name), "dir");
  return dir;
}

/**
 * Gives each file the entry imports the `import.meta.url` (and `dirname`, `filename`) of its
 * source, as tsx does by loading each file where it is: a file that finds its neighbours through
 * it (the chat UI's page beside its server) finds them. The entry keeps the bundle's own, which
 * is `process.argv[1]` as under tsx, so an "am I the main module" check still holds.
 */
function sourceLocation(entry: string): Plugin {
  return {
    name: "source-import-meta",
    setup(builder) {
      builder.onLoad({ filter: /\.[cm]?tsx?$/ }, async ({ path: file }) => {
        if (file === entry) return undefined;
        const text = await readFile(file, "utf8");
        const contents = text
          .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(file).href))
          .replaceAll("import.meta.dirname", JSON.stringify(path.dirname(file)))
          .replaceAll("import.meta.filename", JSON.stringify(file));
        return { contents, loader: file.endsWith("x") ? "tsx" : "ts" };
      });
    },
  };
}

async function bundle(entry: string, name: string, tsconfig?: string): Promise<string> {
  folder ??= bundleFolder();
  const outfile = path.join(await folder, name);
  const source = path.resolve(REPO_ROOT, entry);
  await build({
    entryPoints: [source],
    outfile,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: `node${process.versions.node}`,
    keepNames: true,
    sourcemap: "inline",
    plugins: [sourceLocation(source)],
    ...(tsconfig ? { tsconfig: path.resolve(REPO_ROOT, tsconfig) } : {}),
    logLevel: "silent",
  });
  return outfile;
}

/**
 * The arguments that make `process.execPath` run `entry` (a path from the repository root, or
 * absolute) followed by `args`: `spawn(process.execPath, await nodeEntry("src/emulator/cli.ts",
 * ["--port", "0"]))` runs what `tsx src/emulator/cli.ts --port 0` would. `tsconfig` is tsx's
 * `--tsconfig` (by default each file's nearest, as esbuild finds it).
 */
export async function nodeEntry(
  entry: string,
  args: string[] = [],
  { tsconfig }: { tsconfig?: string } = {},
): Promise<string[]> {
  let built = bundles.get(entry);
  if (!built) {
    const name = `${bundles.size}-${path.basename(entry).replace(/\.\w+$/, "")}.mjs`;
    built = bundle(entry, name, tsconfig);
    bundles.set(entry, built);
  }
  return ["--enable-source-maps", await built, ...args];
}
