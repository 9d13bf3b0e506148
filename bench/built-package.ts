/**
 * The bundle and cold-import rows measure what users install: the built package (`dist/`),
 * reached through its `exports` by name (`langchain-studio` resolves to this repository). The
 * bench does not build it (other work may be building at the same time): it refuses a `dist/`
 * that is missing or older than `src/`, so a row never describes stale code.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

function newestIn(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Throws, saying what to run, unless `dist/index.js` exists and is newer than every src file. */
export function requireFreshDist(): void {
  const entry = join(ROOT, "dist", "index.js");
  if (!existsSync(entry)) {
    throw new Error("dist/index.js is missing: run `npm run build` before this bench entry.");
  }
  if (statSync(entry).mtimeMs < newestIn(join(ROOT, "src"))) {
    throw new Error("dist/ is older than src/: run `npm run build` before this bench entry.");
  }
}
