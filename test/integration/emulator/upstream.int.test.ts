import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ErrorBody } from "../../../src/api-types";
import { PATHS } from "../../../src/api-types";
import { type EmulatorHandle, startEmulator } from "../../../src/emulator";
import { call, inference } from "./http";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const STREAM =
  'data: {"id":"up","choices":[{"index":0,"delta":{"content":"from upstream"}}]}\n\ndata: [DONE]\n\n';

describe("upstream forwarding", () => {
  let upstream: Server;
  let upstreamUrl: string;
  let emulator: EmulatorHandle;
  const seen: Seen[] = [];

  beforeAll(async () => {
    // A stand-in for a local OpenAI-compatible model server, on loopback.
    upstream = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => {
        body += c;
      });
      req.on("end", () => {
        seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
        const parsed = JSON.parse(body) as { stream?: boolean };
        if (req.url === "/v1/chat/completions" && parsed.stream) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          // Two writes, so the stream really is piped rather than buffered in one piece.
          res.write(STREAM.slice(0, 30));
          setTimeout(() => res.end(STREAM.slice(30)), 20);
          return;
        }
        if (req.url === "/v1/chat/completions" || req.url === "/v1/completions") {
          res.writeHead(200, { "content-type": "application/json", "x-request-id": "up-1" });
          res.end(JSON.stringify({ id: "up", object: "upstream", url: req.url }));
          return;
        }
        res.writeHead(404, { "content-type": "application/json" });
        res.end('{"error":{"message":"no"}}');
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1/`;
    emulator = await startEmulator({
      port: 0,
      upstream: upstreamUrl,
      upstreamApiKey: "upstream-secret",
    });
  });

  afterAll(async () => {
    await emulator.close();
    upstream.closeAllConnections();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });

  beforeEach(() => {
    seen.length = 0;
  });

  it("forwards chat completions with the body as is and the upstream's own key", async () => {
    const body = {
      model: "llama3",
      messages: [{ role: "user", content: "hi" }],
      custom_field: [1, 2],
    };
    const r = await inference(emulator, PATHS.chatCompletions, body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: "up", object: "upstream", url: "/v1/chat/completions" });
    expect(r.headers["x-request-id"]).toBe("up-1");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe("POST");
    expect(seen[0]!.body).toBe(JSON.stringify(body));
    expect(seen[0]!.headers.authorization).toBe("Bearer upstream-secret");
    expect(JSON.stringify(seen[0]!.headers)).not.toContain(emulator.apiKey);
  });

  it("pipes a streamed answer through unchanged", async () => {
    const r = await inference(emulator, PATHS.chatCompletions, {
      model: "llama3",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/event-stream");
    expect(r.text).toBe(STREAM);
  });

  it("forwards text completions to the OpenAI-compatible /completions path", async () => {
    const r = await inference(emulator, PATHS.textCompletions, { model: "llama3", prompt: "hi" });
    expect(r.body).toMatchObject({ url: "/v1/completions" });
  });

  it("still requires the emulator's key", async () => {
    const r = await call<ErrorBody>("POST", `${emulator.proxyUrl}${PATHS.chatCompletions}`, {
      body: { model: "llama3", messages: [] },
    });
    expect(r.status).toBe(401);
    expect(seen).toHaveLength(0);
  });

  it("answers 502 with a clear error when the upstream is down", async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, "127.0.0.1", resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    const orphan = await startEmulator({ port: 0, upstream: `http://127.0.0.1:${port}` });
    try {
      const r = await inference<ErrorBody>(orphan, PATHS.chatCompletions, {
        model: "x/y",
        messages: [],
      });
      expect(r.status).toBe(502);
      expect(r.body.error.code).toBe("upstream_unreachable");
      expect(r.body.error.message).toContain(`http://127.0.0.1:${port}/chat/completions`);
    } finally {
      await orphan.close();
    }
  });
});
