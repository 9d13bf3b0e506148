/**
 * Slow servers: the request timeout and the stream idle timeout fire within their bound (plus a
 * margin, on the time less the event loop's stalls, so that load does not decide the outcome:
 * these are correctness bounds, not speed targets), and every socket is given back afterwards.
 */
import { Agent } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { type EmulatorHandle, startEmulator } from "../../../src/emulator";
import { StudioTimeoutError } from "../../../src/errors";
import { StudioLLM } from "../../../src/llms";
import { runFixture } from "../../helpers/fixture-process";
import { useInstantRetries } from "../../unit/client/retry-clock";
import { chatChunks, type Loopback, sseBytes, startLoopback } from "./loopback";

// The pauses between retries pass on the retry clock at once; the timeouts are real.
const retryClock = useInstantRetries();

// Upper bounds are on the time less the event loop's stalls (`timed`), so load does not move them.
const MARGIN_MS = 1000;
const MODEL = "studio/echo-small";

let server: Loopback;
/** The dispatcher of the client made last; its stats show the sockets that client holds. */
let agent: Agent;
const clients: StudioClient[] = [];
const agents: Agent[] = [];

beforeAll(async () => {
  server = await startLoopback((req, res) => {
    const url = req.url ?? "";
    if (url.startsWith("/stall-stream")) {
      // Headers and the first events, then silence: only the idle timeout can end this.
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(sseBytes(chatChunks(["Hel", "lo"]).slice(0, 2), false));
      return;
    }
    if (url.startsWith("/slow-events")) {
      // A complete answer, but written one event per 150 ms.
      res.writeHead(200, { "content-type": "text/event-stream" });
      const events = [...chatChunks(["a", "b", "c", "d"]).map((c) => JSON.stringify(c)), "[DONE]"];
      let i = 0;
      const timer = setInterval(() => {
        const event = events[i++];
        if (event === undefined) {
          clearInterval(timer);
          res.end();
          return;
        }
        res.write(`data: ${event}\n\n`);
      }, 150);
      res.on("close", () => clearInterval(timer));
      return;
    }
    // "/stall": read the request, never answer.
  });
});

afterAll(async () => {
  await server.close();
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const a of agents.splice(0)) await a.close();
});

/**
 * undici keeps an aborted request's socket as idle when the next request starts in the same tick
 * (a retry on the instant clock, or the next call of a test) and closes it only after its
 * keep-alive timeout, 4 s by default. A short keep-alive closes such idle sockets sooner; it only
 * touches idle ones, so a socket a leaked request still holds (the stall server never answers)
 * stays connected and still fails the checks below.
 */
const IDLE_SOCKET_KEEP_ALIVE_MS = 250;

function client(options: ConstructorParameters<typeof StudioClient>[0]): StudioClient {
  agent = new Agent({ keepAliveTimeout: IDLE_SOCKET_KEEP_ALIVE_MS });
  agents.push(agent);
  const made = new StudioClient({ apiKey: "test-key", dispatcher: agent, ...options });
  clients.push(made);
  return made;
}

/**
 * How long this process's event loop was held up, in total, from now until `stop()`: a 10 ms
 * ticker adds up how late each of its ticks ran. A busy machine delays every timer of the process,
 * a timeout's too, by about that much.
 */
function loopStalls(tickMs = 10): { stop: () => number } {
  let total = 0;
  let due = performance.now() + tickMs;
  const ticker = setInterval(() => {
    const now = performance.now();
    total += Math.max(0, now - due);
    due = now + tickMs;
  }, tickMs);
  return {
    stop: () => {
      clearInterval(ticker);
      return total + Math.max(0, performance.now() - due);
    },
  };
}

/**
 * The rejection of `promise`, how long it took (`ms`, for lower bounds: load never makes a timer
 * fire early), and that time less the loop's stalls meanwhile (`ms` on an idle machine, for upper
 * bounds, so they check the timers and not the machine's load: a timer that fires late on an idle
 * loop still fails them).
 */
async function timed(
  promise: Promise<unknown>,
): Promise<{ error: unknown; elapsed: number; ms: number }> {
  const started = performance.now();
  const stalls = loopStalls();
  try {
    await promise;
  } catch (error) {
    const elapsed = performance.now() - started;
    return { error, elapsed, ms: elapsed - stalls.stop() };
  }
  stalls.stop();
  throw new Error("expected the call to fail");
}

