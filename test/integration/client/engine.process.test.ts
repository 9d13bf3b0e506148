/**
 * Which fetch the client runs on, and what loading the package costs: nothing Node-only is loaded
 * with the main entry (undici comes on the first call, on Node only), a client nobody closes lets
 * its process exit, and the `fetch` option replaces the engine entirely. Child processes run on
 * the built `dist/` when it is there, so the check is of what users load.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { Engine, isNode } from "../../../src/client/engine";
import { watchLingeringSource } from "../../helpers/linger-watch";
import { sendJson, startServer, type TestServer } from "./server";

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "../../..");
const DIST = path.join(ROOT, "dist/index.js");
const THREAD = { id: "thread_1", object: "thread" };

let server: TestServer;

beforeAll(async () => {
  server = await startServer((_req, res) => sendJson(res, 200, THREAD));
});

afterAll(async () => {
  await server.close();
});

describe("the engine", () => {
  it("on Node it is undici, loaded on the first call, not before", async () => {
    expect(isNode()).toBe(true);
    const engine = new Engine({ fetch: undefined, dispatcher: undefined, connections: 2 });
    expect(engine.name).toBe("undici");
    const seen = await engine.send(`${server.url}/v1/threads/x`, {
      method: "GET",
      headers: {},
      body: null,
      signal: new AbortController().signal,
    });
    expect(seen.status).toBe(200);
    expect(seen.headers.get("content-type")).toContain("application/json");
    await seen.body?.cancel();
    await engine.close();
  });

  it("Bun and Deno are not Node, although they define process.versions.node", () => {
    const g = globalThis as { Bun?: unknown };
    g.Bun = {};
    try {
      expect(isNode()).toBe(false);
      expect(new Engine({ fetch: undefined, dispatcher: undefined, connections: 1 }).name).toBe(
        "fetch",
      );
    } finally {
      delete g.Bun;
    }
  });

  it("the fetch option replaces the engine: every request goes through it", async () => {
    const seen: string[] = [];
    const client = new StudioClient({
      apiKey: "k",
      baseUrl: server.url,
      fetch: (input, init) => {
        seen.push(String(input));
        return globalThis.fetch(input, init);
      },
    });
    expect((await client.getThread("thread_1")).id).toBe("thread_1");
    expect(seen).toEqual([`${server.url}/v1/threads/thread_1`]);
    expect(client.toJSON().transport).toBe("fetch");
  });
});

describe.skipIf(!fs.existsSync(DIST))("loading the built package", () => {
  it("imports nothing Node-only at its top level and no undici until a call", async () => {
    const text = fs.readFileSync(DIST, "utf8");
    const imports = [...text.matchAll(/^import .* from ['"]([^'"]+)['"];?$/gm)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    for (const name of imports) {
      expect(name).not.toMatch(/^node:|^undici$|^(fs|http|https|net|crypto|timers|stream)(\/|$)/);
    }
    // In a child process: loading the entry and building a client loads no undici module.
    const script = `
      import { createRequire } from "node:module";
      const { StudioClient } = await import(${JSON.stringify(DIST)});
      const undici = () => Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes("/undici/")).length;
      const client = new StudioClient({ apiKey: "k", baseUrl: "http://127.0.0.1:1", maxRetries: 0 });
      const before = undici();
      await client.getThread("t").catch(() => {});
      console.log(JSON.stringify({ before, afterCall: undici() > 0 }));
    `;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
      cwd: ROOT,
      timeout: 20_000,
    });
    // None before; some after a call (so the count does see undici when it is there).
    expect(JSON.parse(stdout.trim())).toEqual({ before: 0, afterCall: true });
  });

  it("a process that made calls and never closed its client exits on its own", async () => {
    const script = `
      const { StudioClient } = await import(${JSON.stringify(DIST)});
      const client = new StudioClient({ apiKey: "k", baseUrl: ${JSON.stringify(server.url)} });
      for (let i = 0; i < 3; i++) await client.getThread("thread_1");
      console.log("done");
      ${watchLingeringSource()}
    `;
    const { stdout, stderr } = await run(process.execPath, ["--input-type=module", "-e", script], {
      cwd: ROOT,
      timeout: 20_000,
    });
    // Exited by itself with code 0 (`run` rejects otherwise), sockets left idle and unreferenced;
    // the loopback server keeps its side open for 10 s, so a referenced socket would hold the
    // child past the watchdog, which exits with code 3 naming it.
    expect(stdout.trim()).toBe("done");
    expect(stderr).toBe("");
  }, 30_000);
});
