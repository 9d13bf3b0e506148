/**
 * Cold import: the time a fresh Node process takes to import the package's main entry ABOVE
 * `@langchain/core`'s own, next to the same for `@langchain/openai`. Each run is a child process
 * that first imports every `@langchain/core` module either package uses (so core's cost is paid
 * and measured apart), then the package; the row is the median of interleaved runs, after a
 * warm-up run of each that fills the file cache.
 *
 *   npx tsx bench/imports.ts      (needs a fresh `npm run build`)
 */
import { spawn } from "node:child_process";
import { build } from "esbuild";
import { ROOT, requireFreshDist } from "./built-package";
import { type BenchEntry, type BenchRow, median, ratioRow, runIfMain } from "./harness";

const RUNS = 15;
const MAX_RATIO = 0.5;
const CHILD_TIMEOUT_MS = 30_000;

const PACKAGES = { studio: "langchain-studio", openai: "@langchain/openai" } as const;
type Candidate = keyof typeof PACKAGES;

/** The `@langchain/core` modules a package's main entry imports (esbuild's externals). */
async function coreModules(specifier: string): Promise<string[]> {
  const result = await build({
    stdin: { contents: `export * from "${specifier}";`, resolveDir: ROOT, loader: "js" },
    absWorkingDir: ROOT,
    bundle: true,
    format: "esm",
    platform: "node",
    external: ["@langchain/core", "@langchain/core/*"],
    write: false,
    metafile: true,
    outfile: "out.js",
    logLevel: "silent",
  });
  const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports);
  return imports.filter((i) => i.path.startsWith("@langchain/core")).map((i) => i.path);
}

interface ImportTimes {
  /** ms to import the core modules. */
  core: number;
  /** ms to import the package once core is loaded. */
  above: number;
}

function importOnce(core: string[], specifier: string): Promise<ImportTimes> {
  const script = [
    "const t0 = performance.now();",
    `for (const s of ${JSON.stringify(core)}) await import(s);`,
    "const t1 = performance.now();",
    `await import(${JSON.stringify(specifier)});`,
    "const t2 = performance.now();",
    "process.stdout.write(JSON.stringify({ core: t1 - t0, above: t2 - t1 }));",
  ].join("\n");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: CHILD_TIMEOUT_MS,
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      err += d;
    });
    child.on("close", (code) => {
      if (code === 0) resolve(JSON.parse(out) as ImportTimes);
      else reject(new Error(`importing ${specifier} failed (exit ${code}): ${err.slice(-2_000)}`));
    });
  });
}

async function run(): Promise<BenchRow[]> {
  requireFreshDist();
  const core = [
    ...new Set([...(await coreModules(PACKAGES.studio)), ...(await coreModules(PACKAGES.openai))]),
  ].sort();
  const samples: Record<Candidate, ImportTimes[]> = { studio: [], openai: [] };
  const names = Object.keys(PACKAGES) as Candidate[];
  for (const name of names) await importOnce(core, PACKAGES[name]);
  for (let r = 0; r < RUNS; r++) {
    // Alternating order, so neither always runs first after the other.
    for (const name of r % 2 === 0 ? names : [...names].reverse()) {
      samples[name].push(await importOnce(core, PACKAGES[name]));
    }
  }
  const above = (name: Candidate) => median(samples[name].map((s) => s.above));
  const coreMs = median([...samples.studio, ...samples.openai].map((s) => s.core));
  return [
    {
      what: `cold import: @langchain/core's own (${core.length} modules either package uses)`,
      value: coreMs,
      unit: "ms",
    },
    { what: "cold import: @langchain/openai above core", value: above("openai"), unit: "ms" },
    ratioRow(
      "cold import: langchain-studio above core",
      above("studio"),
      "ms",
      "@langchain/openai",
      above("openai"),
      MAX_RATIO,
    ),
  ];
}

export const importsBench: BenchEntry = { name: "imports", run };

await runIfMain(import.meta.url, importsBench);
