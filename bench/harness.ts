import { pathToFileURL } from "node:url";
import { Agent } from "undici";
import { StudioClient } from "../src/client";

/**
 * Shared measuring helpers for `npm run bench`. Every entry reports medians of several rounds
 * after a warm-up, so one slow round (GC, a noisy neighbour) does not decide a pass or a fail.
 */

export interface BenchRow {
  /** What was measured, e.g. "client chatCompletion (non-streaming)". */
  what: string;
  /** The measured value (median). */
  value: number;
  /** "µs/call", "µs/chunk", "ms/op", "req/s", "MB"... */
  unit: string;
  /** Name of the reference it is compared with, if any. */
  reference?: string;
  /** value / reference value (or reference / value for throughput), if compared. */
  ratio?: number;
  /** Human-readable target, e.g. "<= 1.10x" or ">= 5000 req/s". */
  target?: string;
  /** Whether the target is met; undefined when the row is informational. */
  pass?: boolean;
}

export interface MeasureOptions {
  /** Calls before measuring (default 200). */
  warmup?: number;
  /** Measured rounds (default 7); the median round is reported. */
  rounds?: number;
  /** Calls per round (default 500). */
  iterations?: number;
}

/** Median per-call time in microseconds of `fn`, called sequentially. */
export async function measurePerCall(
  fn: () => Promise<unknown>,
  options: MeasureOptions = {},
): Promise<number> {
  const { warmup = 200, rounds = 7, iterations = 500 } = options;
  for (let i = 0; i < warmup; i++) await fn();
  const perCall: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) await fn();
    const elapsed = Number(process.hrtime.bigint() - start) / 1000;
    perCall.push(elapsed / iterations);
  }
  return median(perCall);
}

/**
 * Measures several candidates in interleaved rounds (A, B, C, A, B, C, ...) so that drift in the
 * machine's speed affects all of them alike; returns the median per-call µs of each.
 */
export async function measureInterleaved(
  candidates: Record<string, () => Promise<unknown>>,
  options: MeasureOptions = {},
): Promise<Record<string, number>> {
  const { warmup = 200, rounds = 7, iterations = 500 } = options;
  const names = Object.keys(candidates);
  for (const name of names) {
    const fn = candidates[name]!;
    for (let i = 0; i < warmup; i++) await fn();
  }
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const name of names) {
      const fn = candidates[name]!;
      const start = process.hrtime.bigint();
      for (let i = 0; i < iterations; i++) await fn();
      const elapsed = Number(process.hrtime.bigint() - start) / 1000;
      samples[name]!.push(elapsed / iterations);
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(samples[n]!)]));
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export interface ConcurrencyResult {
  /** Operations that ran: `total`, unless the deadline stopped the run first. */
  done: number;
  errors: number;
  /** "Name: message" of the first failure, for the report. */
  firstError: string | undefined;
  /** Milliseconds each operation took, in the order they finished. */
  latencies: number[];
  elapsedMs: number;
  /** Operations per second over the whole run. */
  rate: number;
}

/**
 * Runs `op(0)` ... `op(total - 1)` with `inFlight` of them in flight at any time. A failure is
 * counted, not thrown, so one error does not end a load run; no operation starts after
 * `deadlineMs`, so a stalled server cannot hang the bench (`total` may then be Infinity for a
 * run bounded by time alone).
 */
