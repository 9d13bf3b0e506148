/**
 * Runs one of the repository's TypeScript entry points (a fixture script, the emulator's CLI) in
 * a Node process of its own without tsx: the entry and the repository files it imports are
 * bundled once per test file by esbuild (the transformer tsx uses), packages left as imports, and
 * plain Node runs the result. On Node 20, tsx's module hooks cost each process about 2 s of CPU,
 * since every module of LangChain passes through them; `npx` adds half a second more. The code
 * that runs is the same: the repository's files with their types stripped, the packages as
 * installed. A source map keeps an error's stack on the TypeScript lines.
 *
 * The bundles are written to a temporary folder whose `node_modules` links to the repository's,
 * so the packages resolve to the very files the test process loads; it is removed after the test
 * file. A test that is about how a user starts something (`npx tsx examples/x.ts`,
 * `npm run demo`) keeps starting it that way.
 */
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { build } from "esbuild";
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

async function bundleFolder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "studio-node-entry-"));
  await symlink(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
}

async function bundle(entry: string, name: string): Promise<string> {
  folder ??= bundleFolder();
  const outfile = path.join(await folder, name);
  await build({
    entryPoints: [path.resolve(REPO_ROOT, entry)],
    outfile,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: `node${process.versions.node}`,
    keepNames: true,
    sourcemap: "inline",
    logLevel: "silent",
  });
  return outfile;
}

/**
 * The arguments that make `process.execPath` run `entry` (a path from the repository root, or
 * absolute) followed by `args`: `spawn(process.execPath, await nodeEntry("src/emulator/cli.ts",
 * ["--port", "0"]))` runs what `tsx src/emulator/cli.ts --port 0` would.
 */
export async function nodeEntry(entry: string, args: string[] = []): Promise<string[]> {
  let built = bundles.get(entry);
  if (!built) {
    built = bundle(entry, `${bundles.size}-${path.basename(entry, ".ts")}.mjs`);
    bundles.set(entry, built);
  }
  return ["--enable-source-maps", await built, ...args];
}
