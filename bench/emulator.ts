/**
 * Emulator throughput: small non-streaming chat completions over 32 keep-alive connections, the
 * same through the in-process fetch (what a test suite gets without loopback), and one stream of
 * ~10,000 chunks; the heap a request log keeps after 20 refused 15 MiB requests. Storage at scale (`emulator-storage`): thread creates with a data
 * file as the state grows, start-up on a large data file, and the heap after many requests. The
 * emulator runs in a child process so it does not share a core with the load generator (the
 * targets are set for a 2-core machine).
 *
 *   npx tsx bench/emulator.ts
 *   npm run bench -- emulator-storage
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import {
  createInProcessEmulator,
  type EmulatorFetch,
  type EmulatorHandle,
  startEmulator,
} from "../src/emulator";
import { DataFile } from "../src/emulator/persistence";
import { createRng } from "../src/emulator/rng";
import { Store } from "../src/emulator/store";
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

/**
 * The same completions per second from a test's seat: the emulator in this process, reached with
 * `send` (its in-process fetch, or the global fetch over loopback), 32 in flight.
 */
async function sameProcessThroughput(
  emulator: EmulatorHandle,
  send: EmulatorFetch,
  ms: number,
): Promise<number> {
  const body = JSON.stringify({
    model: "studio/echo-small",
    messages: [{ role: "user", content: "Hello, how are you?" }],
    max_tokens: 16,
  });
  const headers = { "content-type": "application/json", authorization: emulator.apiKey };
  const url = `${emulator.proxyUrl}/chat/completions`;
  const result = await runWithConcurrency(
    Number.POSITIVE_INFINITY,
    CONNECTIONS,
    async () => {
      const response = await send(url, { method: "POST", headers, body });
      await response.text();
      if (response.status !== 200) throw new Error(`status ${response.status}`);
    },
    { deadlineMs: ms },
  );
  if (result.errors > 0) throw new Error(`${result.errors} requests failed: ${result.firstError}`);
  return result.rate;
}

const BIG_REQUESTS = 20;
const BIG_BYTES = 15 * 1024 * 1024;
const MAX_LOG_HEAP_MB = 64;

/**
 * Heap growth, MB, of an emulator with default options after 20 requests of 15 MiB each, all
 * refused (over the model's window): the log keeps 16 MiB of requests at most (364 MB before).
 */
