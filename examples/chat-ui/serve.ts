/**
 * The example's web server: the Agent Server handler at /api (Node's http through the package's
 * `toNodeListener`, as the docs show), and the page, bundled with esbuild when the server starts.
 * It listens on 127.0.0.1 only: the example has no `auth`, so every caller is the same user, and
 * nobody else on the network may be that user (see docs/chat-ui.md, "Who is calling").
 */
import { createServer, type Server } from "node:http";
import { toNodeListener } from "langchain-studio/server";
import { bundlePage, DEFAULT_PAGE, HTML } from "./bundle";

export { bundlePage } from "./bundle";

type Handler = (request: Request) => Promise<Response>;

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
