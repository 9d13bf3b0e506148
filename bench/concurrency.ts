/**
 * 64 concurrent ChatStudio invokes: throughput, and the sockets the client's pool opened
 * (counted with undici's `connect` events on an Agent of the client's default pool size), which
 * must stay within the pool size however many calls are in flight.
 *
 *   npx tsx bench/concurrency.ts
 */
import { Agent } from "undici";
import { ChatStudio } from "../src/chat_models";
import { StudioClient } from "../src/client";
import { DEFAULT_CONNECTIONS } from "../src/client/config";
import { startChildEmulator } from "./emulator-child";
import { type BenchEntry, type BenchRow, median, runIfMain } from "./harness";

const IN_FLIGHT = 64;
const CALLS_PER_ROUND = 2_000;
const ROUNDS = 5;

async function round(model: ChatStudio): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < CALLS_PER_ROUND) {
      next++;
      await model.invoke("ping");
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return CALLS_PER_ROUND / seconds;
}

async function run(): Promise<BenchRow[]> {
  const emulator = await startChildEmulator();
  let sockets = 0;
  const agent = new Agent({ connections: DEFAULT_CONNECTIONS });
  agent.on("connect", () => {
    sockets++;
  });
  const client = new StudioClient({
    apiKey: emulator.apiKey,
    baseUrl: emulator.baseUrl,
    proxyUrl: emulator.proxyUrl,
    dispatcher: agent,
  });
  const model = new ChatStudio({ model: "studio/echo-small", client });
  try {
    await round(model); // warm-up: the pool fills here
    const rates: number[] = [];
    for (let r = 0; r < ROUNDS; r++) rates.push(await round(model));
    return [
      {
        what: `ChatStudio.invoke, ${IN_FLIGHT} concurrent (emulator in a child process)`,
        value: median(rates),
        unit: "calls/s",
      },
      {
        what: `sockets opened for ${(ROUNDS + 1) * CALLS_PER_ROUND} calls, ${IN_FLIGHT} in flight`,
        value: sockets,
        unit: "sockets",
        target: `<= ${DEFAULT_CONNECTIONS} (pool size)`,
        pass: sockets <= DEFAULT_CONNECTIONS,
      },
    ];
  } finally {
    await client.close();
    await agent.close();
    await emulator.stop();
  }
}

export const concurrencyBench: BenchEntry = { name: "concurrency", run };

await runIfMain(import.meta.url, concurrencyBench);