export async function runWithConcurrency(
  total: number,
  inFlight: number,
  op: (i: number) => Promise<unknown>,
  { deadlineMs = 180_000 }: { deadlineMs?: number } = {},
): Promise<ConcurrencyResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = started + deadlineMs;
  const worker = async () => {
    while (next < total && performance.now() < deadline) {
      const i = next++;
      const t = performance.now();
      try {
        await op(i);
      } catch (error) {
        errors++;
        firstError ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const elapsedMs = performance.now() - started;
  return {
    done: latencies.length,
    errors,
    firstError,
    latencies,
    elapsedMs,
    rate: latencies.length / (elapsedMs / 1000),
  };
}

export interface CountingClient {
  client: StudioClient;
  /** Sockets opened so far (undici `connect` events): keep-alive reuse keeps this low. */
  sockets(): number;
  close(): Promise<void>;
}

/** A StudioClient on an Agent of `connections` sockets per origin that counts what it opens. */
export function socketCountingClient(
  addresses: { apiKey: string; baseUrl: string; proxyUrl: string },
  connections: number,
): CountingClient {
  let sockets = 0;
  const agent = new Agent({ connections });
  agent.on("connect", () => {
    sockets++;
  });
  const { apiKey, baseUrl, proxyUrl } = addresses;
  const client = new StudioClient({ apiKey, baseUrl, proxyUrl, dispatcher: agent });
  return {
    client,
    sockets: () => sockets,
    close: async () => {
      await client.close();
      await agent.close();
    },
  };
}

/** A row comparing `value` with `referenceValue`, passing when value/reference <= maxRatio. */
export function ratioRow(
  what: string,
  value: number,
  unit: string,
  reference: string,
  referenceValue: number,
  maxRatio: number,
): BenchRow {
  const ratio = value / referenceValue;
  return {
    what,
    value,
    unit,
    reference,
    ratio,
    target: `<= ${maxRatio.toFixed(2)}x`,
    pass: ratio <= maxRatio,
  };
}

/**
 * The row without its target: the comparison stays in the table as context, but decides nothing.
 * The package's ceilings are set against ChatOpenAI; a bare request or the thinnest model is the
 * floor to read them by, not a target to write fast paths for.
 */
export function informational(row: BenchRow): BenchRow {
  const { target: _target, pass: _pass, ...info } = row;
  return info;
}

/** One bench entry: a named async function producing rows. */
export interface BenchEntry {
  name: string;
  run: () => Promise<BenchRow[]>;
}

function formatValue(row: BenchRow): string {
  const v = row.value;
  // Counts (calls, sockets, errors) read as counts, not as "10.0 calls".
  const digits = Number.isInteger(v) || Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return `${v.toFixed(digits)} ${row.unit}`;
}

/** The one table format of `npm run bench` and of every entry run on its own. */
export function renderTable(rows: BenchRow[]): string {
  const header = ["what", "value", "reference", "ratio", "target", "result"];
  const body = rows.map((r) => [
    r.what,
    formatValue(r),
    r.reference ?? "",
    r.ratio === undefined ? "" : `${r.ratio.toFixed(2)}x`,
    r.target ?? "",
    r.pass === undefined ? "info" : r.pass ? "pass" : "FAIL",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [
    line(header),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...body.map(line),
  ].join("\n");
}

/**
 * Runs `entry` and prints its table when the module is the process's main script
 * (`npx tsx bench/<name>.ts`); does nothing when it is imported by `bench/index.ts`.
 */
export async function runIfMain(moduleUrl: string, entry: BenchEntry): Promise<void> {
  const main = process.argv[1];
  if (!main || pathToFileURL(main).href !== moduleUrl) return;
  try {
    console.log(renderTable(await entry.run()));
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  }
}

/**
 * Per-round µs per call of every candidate. Each round is one harness round (`iterations` calls
 * of each candidate in turn); the order is reversed every other round, so that no candidate always
 * runs first or right after the same neighbour (ChatOpenAI's rounds leave the most garbage).
 */
export async function measureRounds<K extends string>(
  candidates: Record<K, () => Promise<unknown>>,
  { warmup, rounds, iterations }: { warmup: number; rounds: number; iterations: number },
): Promise<Record<K, number[]>> {
  const names = Object.keys(candidates) as K[];
  const forward = candidates as Record<string, () => Promise<unknown>>;
  const backward = Object.fromEntries([...names].reverse().map((name) => [name, candidates[name]]));
  await measureInterleaved(forward, { warmup, rounds: 1, iterations: 1 });
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
    K,
    number[]
  >;
  for (let r = 0; r < rounds; r++) {
    const round = await measureInterleaved(r % 2 === 0 ? forward : backward, {
      warmup: 0,
      rounds: 1,
      iterations,
    });
    for (const name of names) samples[name].push(round[name] ?? Number.NaN);
  }
  return samples;
}

/**
 * A ratio row whose ratio is the median of the per-round ratios rather than the ratio of the
 * medians. Rounds of two candidates that ran side by side share the machine's state; on a shared
 * 2-core machine that state flips between regimes (measured: the same build gave 1.035x to 1.09x
 * as a ratio of medians within minutes, 1.037x to 1.047x as a median of per-round ratios), so
 * only the paired ratio gives the same verdict run after run. Values are the medians, as in
 * every other row.
 */
export function pairedRatioRow(
  what: string,
  values: number[],
  unit: string,
  reference: string,
  references: number[],
  maxRatio: number,
): BenchRow {
  const ratio = median(values.map((value, i) => value / (references[i] ?? Number.NaN)));
  return {
    ...ratioRow(what, median(values), unit, reference, median(references), maxRatio),
    ratio,
    pass: ratio <= maxRatio,
  };
}
