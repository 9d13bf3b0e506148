/**
 * `err.name` is the class's own name (`StudioAPIError`, never `_StudioAPIError` or a minified
 * `Dg`) after the package's build and after a user's minifier renames every class: each class
 * sets its name from a string literal (src/errors/studio-error.ts, `named`), not from
 * `constructor.name`.
 *
 * The built part needs `dist/` (`npm test` builds first; by hand: `npx tsup`).
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as sourceErrors from "../../../src/errors";

const ROOT = path.resolve(import.meta.dirname, "../../..");
let workDir = "";

beforeAll(async () => {
  await mkdir(path.join(ROOT, ".studio"), { recursive: true });
  // Inside the repo, so the bundle's bare imports (@langchain/core...) resolve from node_modules.
  workDir = await mkdtemp(path.join(ROOT, ".studio", "names-"));
});

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Minifies `entry` the way a user's bundler would: every identifier renamed, no keepNames. */
async function minified(entry: string, name: string): Promise<Record<string, unknown>> {
  const outfile = path.join(workDir, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    minify: true,
    keepNames: false,
    format: "esm",
    platform: "node",
    packages: "external",
    logLevel: "silent",
  });
  return (await import(pathToFileURL(outfile).href)) as Record<string, unknown>;
}

/** Every exported class that builds an Error, by its export name. */
function errorClasses(
  module: Record<string, unknown>,
): [string, new (...args: never[]) => Error][] {
  return Object.entries(module).filter(
    (entry): entry is [string, new (...args: never[]) => Error] =>
      typeof entry[1] === "function" &&
      (entry[1] as { prototype?: unknown }).prototype instanceof Error,
  );
}

/** An instance of each class, built through its prototype so no constructor arguments matter. */
function nameOf(cls: new (...args: never[]) => Error): string {
  return (Object.create(cls.prototype) as Error).name;
}

function expectOwnNames(module: Record<string, unknown>, expected: string[]): void {
  const classes = errorClasses(module);
  expect(classes.map(([exported]) => exported).sort()).toEqual(expect.arrayContaining(expected));
  for (const [exported, cls] of classes) {
    // A class declared outside src/errors/ names itself the same way, in its own body:
    // `static { this.prototype.name = "TheClassName"; }`.
    expect(nameOf(cls), `${exported} must set its name from a string literal`).toBe(exported);
  }
}

const ERRORS_TS_CLASSES = Object.keys(sourceErrors).filter((name) => name.endsWith("Error"));

describe("error names survive minification", () => {
  it("src/errors/ minified by esbuild (no keepNames): every class, instances built for real", async () => {
    const module = await minified(path.join(ROOT, "src/errors/index.ts"), "errors");
    expect(ERRORS_TS_CLASSES.length).toBeGreaterThanOrEqual(16);
    expectOwnNames(module, ERRORS_TS_CLASSES);
    const { StudioAPIError, StudioValidationError } = module as unknown as typeof sourceErrors;
    const apiError = StudioAPIError.fromResponse({
      status: 429,
      method: "GET",
      path: "/x",
      serverMessage: "slow down",
    });
    expect(apiError.name).toBe("StudioRateLimitError");
    expect(String(apiError)).toMatch(/^StudioRateLimitError: GET \/x failed with status 429/);
    expect(apiError.stack).toMatch(/^StudioRateLimitError: /);
    expect(JSON.stringify(apiError)).toContain('"name":"StudioRateLimitError"');
    expect(new StudioValidationError("f", "bad").name).toBe("StudioValidationError");
  });

  it("dist/index.js (the build) minified again by esbuild: every exported error class", async () => {
    const dist = path.join(ROOT, "dist/index.js");
    expect(existsSync(dist), "dist/index.js is missing: build first (npx tsup)").toBe(true);
    const module = await minified(dist, "dist");
    expectOwnNames(module, ERRORS_TS_CLASSES);
    // The build itself, unminified: no `_StudioAPIError`.
    const built = (await import(pathToFileURL(dist).href)) as Record<string, unknown>;
    expectOwnNames(built, ERRORS_TS_CLASSES);
  });

  it("dist/agents/index.js minified by esbuild: its error classes too", async () => {
    const dist = path.join(ROOT, "dist/agents/index.js");
    expect(existsSync(dist), "dist/agents/index.js is missing: build first (npx tsup)").toBe(true);
    const module = await minified(dist, "agents");
    expectOwnNames(module, ["StudioMaxIterationsError"]);
  });
});
