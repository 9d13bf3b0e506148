/**
 * StudioStore against the emulator: a `search` over a prefix of 100 namespaces
 * through a proxy that adds 30 ms to every round trip (wall time in round trips, and calls), in a
 * process that knows the namespaces and in a new one; and a 1 MB item put and read back by
 * another process, with and without encryption (calls, bytes, and whether it came back whole).
 *
 *   node --expose-gc --import tsx bench/index.ts store
 */
import { StudioClient } from "../src/client";
import { toBase64 } from "../src/converters/base64";
import { type EmulatorHandle, startEmulator } from "../src/emulator";
import { createEncryptedSerde, StudioStore } from "../src/langgraph";
import { startChildEmulator } from "./emulator-child";
import { type BenchEntry, type BenchRow, median, runIfMain } from "./harness";

/** The round trip the proxy adds, in ms. */
const RTT_MS = 30;
const NAMESPACES = 100;
const ROUNDS = 5;

type Addresses = Pick<EmulatorHandle, "apiKey" | "baseUrl">;

interface Traffic {
  calls: number;
  sent: number;
  received: number;
  /** Calls that ended so far, with how many round trips led to each (its own included). */
  ended: { at: number; chain: number }[];
}

/** The longest chain of calls each sent after the previous one ended: round trips one after another. */
function longestChain(traffic: Traffic): number {
  return Math.max(0, ...traffic.ended.map((call) => call.chain));
}

/** A client of its own (a process of its own), each call delayed by `delayMs`, its traffic counted. */
function proxiedClient(
  emulator: Addresses,
  delayMs: number,
): { client: StudioClient; traffic: Traffic } {
  const traffic: Traffic = { calls: 0, sent: 0, received: 0, ended: [] };
  const { apiKey, baseUrl } = emulator;
  const client = new StudioClient({
    apiKey,
    baseUrl,
    maxRetries: 0,
    fetch: async (input, init) => {
      traffic.calls += 1;
      const sentAt = performance.now();
      const after = traffic.ended.filter((call) => call.at <= sentAt);
      const chain = 1 + Math.max(0, ...after.map((call) => call.chain));
      if (typeof init?.body === "string") traffic.sent += Buffer.byteLength(init.body);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const response = await fetch(input, init);
      const body = await response.arrayBuffer();
      traffic.received += body.byteLength;
      traffic.ended.push({ at: performance.now(), chain });
      return new Response(body, { status: response.status, headers: response.headers });
    },
  });
  return { client, traffic };
}

/**
 * Searches from a process that knows the namespaces (after one search) and from a new one, in
 * interleaved rounds; the same searches without the proxy's delay tell the round trips from the
 * CPU time of 100 reads (the emulator runs in a child process: the service's work is not ours).
 */
