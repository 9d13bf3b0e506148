/**
 * The one transport on Node's default engine (undici's fetch over the client's keep-alive Agent)
 * against real loopback servers started here: keep-alive reuse, streaming, cancellation,
 * timeouts, redirects, connection failures, and the `dispatcher` and `connections` options. No
 * emulator involved.
 */
import { Agent } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import {
  StudioAPIError,
  StudioConnectionError,
  StudioStreamError,
  StudioTimeoutError,
} from "../../../src/errors";
import { useInstantRetries } from "../../unit/client/retry-clock";
import { sendJson, startServer, type TestServer, waitFor } from "./server";

// The pauses between retries pass on the retry clock, at once.
useInstantRetries();

const KEY = "sk-integration-key-9876543210";
const CHAT = {
  id: "chatcmpl_1",
  object: "chat.completion",
  created: 1,
  model: "owner/model",
  choices: [{ index: 0, message: { role: "assistant", content: "héllo" }, finish_reason: "stop" }],
};
const THREAD = { id: "thread_1", object: "thread" };
const body = { model: "owner/model", messages: [{ role: "user" as const, content: "hi" }] };

function chunk(content: string, finish: string | null = null): string {
  const payload = { id: "c", choices: [{ index: 0, delta: { content }, finish_reason: finish }] };
  return `data: ${JSON.stringify(payload)}\n\n`;
}

let server: TestServer;
let client: StudioClient;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server.close();
});

afterEach(async () => {
  await client?.close();
  server.requests.length = 0;
  server.sockets.clear();
});

/** Drains a chat stream and returns what it threw (undefined if it completed). */
async function streamError(c: StudioClient): Promise<unknown> {
  try {
    for await (const _ of c.streamChatCompletion(body));
  } catch (e) {
    return e;
  }
  return undefined;
}

function newClient(options: ConstructorParameters<typeof StudioClient>[0] = {}): StudioClient {
  client = new StudioClient({
    apiKey: KEY,
    baseUrl: `${server.url}/`,
    proxyUrl: server.url,
    ...options,
  });
  return client;
}

/**
 * Answers with a stream of up to 500 chunks, 5 ms apart: long enough that only a client going
 * away early ends it before the end, and bounded if it never does.
 */
function serveLongStream(): { written: () => number; clientLeft: () => boolean } {
  let written = 0;
  let clientLeft = false;
  server.handle(async (_req, res) => {
    res.on("close", () => {
      clientLeft = !res.writableFinished;
    });
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (let i = 0; i < 500 && !res.destroyed; i++) {
      res.write(chunk(`part ${i}`));
      written++;
      await new Promise((r) => setTimeout(r, 5));
    }
    res.end("data: [DONE]\n\n");
  });
  return { written: () => written, clientLeft: () => clientLeft };
}

