/**
 * Every client option given to ChatStudio or StudioLLM reaches the wire or the transport: one
 * test per option and class, against the emulator (and, for `connections`, a loopback server
 * that counts sockets).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, type Dispatcher } from "undici";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ChatStudio } from "../../../src/chat_models";
import type { StudioClientOptions } from "../../../src/client/options";
import { StudioError } from "../../../src/errors";
import { StudioLLM } from "../../../src/llms";
import { useEmulator } from "../../helpers/emulator";
import { useInstantRetries } from "../../unit/client/retry-clock";

const emulator = useEmulator();
const slowEmulator = useEmulator({ chunkDelayMs: 200 });
// The pauses between retries pass on the retry clock, at once, and are recorded.
const clock = useInstantRetries();

type AnyModel = ChatStudio | StudioLLM;
const built: AnyModel[] = [];

const classes = [
  {
    name: "ChatStudio",
    path: "/chat/completions",
    make: (options: StudioClientOptions): AnyModel => new ChatStudio("studio/echo-small", options),
  },
  {
    name: "StudioLLM",
    path: "/text/completions",
    make: (options: StudioClientOptions): AnyModel => new StudioLLM("studio/echo-text", options),
  },
] as const;

function make(kind: (typeof classes)[number], options: StudioClientOptions = {}): AnyModel {
  const { apiKey, proxyUrl } = emulator.handle;
  const model = kind.make({ apiKey, proxyUrl, ...options });
  built.push(model);
  return model;
}

async function drain(model: AnyModel): Promise<void> {
  for await (const _ of await model.stream("hello there")) {
    // read it all
  }
}

afterEach(() => {
  emulator.handle.setFaults(undefined);
  emulator.handle.clearRequests();
});
afterAll(async () => {
  await Promise.all(built.map((m) => m.client.close()));
});

describe.each(classes)("$name: client options reach the wire", (kind) => {
  const completions = () => emulator.handle.requests.filter((r) => r.path.endsWith(kind.path));

  it("apiKey and proxyUrl: the call is authorised at the inference address", async () => {
    await make(kind).invoke("hi");
    expect(completions()).toHaveLength(1);
    expect(completions()[0]?.headers.authorization).toBe("[REDACTED]");
  });

  it("orgId is sent as X-Org-Id", async () => {
    await make(kind, { orgId: "org-42" }).invoke("hi");
    expect(completions()[0]?.headers["x-org-id"]).toBe("org-42");
  });

  it("defaultHeaders are on the request", async () => {
    await make(kind, { defaultHeaders: { "x-team": "blue" } }).invoke("hi");
    expect(completions()[0]?.headers["x-team"]).toBe("blue");
  });

  it("fetch is the one called", async () => {
    const urls: string[] = [];
    const fetch = (input: string | URL | Request, init?: RequestInit) => {
      urls.push(String(input instanceof Request ? input.url : input));
      return globalThis.fetch(input, init);
    };
    await make(kind, { fetch }).invoke("hi");
    expect(urls).toEqual([`${emulator.handle.proxyUrl}${kind.path}`]);
  });

  it("dispatcher carries the request", async () => {
    let dispatched = 0;
    const agent = new Agent();
    const counting = Object.assign(Object.create(agent), {
      dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
        dispatched++;
        return agent.dispatch(options, handler);
      },
    }) as Agent;
    await make(kind, { dispatcher: counting }).invoke("hi");
    expect(dispatched).toBe(1);
    await agent.close();
  });

  it("maxRetries: 2 against an always-503 server is 3 attempts", async () => {
    emulator.handle.setFaults({ rate503Before: 1 });
    await expect(make(kind, { maxRetries: 2 }).invoke("hi")).rejects.toBeInstanceOf(StudioError);
    expect(completions()).toHaveLength(3);
    // The retries waited on the client's backoff (the emulator's 503 has no Retry-After):
    // 0.5 s, then 1 s, each less up to 25% jitter, passed at once on the retry clock.
    expect(clock.sleeps).toHaveLength(2);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(375);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(500);
    expect(clock.sleeps[1]).toBeGreaterThanOrEqual(750);
    expect(clock.sleeps[1]).toBeLessThanOrEqual(1000);
  });

  it("timeout ends a call the server does not answer in time", async () => {
    emulator.handle.setFaults({ latencyMs: 2_000 });
    const error = await make(kind, { timeout: 50, maxRetries: 0 })
      .invoke("hi")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioError);
    expect(String((error as Error).message)).toMatch(/timeout|timed out/i);
  });

  it("maxResponseBytes refuses a larger body", async () => {
    const error = await make(kind, { maxResponseBytes: 64, maxRetries: 0 })
      .invoke("hi")
      .catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(/maxResponseBytes/);
  });

  it("streamIdleTimeout ends a stream that goes quiet", async () => {
    const { apiKey, proxyUrl } = slowEmulator.handle;
    const model = kind.make({ apiKey, proxyUrl, streamIdleTimeout: 40, maxRetries: 0 });
    built.push(model);
    await expect(drain(model)).rejects.toThrow(/streamIdleTimeout/);
  });

  it("streamTimeout ends a stream that takes too long overall", async () => {
    const { apiKey, proxyUrl } = slowEmulator.handle;
    const model = kind.make({ apiKey, proxyUrl, streamTimeout: 300, maxRetries: 0 });
    built.push(model);
    await expect(drain(model)).rejects.toThrow(/streamTimeout/);
  });

  it("baseUrl reaches the client (the studio address; ChatStudio reads its listing there)", async () => {
    const model = make(kind, { baseUrl: emulator.handle.baseUrl });
    expect(model.client.toJSON().baseUrl).toBe(emulator.handle.baseUrl);
    if (model instanceof ChatStudio) {
      expect((await model.loadProfile()).maxInputTokens).toBe(8192);
      expect(emulator.handle.requests.some((r) => r.path.endsWith("/ListPublicModels"))).toBe(true);
    }
  });
});

describe("connections bounds the sockets of the model's own pool", () => {
  /** A loopback server answering any completion, counting the sockets opened to it. */
  async function countingServer(): Promise<{
    url: string;
    sockets: () => number;
    close: () => Promise<void>;
  }> {
    let sockets = 0;
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        const choice = req.url?.endsWith("/chat/completions")
          ? { index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }
          : { index: 0, text: "ok", finish_reason: "stop" };
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ id: "x", created: 1, model: "o/m", choices: [choice] }));
      });
    });
    server.on("connection", () => {
      sockets++;
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/inference`,
      sockets: () => sockets,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it.each(classes)("$name", async (kind) => {
    const server = await countingServer();
    try {
      for (const [connections, expected] of [
        [1, 1],
        [4, 4],
      ] as const) {
        const before = server.sockets();
        const model = kind.make({
          apiKey: "sk-connections-0123456789",
          proxyUrl: server.url,
          connections,
        });
        built.push(model);
        await Promise.all(["a", "b", "c", "d"].map((p) => model.invoke(p)));
        expect(server.sockets() - before).toBe(expected);
        await model.client.close();
      }
    } finally {
      await server.close();
    }
  });
});