/**
 * Polls `check` for up to `ms`; resolves with its last value. The default covers undici's own
 * keep-alive timeout (4 s, when a test's dispatcher does not shorten it): when a request is
 * aborted and the next one starts in the same tick, bare undici parks the aborted socket as idle
 * and closes it only then.
 */
async function eventually<T>(check: () => T, ok: (value: T) => boolean, ms = 6000): Promise<T> {
  const until = Date.now() + ms;
  let value = check();
  while (!ok(value) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = check();
  }
  return value;
}

/** `check()` once it is 0, or its last value when it does not get there in time. */
function eventuallyZero(check: () => number): Promise<number> {
  return eventually(check, (n) => n === 0);
}

function connected(a: Agent): number {
  return Object.values(a.stats).reduce((sum, s) => sum + Number(s.connected), 0);
}

function busy(a: Agent): number {
  return Object.values(a.stats).reduce((sum, s) => sum + s.running + s.pending, 0);
}

describe("request timeout", () => {
  it("ChatStudio.invoke against a server that never answers: StudioTimeoutError within timeout + margin, socket released", async () => {
    const before = server.openSockets();
    const model = new ChatStudio({
      model: MODEL,
      client: client({ proxyUrl: `${server.origin}/stall`, maxRetries: 0, timeout: 400 }),
    });
    const { error, elapsed, ms } = await timed(model.invoke("hello"));
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect((error as StudioTimeoutError).timeoutMs).toBe(400);
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(ms).toBeLessThan(400 + MARGIN_MS);
    expect(await eventuallyZero(() => busy(agent))).toBe(0);
    expect(await eventuallyZero(() => connected(agent))).toBe(0);
    expect(
      await eventually(
        () => server.openSockets(),
        (n) => n <= before,
      ),
    ).toBe(before);
  });

  it("StudioLLM: the constructor timeout fires within its bound as StudioTimeoutError", async () => {
    const llm = new StudioLLM({
      model: MODEL,
      client: client({ proxyUrl: `${server.origin}/stall`, maxRetries: 0, timeout: 300 }),
    });
    const { error, ms } = await timed(llm.invoke("hello"));
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect(ms).toBeLessThan(300 + MARGIN_MS);
    expect(await eventuallyZero(() => connected(agent))).toBe(0);
  });

  it("a per-call timeout fires within its bound too (core turns it into an abort signal)", async () => {
    const llm = new StudioLLM({
      model: MODEL,
      client: client({ proxyUrl: `${server.origin}/stall`, maxRetries: 0, timeout: 60_000 }),
    });
    const chat = new ChatStudio({ model: MODEL, client: llm.client });
    const calls = [
      () => llm.invoke("hello", { timeout: 300 }),
      () => chat.invoke("hello", { timeout: 300 }),
    ];
    for (const call of calls) {
      const { error, ms } = await timed(call());
      // LangChain's RunnableConfig.timeout is enforced by core as AbortSignal.timeout.
      expect(["StudioTimeoutError", "TimeoutError"]).toContain((error as Error).name);
      expect(ms).toBeLessThan(300 + MARGIN_MS);
    }
    expect(await eventuallyZero(() => connected(agent))).toBe(0);
  });

  it("retried timeouts stay bounded: (1 + maxRetries) attempts and their backoff, nothing more", async () => {
    const before = server.seen.length;
    const c = client({ proxyUrl: `${server.origin}/stall`, maxRetries: 1, timeout: 200 });
    const { error, ms } = await timed(
      c.chatCompletion({ model: MODEL, messages: [{ role: "user", content: "x" }] }),
    );
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect(server.seen.length - before).toBe(2);
    // Two timeouts and one backoff of at most 0.5 s (which passed on the retry clock).
    expect(ms).toBeLessThan(2 * 200 + 500 + MARGIN_MS);
    expect(retryClock.sleeps).toHaveLength(1);
    expect(retryClock.sleeps[0]).toBeLessThanOrEqual(500);
    expect(await eventuallyZero(() => connected(agent))).toBe(0);
  });
});

