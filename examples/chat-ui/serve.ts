/**
 * The example's web server: the Agent Server handler at /api (Node's http through the package's
 * `toNodeListener`, as the docs show), and the page, bundled with esbuild when the server starts.
 * It listens on 127.0.0.1 only: the example has no `auth`, so every caller is the same user, and
 * nobody else on the network may be that user (see docs/chat-ui.md, "Who is calling").
 */
import { createServer, type Server } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { toNodeListener } from "langchain-studio/server";

type Handler = (request: Request) => Promise<Response>;

const HTML = `<!doctype html><html><head><meta charset="utf-8"><title>langchain-studio chat</title>
<style>body{font:15px system-ui;max-width:42rem;margin:2rem auto}li{margin:.4rem 0}.human{font-weight:600}
button{margin-left:.5rem}</style></head><body><div id="root"></div><script type="module" src="/page.js"></script></body></html>`;

const DEFAULT_PAGE = join(dirname(fileURLToPath(import.meta.url)), "page.tsx");

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

/**
 * Serves the page and the handler on 127.0.0.1:`port` (0: any free port); `page` picks another
 * page to bundle (the protocol v2 page in examples/chat-ui-v2).
 */
export async function serveChat(
  handler: Handler,
  port = 0,
  page = DEFAULT_PAGE,
): Promise<{ url: string; server: Server }> {
  const script = await bundlePage(page);
  // The package's adapter: a request it cannot read is a 400, never a crash of the process.
  const api = toNodeListener(handler);
  const server = createServer((req, res) => {
    if (req.url?.startsWith("/api/")) {
      api(req, res);
      return;
    }
    if (req.url === "/page.js") {
      res.writeHead(200, { "Content-Type": "text/javascript" }).end(script);
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html" }).end(HTML);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  return { url: `http://127.0.0.1:${actual}/`, server };
}
