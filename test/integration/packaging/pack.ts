/**
 * Packs the package as `npm publish` would (`npm pack` of the built dist/), for the tests that use
 * it as a user would: `pack` leaves the tarball for `npm install`, `packInto` also unpacks it into
 * `<project>/node_modules/langchain-studio`.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

export const run = promisify(execFile);
export const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");

export interface Packed {
  tarball: string;
  /** Paths inside the tarball, relative to the package root. */
  files: string[];
}

/** Writes the tarball `npm publish` would upload into `destination`. */
export async function pack(destination: string): Promise<Packed> {
  if (!existsSync(path.join(REPO_ROOT, "dist/index.js"))) {
    throw new Error("dist/ is missing: run `npm run build` before the tests of the packed package");
  }
  const { stdout } = await run(
    "npm",
    ["pack", "--json", "--ignore-scripts", "--pack-destination", destination],
    { cwd: REPO_ROOT },
  );
  const report = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  return {
    tarball: path.join(destination, report[0]!.filename),
    files: report[0]!.files.map((f) => f.path),
  };
}

export async function packInto(projectDir: string): Promise<Packed> {
  const packed = await pack(projectDir);
  const target = path.join(projectDir, "node_modules", "langchain-studio");
  await mkdir(target, { recursive: true });
  await run("tar", ["-xzf", packed.tarball, "-C", target, "--strip-components=1"]);
  return packed;
}