describe("emulator latency", () => {
  let emulator: EmulatorHandle;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, faults: { latencyMs: 3000 } });
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("a slow studio call (history read) times out within its bound and frees the socket", async () => {
    const c = client({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey, timeout: 300 });
    const history = new StudioChatMessageHistory({ client: c, threadId: "thread_slow" });
    const { error, ms } = await timed(history.getMessages());
    expect(error).toBeInstanceOf(StudioTimeoutError);
    // A read is retried after a timeout: 3 attempts of 300 ms and backoff of at most 0.5 + 1 s.
    expect(ms).toBeLessThan(3 * 300 + 1500 + MARGIN_MS);
    expect(retryClock.sleeps).toHaveLength(2);
    expect(retryClock.sleeps[0]! + retryClock.sleeps[1]!).toBeLessThanOrEqual(1500);
    expect(await eventuallyZero(() => busy(agent))).toBe(0);
    expect(await eventuallyZero(() => connected(agent))).toBe(0);
  });

  it("a slow chat completion times out within its bound", async () => {
    const model = new ChatStudio({
      model: MODEL,
      client: client({
        proxyUrl: emulator.proxyUrl,
        apiKey: emulator.apiKey,
        maxRetries: 0,
        timeout: 500,
      }),
    });
    const { error, ms } = await timed(model.invoke("hello"));
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect(ms).toBeLessThan(500 + MARGIN_MS);
  });
});

describe("stream idle timeout", () => {
  /** On the stream of one event per 150 ms, with an idle bound well above that. */
  function slowEventsModel(): ChatStudio {
    return new ChatStudio({
      model: MODEL,
      client: client({
        proxyUrl: `${server.origin}/slow-events`,
        streamIdleTimeout: 400,
        maxRetries: 0,
      }),
    });
  }

  it("a stream that goes silent raises StudioTimeoutError within the idle bound, after the chunks that came", async () => {
    const model = new ChatStudio({
      model: MODEL,
      client: client({
        proxyUrl: `${server.origin}/stall-stream`,
        timeout: 30_000,
        streamIdleTimeout: 400,
        maxRetries: 0,
      }),
    });
    const seen: string[] = [];
    let lastChunkAt = performance.now();
    let stallsSinceChunk = loopStalls();
    const { error } = await timed(
      (async () => {
        for await (const chunk of await model.stream("hello")) {
          seen.push(String(chunk.content));
          lastChunkAt = performance.now();
          stallsSinceChunk.stop();
          stallsSinceChunk = loopStalls();
        }
      })(),
    );
    const silentFor = performance.now() - lastChunkAt;
    const stalled = stallsSinceChunk.stop();
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect(seen.join("")).toBe("Hel");
    expect(silentFor).toBeGreaterThanOrEqual(390);
    expect(silentFor - stalled).toBeLessThan(400 + MARGIN_MS);
    expect(await eventuallyZero(() => busy(agent))).toBe(0);
    expect(await eventuallyZero(() => connected(agent))).toBe(0);
  });

  it("a slow reader is not the server's silence: a consumer slower than the idle bound still gets the whole answer", async () => {
    const model = slowEventsModel();
    let text = "";
    for await (const chunk of await model.stream("hello")) {
      text += chunk.content;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(text).toBe("abcd");
  });

  it("events that keep coming, each within the idle bound, never trip it", async () => {
    const model = slowEventsModel();
    let text = "";
    for await (const chunk of await model.stream("hello")) text += chunk.content;
    expect(text).toBe("abcd");
  });
});

describe("no leaked handles", () => {
  it("a process that timed out a call and a stream, without closing anything, exits on its own", async () => {
    const { code, stdout, stderr } = await runFixture(
      new URL("./fixtures/slow-calls.ts", import.meta.url),
      [server.origin],
    );
    // Once its work is done, the process must not linger on an open socket or timer: the fixture
    // exits with code 3 and names what is open if anything holds it 2 s after its work.
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const outcome = JSON.parse(stdout.trim()) as Record<string, unknown>;
    expect(outcome).toMatchObject({ invoke: "StudioTimeoutError", stream: "StudioTimeoutError" });
  }, 40_000);
});
