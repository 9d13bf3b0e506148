/**
 * Load and soak against the emulator (same process, loopback): not a timed test but numbers to
 * watch. Load: 2,000 mixed operations (ChatStudio invokes, ChatStudio streams, history writes)
 * with 64 in flight; throughput, p50/p99 latency, errors, sockets opened, heap before/after.
 * Soak: 10,000 calls at a bounded concurrency, heap growth after GC.
 *
 * Run alone: `node --expose-gc --import tsx bench/load.ts` (without --expose-gc the heap rows are
 * measured without a forced GC and are only indicative). Every phase is bounded in count and time.
 */
import { HumanMessage } from "@langchain/core/messages";
import { StudioChatMessageHistory } from "../src/chat_history";
import { ChatStudio } from "../src/chat_models";
import { startEmulator } from "../src/emulator";
import {
  type BenchEntry,
  type BenchRow,
  percentile,
  runIfMain,
  runWithConcurrency,
  socketCountingClient,
} from "./harness";

const MODEL = "studio/echo-small";
const LOAD_OPS = 2_000;
const LOAD_IN_FLIGHT = 64;
const SOAK_CALLS = 10_000;
const SOAK_IN_FLIGHT = 8;
const HISTORIES = 32;
const MB = 1024 * 1024;

type Op = (i: number) => Promise<void>;

const gc = (globalThis as { gc?: () => void }).gc;

export async function heapUsed(): Promise<number> {
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
  const counting = socketCountingClient(emulator, LOAD_IN_FLIGHT);
  const { client } = counting;
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
    await runWithConcurrency(300, LOAD_IN_FLIGHT, mixed);
    const heapBefore = await heapUsed();
    const socketsAfterWarmup = counting.sockets();
    const load = await runWithConcurrency(LOAD_OPS, LOAD_IN_FLIGHT, mixed);
    const socketsInLoad = counting.sockets() - socketsAfterWarmup;
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
    await runWithConcurrency(500, SOAK_IN_FLIGHT, soakOp);
    const soakBefore = await heapUsed();
    const soak = await runWithConcurrency(SOAK_CALLS, SOAK_IN_FLIGHT, soakOp);
    const soakAfter = await heapUsed();

    const gcNote = gc ? "after GC" : "no --expose-gc: indicative";
    const rows: BenchRow[] = [
      {
        what: `load: throughput (${load.done} mixed ops, ${LOAD_IN_FLIGHT} in flight)`,
        value: load.rate,
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
        value: soak.rate,
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
    await counting.close();
    await emulator.close();
  }
}

export const loadBench: BenchEntry = { name: "load", run };

await runIfMain(import.meta.url, loadBench);
