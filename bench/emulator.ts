/**
 * Emulator throughput: small non-streaming chat completions over 32 keep-alive connections, and
 * one stream of ~10,000 chunks. The emulator runs in a child process so it does not share a core
 * with the load generator (the target is set for a 2-core machine).
 *
 *   npx tsx bench/emulator.ts
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { type BenchEntry, type BenchRow, median } from "./harness";

const CONNECTIONS = 32;
const ROUND_MS = 1_000;
const ROUNDS = 5;
const WARMUP_MS = 1_000;
const STREAM_ROUNDS = 7;
const TARGET_RPS = 5_000;
const ROOT = fileURLToPath(new URL("..", import.meta.url));

interface Child {
  process: ChildProcess;
  origin: string;
  proxyPath: string;
  apiKey: string;
}

async function startChild(): Promise<Child> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/emulator/cli.ts", "--port", "0"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const output = await new Promise<string>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(
      () => reject(new Error("the emulator did not start within 30 s")),
      30_000,
    );
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      text += chunk;
      if (text.includes("STUDIO_API_KEY=") && text.endsWith("\n")) {
        clearTimeout(timer);
        resolve(text);
      }
    });
    child.once("exit", (code) => reject(new Error(`the emulator exited with code ${code}`)));
  });
  const proxyUrl = new URL(/STUDIO_PROXY_URL=(\S+)/.exec(output)?.[1] ?? "");
  const apiKey = /STUDIO_API_KEY=(\S+)/.exec(output)?.[1] ?? "";
  return { process: child, origin: proxyUrl.origin, proxyPath: proxyUrl.pathname, apiKey };
}

async function stopChild(child: Child): Promise<void> {
  const exited = new Promise<void>((resolve) => child.process.once("exit", () => resolve()));
  child.process.kill("SIGTERM");
  await exited;
}

/** Completions per second over `ms`, with `CONNECTIONS` requests always in flight. */
async function throughput(pool: Pool, child: Child, ms: number): Promise<number> {
  const body = JSON.stringify({
    model: "studio/echo-small",
    messages: [{ role: "user", content: "Hello, how are you?" }],
    max_tokens: 16,
  });
  const headers = { "content-type": "application/json", authorization: child.apiKey };
  const path = `${child.proxyPath}/chat/completions`;
  const deadline = performance.now() + ms;
  let done = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const response = await pool.request({ method: "POST", path, headers, body });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
      done += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return done / ((performance.now() - started) / 1000);
}

/** One stream of ~10,000 token chunks: total ms and the number of events received. */
async function longStream(pool: Pool, child: Child): Promise<{ ms: number; events: number }> {
  // "You said: " + 4,998 words separated by spaces = 10,000 token chunks.
  const words = Array.from({ length: 4_998 }, () => "w").join(" ");
  const body = JSON.stringify({
    model: "studio/echo-small",
    stream: true,
    messages: [{ role: "user", content: `${words} ` }],
  });
  const started = performance.now();
  const response = await pool.request({
    method: "POST",
    path: `${child.proxyPath}/chat/completions`,
    headers: { "content-type": "application/json", authorization: child.apiKey },
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
    const child = await startChild();
    const pool = new Pool(child.origin, { connections: CONNECTIONS, pipelining: 1 });
    try {
      await throughput(pool, child, WARMUP_MS);
      const rates: number[] = [];
      for (let r = 0; r < ROUNDS; r++) rates.push(await throughput(pool, child, ROUND_MS));
      const rps = median(rates);

      await longStream(pool, child);
      const streams: { ms: number; events: number }[] = [];
      for (let r = 0; r < STREAM_ROUNDS; r++) streams.push(await longStream(pool, child));
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
      await stopChild(child);
    }
  },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  emulatorBench.run().then(
    (rows) => {
      for (const row of rows) {
        const verdict =
          row.pass === undefined
            ? ""
            : row.pass
              ? `  pass (${row.target})`
              : `  FAIL (${row.target})`;
        console.log(`${row.what}: ${row.value.toFixed(1)} ${row.unit}${verdict}`);
      }
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
