/**
 * StudioCheckpointSaver against the emulator (in this process): the service calls one agent turn
 * makes (counted in the emulator's request log), and the latency of `put` and `getTuple`.
 *
 *   npx tsx bench/memory.ts
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { createAgent } from "langchain";
import { z } from "zod/v4";
import { ChatStudio } from "../src/chat_models";
import { StudioClient } from "../src/client";
import { type EmulatorHandle, startEmulator } from "../src/emulator";
import { StudioCheckpointSaver } from "../src/langgraph";
import { type BenchEntry, type BenchRow, measurePerCall, runIfMain } from "./harness";

const getWeather = tool(({ city }) => `${city}: sunny, 22°C`, {
  name: "get_weather",
  description: "Today's weather in a city.",
  schema: z.object({ city: z.string() }),
});

function studioCalls(emulator: EmulatorHandle): number {
  return emulator.requests.filter((r) => r.path.startsWith("/studio/")).length;
}

function modelCalls(emulator: EmulatorHandle): number {
  return emulator.requests.filter((r) => r.path.endsWith("/chat/completions")).length;
}

/** Calls of one turn that calls a tool and then answers: 2 model calls, 3 steps to save. */
async function turnCalls(emulator: EmulatorHandle, client: StudioClient) {
  const agent = createAgent({
    model: new ChatStudio({ model: "studio/echo-small", client }),
    tools: [getWeather],
    checkpointer: new StudioCheckpointSaver({ client }),
  });
  const config = { configurable: { thread_id: "bench-turns" } };
  const turn = (city: string) =>
    agent.invoke(
      { messages: [{ role: "user", content: `get_weather {"city": "${city}"}` }] },
      config,
    );
  emulator.clearRequests();
  await turn("Oslo");
  const first = { studio: studioCalls(emulator), model: modelCalls(emulator) };
  emulator.clearRequests();
  await turn("Lima");
  const later = { studio: studioCalls(emulator), model: modelCalls(emulator) };
  return { first, later };
}

/** A checkpoint like an agent's after `turns` turns: a growing messages channel. */
function agentCheckpoint(turns: number, version: number) {
  const checkpoint = emptyCheckpoint();
  checkpoint.id = uuid6(-3);
  const messages = Array.from({ length: turns * 2 }, (_, i) =>
    i % 2 === 0
      ? new HumanMessage(`question ${i}: how does the weather look for tomorrow?`)
      : new AIMessage(`answer ${i}: mostly sunny, 22°C, light wind from the west.`),
  );
  checkpoint.channel_values = { messages };
  checkpoint.channel_versions = { messages: version };
  return checkpoint;
}

async function run(): Promise<BenchRow[]> {
  const emulator = await startEmulator();
  const { apiKey, baseUrl, proxyUrl } = emulator;
  const client = new StudioClient({ apiKey, baseUrl, proxyUrl });
  try {
    const calls = await turnCalls(emulator, client);

    const saver = new StudioCheckpointSaver({ client });
    let config = { configurable: { thread_id: "bench-latency", checkpoint_ns: "" } };
    let version = 0;
    const put = async () => {
      version += 1;
      const checkpoint = agentCheckpoint(10, version);
      const meta = { source: "loop" as const, step: version, parents: {} };
      config = (await saver.put(config, checkpoint, meta, { messages: version })) as typeof config;
    };
    const putUs = await measurePerCall(put, { warmup: 5, rounds: 5, iterations: 20 });
    const latest = { configurable: { thread_id: "bench-latency" } };
    const getUs = await measurePerCall(() => saver.getTuple(latest), {
      warmup: 5,
      rounds: 5,
      iterations: 20,
    });
    const steps = version;
    emulator.clearRequests();
    const coldUs = await measurePerCall(
      () => new StudioCheckpointSaver({ client }).getTuple(latest),
      { warmup: 1, rounds: 3, iterations: 3 },
    );

    return [
      {
        what: "agent turn (tool call + answer), new thread: checkpointer calls",
        value: calls.first.studio,
        unit: "calls",
      },
      {
        what: "agent turn (tool call + answer), next turn: checkpointer calls",
        value: calls.later.studio,
        unit: "calls",
        // One read, then one message per checkpoint (5) and per task's writes (4).
        target: "= 10",
        pass: calls.later.studio === 10,
      },
      { what: "agent turn: model calls", value: calls.later.model, unit: "calls" },
      { what: "checkpointer put, 20-message state", value: putUs / 1000, unit: "ms/op" },
      { what: "checkpointer getTuple, warm (1 list call)", value: getUs / 1000, unit: "ms/op" },
      {
        what: `checkpointer getTuple, new saver, ${steps}-step thread`,
        value: coldUs / 1000,
        unit: "ms/op",
      },
    ];
  } finally {
    await client.close();
    await emulator.close();
  }
}

export const memoryBench: BenchEntry = { name: "memory", run };

await runIfMain(import.meta.url, memoryBench);
