/**
 * The example's page as a browser gets it: the HTML shell and the page bundled with esbuild. Apart
 * from serve.ts so that a server of another kind (the multi-instance tests' page origin, which
 * forwards /api to a load balancer) serves the same page without loading the package's handler.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** The shell: it loads the bundle from `/page.js`. */
export const HTML = `<!doctype html><html><head><meta charset="utf-8"><title>langchain-studio chat</title>
<style>body{font:15px system-ui;max-width:42rem;margin:2rem auto}li{margin:.4rem 0}.human{font-weight:600}
button{margin-left:.5rem}</style></head><body><div id="root"></div><script type="module" src="/page.js"></script></body></html>`;

export const DEFAULT_PAGE = join(dirname(fileURLToPath(import.meta.url)), "page.tsx");

/** Bundles a page for the browser (default: this example's `useStream` page). */
export async function bundlePage(entry = DEFAULT_PAGE): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"' },
    minify: true,
    logLevel: "silent",
  });
  return result.outputFiles[0]?.text ?? "";
}
