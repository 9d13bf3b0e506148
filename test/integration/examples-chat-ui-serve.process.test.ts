/**
 * The chat-UI example's web server (examples/chat-ui/serve.ts, through the package's
 * `toNodeListener` from the built dist/): a request at /api with a `Host` that `new Request`
 * refuses is a 400, the process goes on serving the page and the API, and it listens on loopback.
 * Needs `npm run build` first (the example imports "langchain-studio/server" by name).
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { serveChat } from "../../examples/chat-ui/serve";
import { openRaw } from "../helpers/raw-http";

let server: Server | undefined;

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe("examples/chat-ui/serve.ts", () => {
  it("answers an unparsable request with a 400 and serves the next one, on loopback", async () => {
    const seen: string[] = [];
    const served = await serveChat(async (request) => {
      seen.push(new URL(request.url).pathname);
      return Response.json({ ok: true });
    });
    server = served.server;
    expect((server.address() as AddressInfo).address).toBe("127.0.0.1");

    const raw = await openRaw(served.url);
    await raw.write("GET /api/threads HTTP/1.1\r\nHost: bad host:1\r\n\r\n");
    const refused = await raw.response();
    raw.close();
    expect(refused.status).toBe(400);

    const api = await fetch(`${served.url}api/info`);
    expect(await api.json()).toEqual({ ok: true });
    const page = await fetch(served.url);
    expect(await page.text()).toContain('<script type="module" src="/page.js">');
    expect(seen).toEqual(["/api/info"]);
  }, 60_000);
});
