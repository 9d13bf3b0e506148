/**
 * Emulator throughput: small non-streaming chat completions over 32 keep-alive connections, and
 * one stream of ~10,000 chunks. The emulator runs in a child process so it does not share a core
 * with the load generator (the target is set for a 2-core machine).
 *
 *   npx tsx bench/emulator.ts
 */
import { Pool } from "undici";
import { startChildEmulator } from "./emulator-child";
import { type BenchEntry, type BenchRow, median, runIfMain, runWithConcurrency } from "./harness";

const CONNECTIONS = 32;
const ROUND_MS = 1_000;
const ROUNDS = 5;
const WARMUP_MS = 1_000;
const STREAM_ROUNDS = 7;
const TARGET_RPS = 5_000;

/** The undici pool wants an origin; requests carry the proxy address's path. */
interface Endpoint {
  pool: Pool;
  path: string;
  apiKey: string;
}

/** Completions per second over `ms`, with `CONNECTIONS` requests always in flight. */
async function throughput(endpoint: Endpoint, ms: number): Promise<number> {
  const body = JSON.stringify({
    model: "studio/echo-small",
    messages: [{ role: "user", content: "Hello, how are you?" }],
    max_tokens: 16,
  });
  const headers = { "content-type": "application/json", authorization: endpoint.apiKey };
  const path = `${endpoint.path}/chat/completions`;
  const result = await runWithConcurrency(
    Number.POSITIVE_INFINITY,
    CONNECTIONS,
    async () => {
      const response = await endpoint.pool.request({ method: "POST", path, headers, body });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
    },
    { deadlineMs: ms },
  );
  if (result.errors > 0) throw new Error(`${result.errors} requests failed: ${result.firstError}`);
  return result.rate;
}

/** One stream of ~10,000 token chunks: total ms and the number of events received. */
async function longStream(endpoint: Endpoint): Promise<{ ms: number; events: number }> {
  // "You said: " + 4,998 words separated by spaces = 10,000 token chunks.
  const words = Array.from({ length: 4_998 }, () => "w").join(" ");
  const body = JSON.stringify({
    model: "studio/echo-small",
    stream: true,
    messages: [{ role: "user", content: `${words} ` }],
  });
  const started = performance.now();
  const response = await endpoint.pool.request({
    method: "POST",
    path: `${endpoint.path}/chat/completions`,
    headers: { "content-type": "application/json", authorization: endpoint.apiKey },
    body,
  });
  let events = 0;
  let tail = "";
  for await (const chunk of response.body) {
    const text = tail + (chunk as Buffer).toString("utf8");
    const parts = text.split("\n\n");
    tail = parts.pop() ?? "";
    events += parts.length;
  }
  return { ms: performance.now() - started, events };
}

export const emulatorBench: BenchEntry = {
  name: "emulator",
  async run(): Promise<BenchRow[]> {
    const child = await startChildEmulator();
    const proxy = new URL(child.proxyUrl);
    const pool = new Pool(proxy.origin, { connections: CONNECTIONS, pipelining: 1 });
    const endpoint: Endpoint = { pool, path: proxy.pathname, apiKey: child.apiKey };
    try {
      await throughput(endpoint, WARMUP_MS);
      const rates: number[] = [];
      for (let r = 0; r < ROUNDS; r++) rates.push(await throughput(endpoint, ROUND_MS));
      const rps = median(rates);

      await longStream(endpoint);
      const streams: { ms: number; events: number }[] = [];
      for (let r = 0; r < STREAM_ROUNDS; r++) streams.push(await longStream(endpoint));
      const ms = median(streams.map((s) => s.ms));
      const events = streams[0]?.events ?? 0;
      return [
        {
          what: `emulator chat completions, ${CONNECTIONS} keep-alive connections`,
          value: rps,
          unit: "req/s",
          target: `>= ${TARGET_RPS} req/s`,
          pass: rps >= TARGET_RPS,
        },
        { what: `emulator stream of ${events} events (total)`, value: ms, unit: "ms" },
        { what: "emulator stream, per chunk", value: (ms * 1000) / events, unit: "µs/chunk" },
      ];
    } finally {
      await pool.close();
      await child.stop();
    }
  },
};

await runIfMain(import.meta.url, emulatorBench);
