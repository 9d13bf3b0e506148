/**
 * Load and soak against the emulator (same process, loopback): not a timed test but numbers to
 * watch. Load: 2,000 mixed operations (ChatStudio invokes, ChatStudio streams, history writes)
 * with 64 in flight; throughput, p50/p99 latency, errors, sockets opened, heap before/after.
 * Soak: 10,000 calls at a bounded concurrency, heap growth after GC.
 *
 * Run alone: `node --expose-gc --import tsx bench/load.ts` (without --expose-gc the heap rows are
 * measured without a forced GC and are only indicative). Every phase is bounded in count and time.
 */
import { pathToFileURL } from "node:url";
import { HumanMessage } from "@langchain/core/messages";
import { Agent } from "undici";
import { StudioChatMessageHistory } from "../src/chat_history";
import { ChatStudio } from "../src/chat_models";
import { StudioClient } from "../src/client";
import { startEmulator } from "../src/emulator";
import { type BenchEntry, type BenchRow, percentile } from "./harness";

const MODEL = "studio/echo-small";
const LOAD_OPS = 2_000;
const LOAD_IN_FLIGHT = 64;
const SOAK_CALLS = 10_000;
const SOAK_IN_FLIGHT = 8;
const HISTORIES = 32;
/** No phase may run longer than this, whatever the machine. */
const PHASE_DEADLINE_MS = 180_000;
const MB = 1024 * 1024;

type Op = (i: number) => Promise<void>;

interface PhaseResult {
  done: number;
  errors: number;
  firstError: string | undefined;
  latencies: number[];
  elapsedMs: number;
}

/** Runs `op(0..count-1)` with `width` in flight, stopping early only at the deadline. */
async function runPhase(count: number, width: number, op: Op): Promise<PhaseResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = started + PHASE_DEADLINE_MS;
  const worker = async () => {
    while (next < count && performance.now() < deadline) {
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
  await Promise.all(Array.from({ length: width }, worker));
  return {
    done: latencies.length,
    errors,
    firstError,
    latencies,
    elapsedMs: performance.now() - started,
  };
}

const gc = (globalThis as { gc?: () => void }).gc;

async function heapUsed(): Promise<number> {
  if (gc) {
    // Two passes with a tick between: weak refs and finalizers settle after the first.
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return process.memoryUsage().heapUsed;
}

async function run(): Promise<BenchRow[]> {
  const emulator = await startEmulator({ port: 0, recordRequests: false });
  let sockets = 0;
  const agent = new Agent({ connections: LOAD_IN_FLIGHT });
  agent.on("connect", () => {
    sockets++;
  });
  const client = new StudioClient({
    apiKey: emulator.apiKey,
    baseUrl: emulator.baseUrl,
    proxyUrl: emulator.proxyUrl,
    dispatcher: agent,
  });
  try {
    const model = new ChatStudio({ model: MODEL, client });
    const histories = Array.from(
      { length: HISTORIES },
      () => new StudioChatMessageHistory({ client }),
    );
    const stream = async (text: string) => {
      let out = "";
      for await (const chunk of await model.stream(text)) out += chunk.content;
      if (out !== `You said: ${text}`) throw new Error(`wrong streamed answer: ${out}`);
    };
    const invoke = async (text: string) => {
      const out = (await model.invoke(text)).content;
      if (out !== `You said: ${text}`) throw new Error(`wrong answer: ${String(out)}`);
    };
    const mixed: Op = async (i) => {
      const text = `load op ${i} with a few words`;
      if (i % 3 === 0) await invoke(text);
      else if (i % 3 === 1) await stream(text);
      else await histories[i % HISTORIES]!.addMessage(new HumanMessage(text));
    };

    // Warm-up: JIT, sockets, the histories' threads.
    await runPhase(300, LOAD_IN_FLIGHT, mixed);
    const heapBefore = await heapUsed();
    const socketsAfterWarmup = sockets;
    const load = await runPhase(LOAD_OPS, LOAD_IN_FLIGHT, mixed);
    const socketsInLoad = sockets - socketsAfterWarmup;
    const heapAfter = await heapUsed();

    // Stored messages live in the emulator (same process), so the soak writes nothing: its heap
    // growth is the package's alone. Reads of a fixed thread stand in for the history.
    const reader = histories[0]!;
    const soakOp: Op = async (i) => {
      const text = `soak ${i}`;
      if (i % 3 === 0) await invoke(text);
      else if (i % 3 === 1) await stream(text);
      else await reader.getMessages();
    };
    await runPhase(500, SOAK_IN_FLIGHT, soakOp);
    const soakBefore = await heapUsed();
    const soak = await runPhase(SOAK_CALLS, SOAK_IN_FLIGHT, soakOp);
    const soakAfter = await heapUsed();

    const gcNote = gc ? "after GC" : "no --expose-gc: indicative";
    const rows: BenchRow[] = [
      {
        what: `load: throughput (${load.done} mixed ops, ${LOAD_IN_FLIGHT} in flight)`,
        value: load.done / (load.elapsedMs / 1000),
        unit: "ops/s",
      },
      { what: "load: p50 latency", value: percentile(load.latencies, 50), unit: "ms/op" },
      { what: "load: p99 latency", value: percentile(load.latencies, 99), unit: "ms/op" },
      {
        what: `load: errors${load.firstError ? ` (first: ${load.firstError.slice(0, 80)})` : ""}`,
        value: load.errors + (LOAD_OPS - load.done),
        unit: "ops",
        target: "0",
        pass: load.errors === 0 && load.done === LOAD_OPS,
      },
      {
        what: "load: sockets opened in all (undici Agent 'connect' events, warm-up included)",
        value: socketsAfterWarmup + socketsInLoad,
        unit: "sockets",
        target: `<= ${LOAD_IN_FLIGHT} (pool size)`,
        pass: socketsAfterWarmup + socketsInLoad <= LOAD_IN_FLIGHT,
      },
      {
        what: "load: sockets opened during the 2,000 ops (keep-alive reuse)",
        value: socketsInLoad,
        unit: "sockets",
      },
      { what: `load: heap before (${gcNote})`, value: heapBefore / MB, unit: "MB" },
      {
        what: `load: heap after (${gcNote}; includes the emulator's stored messages)`,
        value: heapAfter / MB,
        unit: "MB",
      },
      {
        what: `soak: throughput (${soak.done} calls, ${SOAK_IN_FLIGHT} in flight)`,
        value: soak.done / (soak.elapsedMs / 1000),
        unit: "ops/s",
      },
      {
        what: `soak: errors${soak.firstError ? ` (first: ${soak.firstError.slice(0, 80)})` : ""}`,
        value: soak.errors + (SOAK_CALLS - soak.done),
        unit: "ops",
        target: "0",
        pass: soak.errors === 0 && soak.done === SOAK_CALLS,
      },
      {
        what: `soak: heap growth over ${SOAK_CALLS} calls (${gcNote})`,
        value: (soakAfter - soakBefore) / MB,
        unit: "MB",
        target: "< 10 MB",
        pass: (soakAfter - soakBefore) / MB < 10,
      },
    ];
    return rows;
  } finally {
    await client.close();
    await agent.close();
    await emulator.close();
  }
}

export const loadBench: BenchEntry = { name: "load", run };

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run()
    .then((rows) => {
      for (const row of rows) {
        const verdict =
          row.pass === undefined ? "" : ` (target ${row.target}: ${row.pass ? "pass" : "FAIL"})`;
        console.log(`${row.what}: ${row.value.toFixed(2)} ${row.unit}${verdict}`);
      }
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
