/**
 * Runs the browser bundle in headless Chromium from the npm registry: `@sparticuz/chromium` ships a
 * brotli-packed chrome-headless-shell (Linux x64) inside the package, unpacked with no download
 * once per suite into a directory of its own (chromium-unpack.ts, by the runtimes project's global
 * setup), and `puppeteer-core` drives it. Every machine that ran `npm ci` therefore runs the page;
 * no system browser is needed.
 *
 * One loopback server serves the page and the bundle AND proxies `/studio` and `/inference` to the
 * emulator, so the package calls its own origin and no CORS is involved. The page POSTs its result
 * to `/result`; load errors (an uncaught exception while the bundle loads) are POSTed the same way.
 * The page's console, its errors and its failed requests are kept for the failure messages.
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser } from "puppeteer-core";
import { unpackChromium } from "./chromium-unpack";
import type { RuntimeOutcome, ScenarioResult } from "./harness";

export { CHROMIUM_PLATFORM, chromiumShipped } from "./chromium-platform";

// The package's flags are meant for a Lambda; two of them turn off the browser's security model,
// and the page must run as it would for a user, same-origin policy on.
const WEAKENING_FLAGS = new Set(["--disable-web-security", "--allow-running-insecure-content"]);

const FLAGS = [
  ...chromium.args.filter((flag) => !WEAKENING_FLAGS.has(flag)),
  // The tests run as root, and Chromium's sandbox refuses root.
  "--no-sandbox",
  // The machines reach nothing beyond loopback and the npm registry: Chromium's own background
  // connections would only be refused, many at a time.
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
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

/** The page's origin: the page, the bundle, the result endpoint and the proxy to the emulator. */
async function servePage(
  bundle: string,
  upstream: URL,
  deliver: (result: ScenarioResult) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
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
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function launch(timeoutMs: number): Promise<Browser> {
  return puppeteer.launch({
    // Unpacked by the global setup, in the background when other projects run (see there).
    executablePath: await unpackChromium(),
    headless: "shell",
    args: FLAGS,
    timeout: timeoutMs,
  });
}

/** Closes the browser, killing its process if it does not close in time. */
export async function shutDown(browser: Browser): Promise<void> {
  const closed = browser.close().then(
    () => true,
    () => false,
  );
  const inTime = await Promise.race([
    closed,
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000)),
  ]);
  if (!inTime) browser.process()?.kill("SIGKILL");
}

export async function runInChromium(
  bundle: string,
  emulator: { baseUrl: string; apiKey: string },
  timeoutMs: number,
): Promise<RuntimeOutcome> {
  let deliver: (result: ScenarioResult) => void = () => undefined;
  const delivered = new Promise<ScenarioResult>((resolve) => {
    deliver = resolve;
  });
  const page = await servePage(bundle, new URL(emulator.baseUrl), deliver);
  const output: string[] = [];
  const report = (version: string) =>
    [`browser: ${version}`, "--- page output ---", ...output].join("\n");
  let browser: Browser | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const launched = await launch(timeoutMs);
    browser = launched;
    const version = await launched.version();
    const tab = await launched.newPage();
    tab.on("console", (message) => output.push(`console.${message.type()}: ${message.text()}`));
    tab.on("pageerror", (error) => output.push(`page error: ${String(error)}`));
    tab.on("requestfailed", (failed) =>
      output.push(`request failed: ${failed.url()} (${failed.failure()?.errorText ?? "?"})`),
    );
    const closed = new Promise<string>((resolve) => {
      launched.on("disconnected", () => resolve("chromium went away before the page answered"));
    });
    const timedOut = new Promise<string>((resolve) => {
      timer = setTimeout(
        () => resolve(`no result from chromium within ${timeoutMs} ms`),
        timeoutMs,
      );
    });
    await tab.goto(`${page.url}?key=${encodeURIComponent(emulator.apiKey)}`);
    const first = await Promise.race([delivered, closed, timedOut]);
    if (typeof first === "string") {
      return {
        result: undefined,
        details: `${first}\n${report(version)}`,
        exitedOnItsOwn: true,
        version,
      };
    }
    return { result: first, details: report(version), exitedOnItsOwn: true, version };
  } catch (error) {
    const reason = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return {
      result: undefined,
      details: `chromium from @sparticuz/chromium did not run the page: ${reason}\n${report("?")}`,
      exitedOnItsOwn: true,
    };
  } finally {
    clearTimeout(timer);
    if (browser) await shutDown(browser);
    await page.close();
  }
}
