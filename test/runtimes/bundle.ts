/**
 * esbuild bundles of the scenario for runtimes without a module resolver of their own (workerd, a
 * browser): everything bundled in, `@langchain/core` included, as a user's bundler would do. The
 * report lists esbuild's errors and every Node built-in the bundle still imports (read from the
 * metafile), so a failure names the module that pulled Node in.
 */
import { builtinModules } from "node:module";
import { join } from "node:path";
import { type BuildFailure, build, type Message } from "esbuild";
import { REPO_ROOT } from "../helpers/run-command";

export interface BundleReport {
  outfile: string;
  /** esbuild's errors, as `file:line: text`. Empty when the bundle was built. */
  errors: string[];
  /** The errors counted by where they come from: a file of ours, or a package in node_modules. */
  errorSources: string[];
  /** Node built-ins the bundle still imports (externals), with the file that imports each. */
  nodeBuiltins: string[];
}

const NODE_BUILTINS = new Set(builtinModules);

function isNodeBuiltin(path: string): boolean {
  return path.startsWith("node:") || NODE_BUILTINS.has(path.split("/")[0] ?? path);
}

function formatMessage({ text, location }: Message): string {
  return location ? `${location.file}:${location.line}: ${text}` : text;
}

/** "dist/index.js: 2 error(s)", "node_modules/undici: 118 error(s)": what to fix first. */
function errorSources(errors: Message[]): string[] {
  const counts = new Map<string, number>();
  for (const { location } of errors) {
    const file = location?.file ?? "(no file)";
    const inPackage = /^(.*?node_modules\/(?:@[^/]+\/)?[^/]+)/.exec(file);
    const source = inPackage?.[1] ?? file;
    counts.set(source, (counts.get(source) ?? 0) + 1);
  }
  return [...counts].map(([source, count]) => `${source}: ${count} error(s)`);
}

/**
 * Bundles `entry` (a file of test/runtimes) for the web platform into `outfile`, as an ES module.
 * `conditions` are the package export conditions to honour besides esbuild's defaults for the
 * browser platform (workerd's bundlers use `workerd` and `worker`).
 */
export async function bundleForWeb(
  entry: string,
  outfile: string,
  { conditions = [] }: { conditions?: string[] } = {},
): Promise<BundleReport> {
  try {
    const result = await build({
      absWorkingDir: REPO_ROOT,
      entryPoints: [join(REPO_ROOT, "test", "runtimes", entry)],
      outfile,
      bundle: true,
      format: "esm",
      platform: "browser",
      ...(conditions.length > 0 ? { conditions } : {}),
      target: "es2022",
      metafile: true,
      logLevel: "silent",
    });
    const nodeBuiltins = Object.entries(result.metafile.inputs).flatMap(([file, input]) =>
      input.imports
        .filter((imported) => imported.external && isNodeBuiltin(imported.path))
        .map((imported) => `${imported.path} (imported by ${file})`),
    );
    return {
      outfile,
      errors: result.errors.map(formatMessage),
      errorSources: errorSources(result.errors),
      nodeBuiltins,
    };
  } catch (error) {
    const failure = error as BuildFailure;
    if (!Array.isArray(failure.errors)) throw error;
    return {
      outfile,
      errors: failure.errors.map(formatMessage),
      errorSources: errorSources(failure.errors),
      nodeBuiltins: [],
    };
  }
}

/** An assertion message listing what keeps a bundle from being portable. */
export function describeBundle(report: BundleReport): string {
  return [
    `${report.errors.length} esbuild error(s), by source: ${report.errorSources.join("; ")}`,
    ...report.errors.slice(0, 12),
    `${report.nodeBuiltins.length} Node built-in import(s) left:`,
    ...report.nodeBuiltins,
  ].join("\n");
}
