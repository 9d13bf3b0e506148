/**
 * Smoke test: every `examples/*.ts` runs to a zero exit, as a user would run it (`npx tsx
 * examples/<name>.ts`, with examples/tsconfig.json), against its own emulator: the same code,
 * bundled by esbuild (which tsx runs on) and run by plain Node (test/helpers/node-entry.ts), which
 * spares each run the 2 s of CPU of tsx's module hooks. New examples are picked up by listing the
 * folder, so none can be forgotten. The examples import "langchain-studio" by name, which
 * resolves to the built dist/ (the package's exports), so they run and type-check against what
 * users install: `npm test` builds before vitest runs.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { nodeEntry } from "../helpers/node-entry";
import {
  type CommandResult,
  describeRun,
  envWithoutService,
  REPO_ROOT,
  runCommand,
} from "../helpers/run-command";

const examples = readdirSync(join(REPO_ROOT, "examples"))
  .filter((name) => name.endsWith(".ts"))
  .sort();

/** Resolves "langchain-studio" to dist/, whatever source mapping the root tsconfig may have. */
const TSCONFIG = join("examples", "tsconfig.json");
const PER_EXAMPLE_TIMEOUT_MS = 60_000;
const PARALLEL = 2;

async function runAll(names: string[]): Promise<Map<string, CommandResult>> {
  const results = new Map<string, CommandResult>();
  const queue = [...names];
  // Examples must use their own emulator, whatever the developer's shell has configured.
  const env = envWithoutService();
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      results.set(
        name,
        await runCommand(
          process.execPath,
          await nodeEntry(join("examples", name), [], { tsconfig: TSCONFIG }),
          { env, timeoutMs: PER_EXAMPLE_TIMEOUT_MS },
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return results;
}

describe("examples", () => {
  let results = new Map<string, CommandResult>();

  beforeAll(
    async () => {
      if (!existsSync(join(REPO_ROOT, "dist/index.js"))) {
        throw new Error("dist/ is missing: run `npm run build` before the examples test");
      }
      results = await runAll(examples);
    },
    // Worst case: every example runs into its own timeout, two at a time.
    Math.ceil(examples.length / PARALLEL) * (PER_EXAMPLE_TIMEOUT_MS + 5_000) + 10_000,
  );

  it("finds the examples", () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it("type-check against the built package's declarations", async () => {
    const result = await runCommand(
      process.execPath,
      [join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", TSCONFIG, "--noEmit"],
      { env: process.env, timeoutMs: 120_000 },
    );
    expect(result.code === 0, `tsc -p examples: ${describeRun(result, 3000)}`).toBe(true);
  }, 130_000);

  it("import the package by name, never from the sources", () => {
    for (const name of [...examples, "lib/backend.ts"]) {
      const text = readFileSync(join(REPO_ROOT, "examples", name), "utf8");
      expect(text, name).not.toMatch(/from "(\.\.\/)+src/);
    }
  });

  it.each(examples)("%s exits 0", (name) => {
    const result = results.get(name);
    expect(result, `${name} did not run`).toBeDefined();
    const { code, timedOut } = result!;
    expect(code === 0 && !timedOut, `examples/${name}: ${describeRun(result!, 3000)}`).toBe(true);
  });
});