async function heapAfterLargeRequests(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const emulator = await createInProcessEmulator();
  try {
    gc?.();
    const before = process.memoryUsage().heapUsed;
    const headers = { "content-type": "application/json", authorization: emulator.apiKey };
    for (let i = 0; i < BIG_REQUESTS; i++) {
      const body = JSON.stringify({
        model: "studio/echo-small",
        messages: [{ role: "user", content: "x".repeat(BIG_BYTES) }],
      });
      const response = await emulator.fetch(`${emulator.proxyUrl}/chat/completions`, {
        method: "POST",
        headers,
        body,
      });
      await response.text();
      if (response.status !== 400) throw new Error(`status ${response.status}, expected 400`);
    }
    gc?.();
    return (process.memoryUsage().heapUsed - before) / 2 ** 20;
  } finally {
    await emulator.close();
  }
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

      // Interleaved rounds, so drift in the machine's speed affects both alike.
      const inProcess = await createInProcessEmulator({ recordRequests: false });
      const loopback = await startEmulator({ recordRequests: false });
      const globalFetch: EmulatorFetch = (input, init) => fetch(input, init);
      const inProcessRates: number[] = [];
      const loopbackRates: number[] = [];
      try {
        await sameProcessThroughput(inProcess, inProcess.fetch, WARMUP_MS);
        await sameProcessThroughput(loopback, globalFetch, WARMUP_MS);
        for (let r = 0; r < ROUNDS; r++) {
          inProcessRates.push(await sameProcessThroughput(inProcess, inProcess.fetch, ROUND_MS));
          loopbackRates.push(await sameProcessThroughput(loopback, globalFetch, ROUND_MS));
        }
      } finally {
        await inProcess.close();
        await loopback.close();
      }
      const inProcessRps = median(inProcessRates);
      const loopbackRps = median(loopbackRates);
      const logHeapMb = await heapAfterLargeRequests();
      return [
        {
          what: `emulator chat completions, ${CONNECTIONS} keep-alive connections`,
          value: rps,
          unit: "req/s",
          target: `>= ${TARGET_RPS} req/s`,
          pass: rps >= TARGET_RPS,
        },
        {
          what: `emulator chat completions in process (handle.fetch), ${CONNECTIONS} in flight`,
          value: inProcessRps,
          unit: "req/s",
          reference: "same process over loopback (global fetch)",
          ratio: inProcessRps / loopbackRps,
        },
        {
          what: `emulator chat completions, same process over loopback (global fetch), ${CONNECTIONS} in flight`,
          value: loopbackRps,
          unit: "req/s",
        },
        {
          what: `emulator heap kept after ${BIG_REQUESTS} refused 15 MiB requests, default options`,
          value: logHeapMb,
          unit: "MB",
          target: `<= ${MAX_LOG_HEAP_MB} MB`,
          pass: logHeapMb <= MAX_LOG_HEAP_MB,
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

/** Threads already in the data file; 0 is an empty (new) data file, the reference. */
const STATE_SIZES = [0, 1_000, 10_000, 50_000];
const CREATE_CONNECTIONS = 8;
const CREATES_PER_ROUND = 400;
const CREATE_ROUNDS = 7;
const LOG_REQUESTS = 100_000;
const MIN_CREATE_RATIO = 0.5;
const MAX_START_MS = 2_000;
const MAX_HEAP_MB = 60;
/** No round or load may hang the bench on a stalled emulator. */
const DEADLINE_MS = 60_000;

/** A data file holding `threads` threads, written as one snapshot (what a compaction leaves). */
function writeDataFile(file: string, threads: number): void {
  const store = new Store(createRng(1));
  for (let i = 0; i < threads; i++) {
    store.createThread({ metadata: { n: String(i) }, title: "bench", toolResources: {} }, []);
  }
  const dataFile = new DataFile(file, undefined, () => store.snapshot());
  dataFile.compact();
  dataFile.close();
}

/** An emulator on a data file of `threads` threads, and one round of creates against it. */
async function emulatorOfSize(dir: string, threads: number) {
  const file = join(dir, `emulator-${threads}.json`);
  if (threads > 0) writeDataFile(file, threads);
  const child = await startChildEmulator({ dataFile: file });
  const studio = new URL(child.baseUrl);
  const pool = new Pool(studio.origin, { connections: CREATE_CONNECTIONS, pipelining: 1 });
  const headers = { "content-type": "application/json", "x-service-key": child.apiKey };
  const body = JSON.stringify({ title: "bench", metadata: { kind: "bench" } });
  const create = async () => {
    const response = await pool.request({
      method: "POST",
      path: `${studio.pathname}/v1/threads`,
      headers,
      body,
    });
    await response.body.text();
    if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
  };
  return {
    threads,
    startMs: child.startMs,
    /** Creates per second over one round. */
    async round(): Promise<number> {
      const result = await runWithConcurrency(CREATES_PER_ROUND, CREATE_CONNECTIONS, create, {
        deadlineMs: DEADLINE_MS,
      });
      if (result.errors > 0) {
        throw new Error(`${result.errors} creates failed: ${result.firstError}`);
      }
      return result.rate;
    },
    async stop(): Promise<void> {
      await pool.close();
      await child.stop();
    },
  };
}

/**
 * Creates/s at every size, in interleaved rounds (sizes in turn, the order reversed every other
 * round) so that drift in the machine's speed affects every size alike; and start-up times.
 */
async function createRates(
  dir: string,
): Promise<{ threads: number; rate: number; startMs: number }[]> {
  const emulators: Awaited<ReturnType<typeof emulatorOfSize>>[] = [];
  try {
    for (const threads of STATE_SIZES) emulators.push(await emulatorOfSize(dir, threads));
    for (const emulator of emulators) await emulator.round();
    const rates = emulators.map(() => [] as number[]);
    for (let r = 0; r < CREATE_ROUNDS; r++) {
      const order = emulators.map((_, i) => i);
      if (r % 2 === 1) order.reverse();
      for (const i of order) rates[i]!.push(await emulators[i]!.round());
    }
    return emulators.map((e, i) => ({
      threads: e.threads,
      rate: median(rates[i]!),
      startMs: e.startMs,
    }));
  } finally {
    await Promise.all(emulators.map((e) => e.stop()));
  }
}

/** Heap of an emulator with default options after `LOG_REQUESTS` small chat completions, MB. */
async function heapAfterRequests(): Promise<{ mb: number; requests: number }> {
  // `true` is the default; the bench child turns recording off unless told.
  const child = await startChildEmulator({ recordRequests: true });
  const proxy = new URL(child.proxyUrl);
  const pool = new Pool(proxy.origin, { connections: CONNECTIONS, pipelining: 1 });
  let heap: number | undefined;
  let requests = 0;
  try {
    const body = JSON.stringify({
      model: "studio/echo-small",
      messages: [{ role: "user", content: "Hello, how are you?" }],
      max_tokens: 16,
    });
    const headers = { "content-type": "application/json", authorization: child.apiKey };
    const result = await runWithConcurrency(
      LOG_REQUESTS,
      CONNECTIONS,
      async () => {
        const response = await pool.request({
          method: "POST",
          path: `${proxy.pathname}/chat/completions`,
          headers,
          body,
        });
        await response.body.text();
      },
      { deadlineMs: DEADLINE_MS * 2 },
    );
    requests = result.done;
  } finally {
    await pool.close();
    heap = await child.stop();
  }
  return { mb: (heap ?? Number.NaN) / 2 ** 20, requests };
}

export const emulatorStorageBench: BenchEntry = {
  name: "emulator-storage",
  async run(): Promise<BenchRow[]> {
    const dir = await mkdtemp(join(tmpdir(), "studio-bench-emulator-"));
    try {
      const sizes = await createRates(dir);
      const empty = sizes[0]!;
      const largest = sizes.at(-1)!;
      const rows: BenchRow[] = sizes.map(({ threads, rate }) => {
        const ratio = rate / empty.rate;
        return {
          what: `emulator thread creates, ${threads === 0 ? "empty data file" : `data file of ${threads.toLocaleString("en")} threads`}`,
          value: rate,
          unit: "req/s",
          ...(threads === 0 ? {} : { reference: "empty data file", ratio }),
          ...(threads === largest.threads
            ? { target: `>= ${MIN_CREATE_RATIO.toFixed(2)}x`, pass: ratio >= MIN_CREATE_RATIO }
            : {}),
        };
      });
      rows.push({
        what: `emulator start-up, data file of ${largest.threads.toLocaleString("en")} threads`,
        value: largest.startMs,
        unit: "ms",
        target: `< ${MAX_START_MS} ms`,
        pass: largest.startMs < MAX_START_MS,
      });
      const heap = await heapAfterRequests();
      rows.push({
        what: `emulator heap after ${heap.requests.toLocaleString("en")} requests, default options`,
        value: heap.mb,
        unit: "MB",
        target: `<= ${MAX_HEAP_MB} MB`,
        pass: heap.requests >= LOG_REQUESTS && heap.mb <= MAX_HEAP_MB,
      });
      return rows;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

await runIfMain(import.meta.url, emulatorBench);
await runIfMain(import.meta.url, emulatorStorageBench);
