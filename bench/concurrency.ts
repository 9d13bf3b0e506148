/**
 * 64 concurrent ChatStudio invokes: throughput, and the sockets the client's pool opened
 * (counted with undici's `connect` events on an Agent of the client's default pool size), which
 * must stay within the pool size however many calls are in flight.
 *
 *   npx tsx bench/concurrency.ts
 */
import { ChatStudio } from "../src/chat_models";
import { DEFAULT_CONNECTIONS } from "../src/client/config";
import { startChildEmulator } from "./emulator-child";
import {
  type BenchEntry,
  type BenchRow,
  median,
  runIfMain,
  runWithConcurrency,
  socketCountingClient,
} from "./harness";

const IN_FLIGHT = 64;
const CALLS_PER_ROUND = 2_000;
const ROUNDS = 5;

async function round(model: ChatStudio): Promise<number> {
  const result = await runWithConcurrency(CALLS_PER_ROUND, IN_FLIGHT, () => model.invoke("ping"));
  if (result.errors > 0) {
    throw new Error(`${result.errors} of ${result.done} calls failed, first: ${result.firstError}`);
  }
  return result.rate;
}

async function run(): Promise<BenchRow[]> {
  const emulator = await startChildEmulator();
  const counting = socketCountingClient(emulator, DEFAULT_CONNECTIONS);
  const model = new ChatStudio({ model: "studio/echo-small", client: counting.client });
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
        value: counting.sockets(),
        unit: "sockets",
        target: `<= ${DEFAULT_CONNECTIONS} (pool size)`,
        pass: counting.sockets() <= DEFAULT_CONNECTIONS,
      },
    ];
  } finally {
    await counting.close();
    await emulator.stop();
  }
}

export const concurrencyBench: BenchEntry = { name: "concurrency", run };

await runIfMain(import.meta.url, concurrencyBench);
