/**
 * The example's web server: the Agent Server handler at /api (Node's http through the two-line
 * adapter the docs show), and the page, bundled with esbuild when the server starts.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

type Handler = (request: Request) => Promise<Response>;

/** Node's request as a web Request (the body streamed, not buffered). */
export function toRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const item of Array.isArray(value) ? value : value ? [value] : [])
      headers.append(name, item);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
    method: req.method ?? "GET",
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
  } as RequestInit);
}

const HTML = `<!doctype html><html><head><meta charset="utf-8"><title>langchain-studio chat</title>
<style>body{font:15px system-ui;max-width:42rem;margin:2rem auto}li{margin:.4rem 0}.human{font-weight:600}
button{margin-left:.5rem}</style></head><body><div id="root"></div><script type="module" src="/page.js"></script></body></html>`;

export async function bundlePage(): Promise<string> {
  const here = dirname(fileURLToPath(import.meta.url));
  const result = await build({
    entryPoints: [join(here, "page.tsx")],
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

/** Serves the page and the handler on `port` (0: any free port). */
export async function serveChat(
  handler: Handler,
  port = 0,
): Promise<{ url: string; server: Server }> {
  const script = await bundlePage();
  const server = createServer(async (req, res) => {
    if (req.url?.startsWith("/api/")) {
      const response = await handler(toRequest(req));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      // pipeline destroys the web stream when the browser goes away: the run sees the disconnect.
      if (response.body)
        await pipeline(Readable.fromWeb(response.body as never), res).catch(() => {});
      else res.end();
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
