/**
 * Bundle size: a file that imports only ChatStudio, built with esbuild (default browser platform,
 * ES module, minified, `@langchain/core` external, as an app that already has LangChain would
 * build it), next to the same file for `ChatOpenAI` from `@langchain/openai`. An informational
 * row repeats both with `zod` external too (it is a dependency of `@langchain/core`, so a LangChain
 * app has it anyway): the package's own weight without the schema library. The largest packages
 * of the ChatStudio bundle are printed on stderr, to tell what a failing ratio is made of.
 *
 *   npx tsx bench/bundle.ts      (needs a fresh `npm run build`)
 */
import { type BuildFailure, build } from "esbuild";
import { ROOT, requireFreshDist } from "./built-package";
import { type BenchEntry, type BenchRow, ratioRow, runIfMain } from "./harness";

const MAX_RATIO = 0.5;
const KB = 1024;

interface Built {
  bytes: number;
  /** Bytes in the output per package (or per file of ours), largest first. */
  parts: [string, number][];
}

async function bundleSize(contents: string, external: string[]): Promise<Built> {
  try {
    const result = await build({
      stdin: { contents, resolveDir: ROOT, loader: "js" },
      absWorkingDir: ROOT,
      bundle: true,
      minify: true,
      format: "esm",
      platform: "browser",
      external: external.flatMap((name) => [name, `${name}/*`]),
      write: false,
      metafile: true,
      outfile: "out.js",
      logLevel: "silent",
    });
    const output = Object.values(result.metafile.outputs)[0];
    const parts = new Map<string, number>();
    for (const [file, input] of Object.entries(output?.inputs ?? {})) {
      const source = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? file;
      parts.set(source, (parts.get(source) ?? 0) + input.bytesInOutput);
    }
    return { bytes: output?.bytes ?? 0, parts: [...parts].sort((a, b) => b[1] - a[1]) };
  } catch (error) {
    const { errors } = error as BuildFailure;
    if (!Array.isArray(errors)) throw error;
    const first = errors[0];
    throw new Error(
      `esbuild failed with ${errors.length} error(s); first: ${first?.location?.file}: ${first?.text}`,
    );
  }
}

const STUDIO = 'export { ChatStudio } from "langchain-studio";';
const OPENAI = 'export { ChatOpenAI } from "@langchain/openai";';

function describeParts(parts: [string, number][]): string {
  return parts
    .slice(0, 6)
    .map(([name, bytes]) => `${name} ${(bytes / KB).toFixed(0)} KB`)
    .join(", ");
}

/** The two rows of one build setting; only the first setting carries the ceiling. */
async function compare(label: string, external: string[], ceiling: boolean): Promise<BenchRow[]> {
  const what = `bundle: ChatStudio only, esbuild --minify, ${label}`;
  const openai = await bundleSize(OPENAI, external);
  const openaiRow = {
    what: `bundle: ChatOpenAI only, ${label}`,
    value: openai.bytes / KB,
    unit: "KB",
  };
  let studio: Built;
  try {
    studio = await bundleSize(STUDIO, external);
  } catch (error) {
    const failed = { what: `${what}: ${(error as Error).message}`, value: Number.NaN, unit: "KB" };
    return [
      ceiling ? { ...failed, target: `<= ${MAX_RATIO.toFixed(2)}x`, pass: false } : failed,
      openaiRow,
    ];
  }
  process.stderr.write(`  ChatStudio bundle, ${label}: ${describeParts(studio.parts)}\n`);
  const row = ratioRow(what, studio.bytes / KB, "KB", "ChatOpenAI", openai.bytes / KB, MAX_RATIO);
  if (ceiling) return [row, openaiRow];
  const { target: _target, pass: _pass, ...info } = row;
  return [info, openaiRow];
}

async function run(): Promise<BenchRow[]> {
  requireFreshDist();
  return [
    ...(await compare("@langchain/core external", ["@langchain/core"], true)),
    ...(await compare("@langchain/core and zod external", ["@langchain/core", "zod"], false)),
  ];
}

export const bundleBench: BenchEntry = { name: "bundle", run };

await runIfMain(import.meta.url, bundleBench);