describe("undici transport", () => {
  it("makes calls over one kept-alive connection with the right headers", async () => {
    server.handle((req, res) =>
      req.url === "/chat/completions" ? sendJson(res, 200, CHAT) : sendJson(res, 200, THREAD),
    );
    const c = newClient({ orgId: "org_1" });
    for (let i = 0; i < 5; i++) {
      expect((await c.chatCompletion(body)).choices[0]?.message.content).toBe("héllo");
    }
    await c.getThread("thread_1");
    expect(server.requests).toHaveLength(6);
    // One pool, kept alive: undici may open a second socket when the next call starts before
    // the first socket's "drain" tick (bare undici does the same), but never one per call.
    expect(server.sockets.size).toBeLessThanOrEqual(2);
    const [first] = server.requests;
    expect(first?.headers.authorization).toBe(KEY);
    expect(first?.headers["x-org-id"]).toBe("org_1");
    expect(first?.headers["x-service-key"]).toBeUndefined();
    expect(first?.headers["user-agent"]).toMatch(/^langchain-studio\//);
    expect(JSON.parse(first?.body ?? "")).toEqual(body);
    const last = server.requests[5];
    expect(last?.url).toBe("/v1/threads/thread_1");
    expect(last?.headers["x-service-key"]).toBe(KEY);
    expect(last?.headers.authorization).toBeUndefined();
    expect(last?.headers["content-type"]).toBeUndefined();
  });

  it("bounds its pool: 20 concurrent calls use at most `connections` sockets", async () => {
    server.handle((_req, res) => {
      setTimeout(() => sendJson(res, 200, CHAT), 20);
    });
    const c = newClient({ connections: 3 });
    const replies = await Promise.all(Array.from({ length: 20 }, () => c.chatCompletion(body)));
    expect(replies).toHaveLength(20);
    expect(server.requests).toHaveLength(20);
    expect(server.sockets.size).toBeLessThanOrEqual(3);
  });

  it("streams chunks as they arrive, with characters split across writes", async () => {
    server.handle(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const whole = Buffer.from(`${chunk("h👋")}${chunk("é", "stop")}data: [DONE]\n\n`);
      // Write in 3-byte pieces so that multi-byte characters straddle reads.
      for (let i = 0; i < whole.length; i += 3) {
        res.write(whole.subarray(i, i + 3));
        if (i % 30 === 0) await new Promise((r) => setTimeout(r, 1));
      }
      res.end();
    });
    const c = newClient();
    const parts: string[] = [];
    for await (const ch of c.streamChatCompletion(body))
      parts.push(ch.choices[0]?.delta?.content ?? "");
    expect(parts).toEqual(["h👋", "é"]);
    expect(server.requests[0]?.headers.accept).toBe("text/event-stream");
    expect(JSON.parse(server.requests[0]?.body ?? "").stream).toBe(true);
  });

  it("an early break cancels the request and the server sees the connection go", async () => {
    const stream = serveLongStream();
    const c = newClient();
    let seen = 0;
    for await (const _ of c.streamChatCompletion(body)) {
      if (++seen === 3) break;
    }
    expect(seen).toBe(3);
    expect(await waitFor(stream.clientLeft)).toBe(true);
    expect(stream.written()).toBeLessThan(500);
  });

  it("after [DONE] the connection goes back to the pool", async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`${chunk("a", "stop")}data: [DONE]\n\n`);
    });
    const c = newClient();
    for (let i = 0; i < 6; i++) {
      const all = [];
      for await (const ch of c.streamChatCompletion(body)) all.push(ch);
      expect(all).toHaveLength(1);
    }
    // Reused, not destroyed (see the first test for why two sockets can appear).
    expect(server.sockets.size).toBeLessThanOrEqual(2);
  });

  it("a stream cut by the server mid-way is a StudioStreamError", async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk("a"));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const c = newClient();
    const seen: unknown[] = [];
    let error: unknown;
    try {
      for await (const ch of c.streamChatCompletion(body)) seen.push(ch);
    } catch (e) {
      error = e;
    }
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(StudioStreamError);
    expect(server.requests).toHaveLength(1);
  });

  it("a stream idle longer than streamIdleTimeout fails and releases the socket", async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk("a"));
    });
    const c = newClient({ streamIdleTimeout: 100 });
    const error = await streamError(c);
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect(await waitFor(() => server.openSockets() === 0)).toBe(true);
  });

  it("a timeout destroys the request so the socket is released", async () => {
    server.handle(() => {
      /* never answers */
    });
    const c = newClient({ timeout: 100, maxRetries: 0 });
    expect(await c.getThread("t").catch((e: unknown) => e)).toBeInstanceOf(StudioTimeoutError);
    expect(await waitFor(() => server.openSockets() === 0)).toBe(true);
  });

  it("an abort destroys the request so the socket is released", async () => {
    server.handle(() => {
      /* never answers */
    });
    const c = newClient();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await c
      .chatCompletion(body, { signal: controller.signal })
      .catch((e: Error) => e);
    expect((error as Error).name).toBe("AbortError");
    expect(await waitFor(() => server.openSockets() === 0)).toBe(true);
  });

  it("does not follow a redirect to another origin, and that origin never sees the key", async () => {
    const other = await startServer((_req, res) => sendJson(res, 200, THREAD));
    try {
      server.handle((_req, res) => {
        res.writeHead(302, { location: `${other.url}/v1/threads/t` });
        res.end();
      });
      const c = newClient();
      const error = (await c.getThread("t").catch((e: unknown) => e)) as StudioAPIError;
      expect(error).toBeInstanceOf(StudioAPIError);
      expect(error.status).toBe(302);
      expect(error.message).toContain(other.url);
      expect(other.requests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it("a reset after a create was sent is not retried and may have reached the server", async () => {
    server.handle((req) => req.socket.destroy());
    const c = newClient();
    const error = (await c.createThread({}).catch((e: unknown) => e)) as StudioConnectionError;
    expect(error).toBeInstanceOf(StudioConnectionError);
    expect(error.mayHaveReachedServer).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it("a reset on a read is retried", async () => {
    server.handle((req, res) =>
      server.requests.length === 1 ? req.socket.destroy() : sendJson(res, 200, THREAD),
    );
    const c = newClient();
    expect((await c.getThread("t")).id).toBe("thread_1");
    expect(server.requests).toHaveLength(2);
  });

  it("a refused connection did not reach the server", async () => {
    const gone = await startServer();
    const url = gone.url;
    await gone.close();
    const c = newClient({ baseUrl: url, maxRetries: 0 });
    const error = (await c.createThread({}).catch((e: unknown) => e)) as StudioConnectionError;
    expect(error).toBeInstanceOf(StudioConnectionError);
    expect(error.mayHaveReachedServer).toBe(false);
    expect(error.message).toContain("ECONNREFUSED");
    expect(JSON.stringify(error) + String(error)).not.toContain(KEY);
  });

  it("uses a caller's dispatcher and leaves it open on close()", async () => {
    server.handle((_req, res) => sendJson(res, 200, THREAD));
    const agent = new Agent();
    let dispatched = 0;
    const dispatch = agent.dispatch.bind(agent);
    agent.dispatch = (options, handler) => {
      dispatched++;
      return dispatch(options, handler);
    };
    try {
      const c = newClient({ dispatcher: agent });
      await c.getThread("t");
      expect(dispatched).toBe(1);
      await c.close();
      expect(agent.closed).toBe(false);
      expect(agent.destroyed).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it("close() releases the pooled sockets", async () => {
    server.handle((_req, res) => sendJson(res, 200, THREAD));
    const c = newClient();
    await c.getThread("t");
    expect(server.openSockets()).toBe(1);
    await c.close();
    expect(await waitFor(() => server.openSockets() === 0)).toBe(true);
  });
});

describe("fetch transport against a real server", () => {
  it("an early break cancels the request", async () => {
    const stream = serveLongStream();
    const c = newClient({ fetch: globalThis.fetch });
    let seen = 0;
    for await (const _ of c.streamChatCompletion(body)) {
      if (++seen === 2) break;
    }
    expect(await waitFor(stream.clientLeft)).toBe(true);
  });

  it("does not follow redirects either", async () => {
    const other = await startServer((_req, res) => sendJson(res, 200, CHAT));
    try {
      server.handle((_req, res) => {
        res.writeHead(307, { location: `${other.url}/chat/completions` });
        res.end();
      });
      const c = newClient({ fetch: globalThis.fetch });
      const error = (await c.chatCompletion(body).catch((e: unknown) => e)) as StudioAPIError;
      expect(error.status).toBe(307);
      expect(other.requests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });
});

describe("undici transport: bodies", () => {
  it("refuses a 2xx body over maxResponseBytes, declared or chunked", async () => {
    const big = JSON.stringify({ ...THREAD, pad: "x".repeat(10_000) });
    server.handle((req, res) => {
      if (req.url.endsWith("/declared")) {
        res.writeHead(200, { "content-type": "application/json", "content-length": big.length });
        res.end(big);
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        for (let i = 0; i < big.length; i += 1000) res.write(big.slice(i, i + 1000));
        res.end();
      }
    });
    const c = newClient({ maxResponseBytes: 4096 });
    for (const id of ["declared", "chunked"]) {
      const error = (await c.getThread(id).catch((e: unknown) => e)) as Error;
      expect(error.name).toBe("StudioResponseError");
      expect(error.message).toContain("maxResponseBytes (4096 bytes");
    }
  });

  it("keeps only the start of a huge error body and still reports the status", async () => {
    server.handle((_req, res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`upstream exploded ${"!".repeat(200_000)}`);
    });
    const c = newClient({ maxRetries: 0 });
    const error = (await c.getThread("t").catch((e: unknown) => e)) as StudioAPIError;
    expect(error.status).toBe(500);
    expect(error.message).toContain("upstream exploded");
    expect(error.message.length).toBeLessThan(600);
  });

  it("an error status on a stream request carries the server's message", async () => {
    server.handle((_req, res) => sendJson(res, 429, { error: { message: "too many" } }));
    const c = newClient({ maxRetries: 0 });
    const error = await streamError(c);
    expect((error as StudioAPIError).status).toBe(429);
    expect((error as Error).message).toContain("too many");
  });
});

describe("undici transport: values read with their line end", () => {
  it("a key and org id ending in a newline (read from a file) are sent without it", async () => {
    server.handle((req, res) =>
      req.url === "/chat/completions" ? sendJson(res, 200, CHAT) : sendJson(res, 200, THREAD),
    );
    const c = newClient({ apiKey: `${KEY}\n`, orgId: "org_1\n", maxRetries: 0 });
    await c.chatCompletion(body);
    await c.getThread("thread_1");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.headers.authorization).toBe(KEY);
    expect(server.requests[0]?.headers["x-org-id"]).toBe("org_1");
    expect(server.requests[1]?.headers["x-service-key"]).toBe(KEY);
  });
});

describe("undici transport: huge error body on a stream request", () => {
  it("keeps the start of the body for the message instead of dropping it", async () => {
    server.handle((_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end(`<html><body>gateway exploded ${"!".repeat(200_000)}</body></html>`);
    });
    const c = newClient({ maxRetries: 0 });
    const error = await streamError(c);
    expect((error as StudioAPIError).status).toBe(502);
    expect((error as Error).message).toContain("gateway exploded");
    expect((error as Error).message.length).toBeLessThan(600);
  });
});

describe("undici transport: endless stream event", () => {
  it("an event that never ends is abandoned at maxResponseBytes", async () => {
    let written = 0;
    server.handle(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"id":"c","choices":[{"index":0,"delta":{"content":"');
      const piece = Buffer.alloc(16 * 1024, "a");
      // Bounded: 4 MiB at most, unless the client hangs up first.
      while (written < 4 * 1024 * 1024 && !res.destroyed) {
        const ok = res.write(piece);
        written += piece.length;
        if (!ok) await new Promise((r) => setTimeout(r, 1));
      }
      res.end();
    });
    const c = newClient({ maxResponseBytes: 256 * 1024 });
    const error = await streamError(c);
    expect(error).toBeInstanceOf(StudioStreamError);
    expect((error as Error).message).toContain("maxResponseBytes");
    expect(written).toBeLessThan(4 * 1024 * 1024);
  });
});

describe("the idle clock counts complete events, on a real socket", () => {
  it("a server trickling one byte of an event that never ends is cut at streamIdleTimeout", async () => {
    let trickled = 0;
    server.handle(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk("a"));
      res.write('data: {"id":"c","choices":[{"index":0,"delta":{"content":"');
      // Bounded: 200 bytes at most, 25 ms apart.
      for (let i = 0; i < 200 && !res.destroyed; i++) {
        await new Promise((r) => setTimeout(r, 25));
        res.write("x");
        trickled++;
      }
      res.end();
    });
    const c = newClient({ streamIdleTimeout: 300, maxRetries: 0 });
    const seen: unknown[] = [];
    let error: unknown;
    try {
      for await (const item of c.streamChatCompletion(body)) seen.push(item);
    } catch (e) {
      error = e;
    }
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect((error as Error).message).toContain("streamIdleTimeout");
    // Bytes kept coming the whole time; they did not hold the stream open.
    expect(trickled).toBeGreaterThan(3);
    expect(trickled).toBeLessThan(200);
  });
});
