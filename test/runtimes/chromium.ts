/**
 * Runs the browser bundle in headless Chromium (Debian's `chromium`, when installed). One loopback
 * server serves the page and the bundle AND proxies `/studio` and `/inference` to the emulator, so
 * the package calls its own origin and no CORS is involved. The page POSTs its result to
 * `/result`; load errors (an uncaught exception while the bundle loads) are POSTed the same way.
 * The browser runs with a fresh profile, no network of its own, and is killed once the result is in
 * or at the timeout.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RuntimeOutcome, ScenarioResult } from "./harness";

export const CHROMIUM_PATH = "/usr/bin/chromium";

export function chromiumInstalled(): boolean {
  return existsSync(CHROMIUM_PATH);
}

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

// Reports an exception thrown while the bundle loads (e.g. a Node global missing at import).
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>langchain-studio runtime matrix</title>
<script>
  const report = (name, message, stack) => fetch("/result", {
    method: "POST",
    body: JSON.stringify({ runtime: "chromium", loadError: { name, message, stack } }),
  });
  addEventListener("error", (e) =>
    report(e.error?.name ?? "Error", String(e.message), e.error?.stack ?? e.filename + ":" + e.lineno));
  addEventListener("unhandledrejection", (e) =>
    report(e.reason?.name ?? "Error", String(e.reason?.message ?? e.reason), e.reason?.stack));
</script>
<script type="module" src="/scenario.js"></script>
`;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

/** Forwards the request as is to the emulator, streaming both ways (SSE included). */
function proxy(req: IncomingMessage, res: ServerResponse, upstream: URL): void {
  const forwarded = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: upstream.host },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  forwarded.on("error", (error) => {
    res.writeHead(502, { "content-type": "text/plain" }).end(`proxy: ${error.message}`);
  });
  req.pipe(forwarded);
}

export async function runInChromium(
  bundle: string,
  emulator: { baseUrl: string; apiKey: string },
  timeoutMs: number,
): Promise<RuntimeOutcome> {
  const upstream = new URL(emulator.baseUrl);
  let deliver: (result: ScenarioResult) => void = () => undefined;
  const delivered = new Promise<ScenarioResult>((resolve) => {
    deliver = resolve;
  });
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (path.startsWith("/studio/") || path.startsWith("/inference/")) {
      proxy(req, res, upstream);
    } else if (path === "/" && req.method === "GET") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    } else if (path === "/scenario.js" && req.method === "GET") {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(bundle);
    } else if (path === "/result" && req.method === "POST") {
      readBody(req).then((body) => {
        res.writeHead(204).end();
        deliver(JSON.parse(body) as ScenarioResult);
      });
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const profile = await mkdtemp(join(tmpdir(), "studio-chromium-"));
  const url = `http://127.0.0.1:${port}/?key=${encodeURIComponent(emulator.apiKey)}`;
  const browser = spawn(CHROMIUM_PATH, [...FLAGS, `--user-data-dir=${profile}`, url], {
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  browser.stderr.setEncoding("utf8").on("data", (data: string) => {
    stderr = (stderr + data).slice(-4_000);
  });
  const exited = new Promise<string>((resolve) => {
    browser.on("error", (error) => resolve(`chromium did not start: ${error.message}`));
    browser.on("close", (code, signal) =>
      resolve(`chromium exited: code ${code}, signal ${signal}`),
    );
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no result from chromium within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    const first = await Promise.race([delivered, exited, timedOut]);
    if (typeof first === "string") {
      return {
        result: undefined,
        details: `${first}\n--- stderr ---\n${stderr}`,
        exitedOnItsOwn: true,
      };
    }
    return { result: first, details: `--- chromium stderr ---\n${stderr}`, exitedOnItsOwn: true };
  } finally {
    clearTimeout(timer);
    try {
      if (browser.pid !== undefined && browser.exitCode === null)
        process.kill(-browser.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(profile, { recursive: true, force: true });
  }
}
