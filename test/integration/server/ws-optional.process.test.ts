/**
 * `ws` is an optional peer: the BUILT server entry loads without it, and only an upgrade that
 * reaches `toNodeUpgradeListener` needs it, which then answers a 501 and tells `onError` how to
 * install it. A child Node process runs with a resolve hook that makes `ws` unresolvable (as if
 * it were not installed). Needs `npm run build` first (npm test builds before vitest runs).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeRun, envWithoutService, REPO_ROOT, runCommand } from "../../helpers/run-command";

const ENTRY = join(REPO_ROOT, "dist", "server", "index.js");

/** The resolve hook: `ws` is not found, as when the package is not installed. */
const HOOK = `export async function resolve(specifier, context, next) {
  if (specifier === "ws") {
    const error = new Error("Cannot find package 'ws'");
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}`;

const CHILD = `
import { register } from "node:module";
import { createServer, request } from "node:http";
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(HOOK)}));
const { toNodeUpgradeListener } = await import(process.argv[1]);
const errors = [];
const handler = async (req, runtime) => {
  runtime.upgrade(req, { data: { open: () => ({ message() {}, closed() {} }) } });
  return new Response(null);
};
const server = createServer();
server.on("upgrade", toNodeUpgradeListener(handler, { onError: (e) => errors.push(e.message) }));
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const answer = await new Promise((resolve, reject) => {
  const req = request({
    host: "127.0.0.1",
    port: server.address().port,
    path: "/threads/t/stream/events",
    headers: {
      Connection: "Upgrade",
      Upgrade: "websocket",
      "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version": "13",
    },
  });
  req.on("response", (res) => {
    let body = "";
    res.setEncoding("utf8").on("data", (d) => (body += d)).on("end", () => resolve({ status: res.statusCode, body }));
  });
  req.on("upgrade", () => reject(new Error("upgraded without ws")));
  req.on("error", reject);
  req.end();
});
server.close();
console.log("RESULT " + JSON.stringify({ ...answer, errors }));
`;

describe("ws, the optional peer of the WebSocket transport on Node", () => {
  it("the server entry loads without it; an upgrade is a 501 and onError says to install it", async () => {
    expect(existsSync(ENTRY), "run `npm run build` first").toBe(true);
    const run = await runCommand(process.execPath, ["--input-type=module", "-e", CHILD, ENTRY], {
      env: envWithoutService(),
      timeoutMs: 60_000,
    });
    const line = run.stdout.split("\n").find((l) => l.startsWith("RESULT "));
    expect(line, describeRun(run)).toBeDefined();
    const result = JSON.parse(line!.slice("RESULT ".length));
    expect(result.status).toBe(501);
    expect(JSON.parse(result.body).message).toContain("SSE transport");
    expect(result.errors).toEqual([expect.stringContaining("npm install ws")]);
  });
});