async function searchRows(emulator: Addresses): Promise<BenchRow[]> {
  const filler = new StudioStore({ client: proxiedClient(emulator, 0).client });
  for (let i = 0; i < NAMESPACES; i++) {
    await filler.put(["bench", `user-${i}`], "profile", { name: `user ${i}`, i });
  }
  const times = { cold: [] as number[], warm: [] as number[], bare: [] as number[] };
  let warmCalls = 0;
  let coldCalls = 0;
  let warmChain = 0;
  let coldChain = 0;
  const search = async (store: StudioStore) => {
    const started = performance.now();
    const page = await store.search(["bench"], { limit: NAMESPACES });
    if (page.length !== NAMESPACES) throw new Error(`search found ${page.length} items`);
    return performance.now() - started;
  };
  const bareStore = new StudioStore({ client: proxiedClient(emulator, 0).client });
  await search(bareStore);
  for (let round = 0; round < ROUNDS; round++) {
    const { client, traffic } = proxiedClient(emulator, RTT_MS);
    const store = new StudioStore({ client });
    times.cold.push(await search(store));
    coldCalls = traffic.calls;
    coldChain = longestChain(traffic);
    traffic.ended = [];
    times.warm.push(await search(store));
    warmCalls = traffic.calls - coldCalls;
    warmChain = longestChain(traffic);
    times.bare.push(await search(bareStore));
  }
  const warmRtts = median(times.warm) / RTT_MS;
  const at = `store search over ${NAMESPACES} namespaces, ${RTT_MS} ms per round trip`;
  return [
    {
      what: `${at}: wall time, process that knows them`,
      value: warmRtts,
      unit: "round trips",
      target: "<= 5",
      pass: warmRtts <= 5,
    },
    { what: `${at}: calls, process that knows them`, value: warmCalls, unit: "calls" },
    {
      what: `${at}: same search without the delay (CPU of ${warmCalls} reads)`,
      value: median(times.bare),
      unit: "ms",
    },
    {
      what: `${at}: round trips one after another, process that knows them`,
      value: warmChain,
      unit: "round trips",
      target: "<= 5",
      pass: warmChain <= 5,
    },
    {
      what: `${at}: wall time, new process`,
      value: median(times.cold) / RTT_MS,
      unit: "round trips",
    },
    { what: `${at}: calls, new process`, value: coldCalls, unit: "calls" },
    {
      what: `${at}: round trips one after another, new process`,
      value: coldChain,
      unit: "round trips",
    },
  ];
}

/** About `chars` characters of text that does not repeat. */
function bigText(chars: number): string {
  const words: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const word = i.toString(36);
    words.push(word);
    length += word.length + 1;
  }
  return words.join(" ");
}

async function bigItemRows(emulator: Addresses, encrypted: boolean): Promise<BenchRow[]> {
  const keys = { bench: toBase64(crypto.getRandomValues(new Uint8Array(32))) };
  const serde = () => (encrypted ? createEncryptedSerde({ keys }) : undefined);
  const value = { text: bigText(1_000_000) };
  const valueBytes = Buffer.byteLength(JSON.stringify(value));
  const writer = proxiedClient(emulator, 0);
  const namespace = ["bench-big", encrypted ? "sealed" : "plain"];
  const writing = new StudioStore({ client: writer.client, serde: serde() });
  await writing.put(namespace, "doc", { text: "a first, small version" });
  const firstPutCalls = writer.traffic.calls;
  const sentBefore = writer.traffic.sent;
  await writing.put(namespace, "doc", value);
  const putCalls = writer.traffic.calls - firstPutCalls;
  const putSent = writer.traffic.sent - sentBefore;
  const reader = proxiedClient(emulator, 0);
  const item = await new StudioStore({ client: reader.client, serde: serde() }).get(
    namespace,
    "doc",
  );
  const whole = JSON.stringify(item?.value) === JSON.stringify(value);
  const at = `store 1 MB item${encrypted ? ", encrypted" : ""}`;
  return [
    { what: `${at}: put over an item, warm process: calls`, value: putCalls, unit: "calls" },
    { what: `${at}: put: bytes sent / value's bytes`, value: putSent / valueBytes, unit: "x" },
    { what: `${at}: get, new process: calls`, value: reader.traffic.calls, unit: "calls" },
    {
      what: `${at}: get: bytes received / value's bytes`,
      value: reader.traffic.received / valueBytes,
      unit: "x",
    },
    {
      what: `${at}: read back whole by another process`,
      value: whole ? 1 : 0,
      unit: "yes",
      target: "= 1",
      pass: whole,
    },
  ];
}

async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const child = await startChildEmulator();
  try {
    rows.push(...(await searchRows(child)));
  } finally {
    await child.stop();
  }
  const emulator = await startEmulator({ recordRequests: false });
  try {
    rows.push(...(await bigItemRows(emulator, false)), ...(await bigItemRows(emulator, true)));
  } finally {
    await emulator.close();
  }
  return rows;
}

export const storeBench: BenchEntry = { name: "store", run };

await runIfMain(import.meta.url, storeBench);
