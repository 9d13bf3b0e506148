/**
 * StudioCheckpointSaver against the emulator (in this process): the service calls one agent turn
 * makes (counted in the emulator's request log), the latency of `put` and `getTuple`, and what a
 * process new to a long thread pays: calls, bytes received, time and memory, at 10, 100 and 500
 * turns, and the bytes a thread's writes cost as it grows; and the same costs with encryption on.
 *
 * Long threads are written with `put`/`putWrites` directly, in the shape of an agent's (per turn:
 * five checkpoints, four of them adding a message, and four tasks' writes), with messages as
 * LangChain serializes them, so that building 500 turns takes seconds rather than minutes.
 *
 *   npx tsx bench/memory.ts
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { emptyCheckpoint, JsonPlusSerializer, uuid6 } from "@langchain/langgraph-checkpoint";
import { createAgent } from "langchain";
import { z } from "zod/v4";
import { ChatStudio } from "../src/chat_models";
import { StudioClient } from "../src/client";
import { toBase64 } from "../src/converters/base64";
import { type EmulatorHandle, startEmulator } from "../src/emulator";
import { createEncryptedSerde, StudioCheckpointSaver } from "../src/langgraph";
import { type BenchEntry, type BenchRow, measurePerCall, runIfMain } from "./harness";
import { heapUsed } from "./load";

const getWeather = tool(({ city }) => `${city}: sunny, 22°C`, {
  name: "get_weather",
  description: "Today's weather in a city.",
  schema: z.object({ city: z.string() }),
});

/**
 * An agent's model for long threads, answering in this process: the emulator's models take 8,192
 * tokens, which a 500-turn history exceeds (a real agent would trim it; the checkpointer still
 * stores and reads all of it). It calls get_weather, then answers.
 */
class ToolThenAnswer extends BaseChatModel {
  _llmType(): string {
    return "bench-tool-then-answer";
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = ToolMessage.isInstance(messages.at(-1))
      ? new AIMessage(`Tool said: ${messages.at(-1)?.text}`)
      : new AIMessage({
          content: "",
          tool_calls: [
            { id: `call-${messages.length}`, name: "get_weather", args: { city: "Lima" } },
          ],
        });
    return { generations: [{ text: message.text, message }] };
  }
}

/**
 * A model for a tool-using agent: every `every`-th question it calls get_weather first, then
 * answers; other questions it answers at once. Answers in this process (see ToolThenAnswer).
 */
class ToolsEvery extends BaseChatModel {
  constructor(readonly every: number) {
    super({});
  }

  _llmType(): string {
    return "bench-tools-every";
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const questions = messages.filter((m) => HumanMessage.isInstance(m)).length;
    const message =
      ToolMessage.isInstance(messages.at(-1)) || questions % this.every !== 0
        ? new AIMessage(
            `answer ${messages.length}: mostly sunny tomorrow, light wind from the west.`,
          )
        : new AIMessage({
            content: "",
            tool_calls: [
              { id: `call-${messages.length}`, name: "get_weather", args: { city: "Lima" } },
            ],
          });
    return { generations: [{ text: message.text, message }] };
  }
}

/**
 * A createAgent with a ToolNode, tools every `every`-th turn, run for 300 turns on one thread:
 * bytes the saver sends by turn 100 and 300, bytes it receives, and calls per turn.
 */
async function toolAgentTraffic(emulator: EmulatorHandle, every: number, turns: number) {
  const { client, traffic } = countingClient(emulator);
  let saver: StudioCheckpointSaver | undefined = new StudioCheckpointSaver({ client });
  let agent: ReturnType<typeof createAgent> | undefined = createAgent({
    model: new ToolsEvery(every),
    tools: [getWeather],
    checkpointer: saver,
  });
  const config = { configurable: { thread_id: `bench-tools-${every}` } };
  const at = new Map<number, Traffic>();
  for (let turn = 1; turn <= turns; turn++) {
    await agent.invoke(
      { messages: [{ role: "user", content: `question ${turn}: the weather in Lima tomorrow?` }] },
      config,
    );
    if (turn === 100 || turn === 300) at.set(turn, { ...traffic });
  }
  // What the building process keeps for the thread: the heap with its saver, less without it.
  const tuple = await saver.getTuple(config);
  const newestBytes = (await saver.serde.dumpsTyped(tuple?.checkpoint))[1].byteLength;
  const withSaver = await heapUsed();
  saver = undefined;
  agent = undefined;
  const heap = (withSaver - (await heapUsed())) / newestBytes;
  await client.close();
  const t100 = at.get(100)!;
  const t300 = at.get(300)!;
  return {
    growth: t300.sent / t100.sent,
    receivedPerSent: t300.received / t300.sent,
    callsPerTurn: (t300.calls - t100.calls) / 200,
    heap,
  };
}

/** Rows for a tool-using agent (the bytes rows README gives for agents with tools). */
async function toolAgentRows(): Promise<BenchRow[]> {
  const emulator = await startEmulator({ recordRequests: false });
  try {
    const rows: BenchRow[] = [];
    for (const [every, label, turns] of [
      [2, "tools every other turn", 500],
      [1, "tools every turn", 300],
    ] as const) {
      const result = await toolAgentTraffic(emulator, every, turns);
      const { growth, receivedPerSent, callsPerTurn, heap } = result;
      const at = `createAgent + ToolNode, ${label}`;
      rows.push(
        {
          what: `${at}: bytes sent writing 300 turns / writing 100 turns`,
          value: growth,
          unit: "x",
          target: "<= 4x",
          pass: growth <= 4,
        },
        {
          what: `${at}: bytes received / bytes sent by the writer`,
          value: receivedPerSent,
          unit: "x",
          target: "<= 1.3x",
          pass: receivedPerSent <= 1.3,
        },
        { what: `${at}: checkpointer calls per turn`, value: callsPerTurn, unit: "calls" },
        {
          what: `${at}: building process, saver heap after ${turns} turns / newest checkpoint's size`,
          value: heap,
          unit: "x",
          ...(turns === 500 ? { target: "<= 10x", pass: heap <= 10 } : {}),
        },
      );
    }
    return rows;
  } finally {
    await emulator.close();
  }
}

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

/** What a client sent and received, counted in a wrapped `fetch`. */
interface Traffic {
  calls: number;
  sent: number;
  received: number;
}

function countingClient(emulator: EmulatorHandle): { client: StudioClient; traffic: Traffic } {
  const traffic: Traffic = { calls: 0, sent: 0, received: 0 };
  const { apiKey, baseUrl, proxyUrl } = emulator;
  const client = new StudioClient({
    apiKey,
    baseUrl,
    proxyUrl,
    fetch: async (input, init) => {
      traffic.calls += 1;
      if (typeof init?.body === "string") traffic.sent += Buffer.byteLength(init.body);
      const response = await fetch(input, init);
      const body = await response.arrayBuffer();
      traffic.received += body.byteLength;
      return new Response(body, { status: response.status, headers: response.headers });
    },
  });
  return { client, traffic };
}

const serde = new JsonPlusSerializer();
const decoder = new TextDecoder();

/** One message of turn `turn`, as LangChain serializes it (the serializer revives it). */
async function message(turn: number, step: number): Promise<unknown> {
  const call = { id: `call-${turn}`, name: "get_weather", args: { city: "Oslo" } };
  const made = [
    new HumanMessage({ id: `h-${turn}`, content: `get_weather {"city": "Oslo"} for day ${turn}` }),
    new AIMessage({ id: `ai-${turn}-call`, content: "", tool_calls: [call] }),
    new ToolMessage({ id: `tool-${turn}`, tool_call_id: call.id, content: "Oslo: sunny, 22°C" }),
    new AIMessage({ id: `ai-${turn}`, content: `Tool said: Oslo: sunny, 22°C (day ${turn}).` }),
  ][step]!;
  return JSON.parse(decoder.decode((await serde.dumpsTyped(made))[1]));
}

/**
 * Writes `turns` agent-shaped turns to a thread; `onTurn` runs after each. Each turn is an input
 * checkpoint, then four steps that each add a message, with each step's task writes.
 */
async function writeTurns(
  saver: StudioCheckpointSaver,
  threadId: string,
  turns: number,
  onTurn: (turn: number) => void = () => {},
): Promise<void> {
  let config: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
  const messages: unknown[] = [];
  let versions: Record<string, string> = {};
  const put = async (changed: Record<string, unknown>, step: number) => {
    const newVersions = Object.fromEntries(
      Object.keys(changed).map((channel) => [
        channel,
        String(saver.getNextVersion(versions[channel] as never)),
      ]),
    );
    versions = { ...versions, ...newVersions };
    const checkpoint = { ...emptyCheckpoint(), id: uuid6(-1), channel_versions: versions };
    checkpoint.channel_values = { messages, step };
    config = await saver.put(
      config,
      checkpoint,
      { source: "loop", step, parents: {} },
      newVersions,
    );
  };
  for (let turn = 0; turn < turns; turn++) {
    await put({ step: 0 }, 0);
    for (let step = 0; step < 4; step++) {
      const added = await message(turn, step);
      await saver.putWrites(config, [["messages", [added]]], `task-${turn}-${step}`);
      messages.push(added);
      await put({ messages, step: step + 1 }, step + 1);
    }
    onTurn(turn + 1);
  }
}

/**
 * What a process new to a `turns`-turn thread pays: the first read (calls, bytes, the heap the
 * saver keeps) in one process, and one agent turn in another.
 */
async function newProcessTurn(emulator: EmulatorHandle, turns: number) {
  const threadId = `bench-long-${turns}`;
  const writer = countingClient(emulator);
  const sentAt = new Map<number, number>();
  await writeTurns(new StudioCheckpointSaver({ client: writer.client }), threadId, turns, (turn) =>
    sentAt.set(turn, writer.traffic.sent),
  );
  await writer.client.close();
  const config = { configurable: { thread_id: threadId } };

  const reader = countingClient(emulator);
  let saver: StudioCheckpointSaver | undefined = new StudioCheckpointSaver({
    client: reader.client,
  });
  const tuple = await saver.getTuple(config);
  const firstRead = { ...reader.traffic };
  const newestBytes = (await saver.serde.dumpsTyped(tuple?.checkpoint))[1].byteLength;
  // What the saver keeps for the thread: the heap with it, less the heap once it is released.
  const withSaver = await heapUsed();
  await saver.getTuple(config);
  saver = undefined;
  const warmHeap = withSaver - (await heapUsed());
  await reader.client.close();

  const other = countingClient(emulator);
  const agent = createAgent({
    model: new ToolThenAnswer({}),
    tools: [getWeather],
    checkpointer: new StudioCheckpointSaver({ client: other.client }),
  });
  const started = performance.now();
  const result = await agent.invoke(
    { messages: [{ role: "user", content: 'get_weather {"city": "Lima"}' }] },
    config,
  );
  const turnMs = performance.now() - started;
  await other.client.close();
  if (result.messages.length !== turns * 4 + 4) {
    throw new Error(`the agent read ${result.messages.length - 4} messages, not ${turns * 4}`);
  }
  return {
    turnCalls: other.traffic.calls,
    turnReceived: other.traffic.received,
    turnMs,
    firstRead,
    newestBytes,
    warmHeap,
    sentAt,
  };
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

    const rows = [
      ...(await longThreadRows()),
      ...(await toolAgentRows()),
      ...(await encryptedRows()),
    ];
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
      ...rows,
    ];
  } finally {
    await client.close();
    await emulator.close();
  }
}

/** Rows for long threads, on an emulator that keeps no request log (it would hold every message). */
async function longThreadRows(): Promise<BenchRow[]> {
  const emulator = await startEmulator({ recordRequests: false });
  try {
    const rows: BenchRow[] = [];
    let long: Awaited<ReturnType<typeof newProcessTurn>> | undefined;
    for (const turns of [10, 100, 500]) {
      long = await newProcessTurn(emulator, turns);
      const at = `new process, one agent turn on a ${turns}-turn thread`;
      rows.push(
        // A look-up, a first read of at most 3 pages, 5 checkpoints and 4 writes; and one more
        // per 100,000 characters of a record: createAgent sends each tool call the whole state,
        // which LangGraph stores as a write and in its tasks channel.
        { what: `${at}: checkpointer calls`, value: long.turnCalls, unit: "calls" },
        { what: `${at}: bytes received`, value: long.turnReceived / 1024, unit: "KiB" },
        { what: `${at}: time`, value: long.turnMs, unit: "ms" },
        {
          what: `${at}: saver heap for the thread`,
          value: long.warmHeap / 2 ** 20,
          unit: "MB",
        },
      );
    }
    const { firstRead, newestBytes, warmHeap, sentAt } = long!;
    const received = firstRead.received / newestBytes;
    const heap = warmHeap / newestBytes;
    const growth = (sentAt.get(300) ?? Number.NaN) / (sentAt.get(100) ?? Number.NaN);
    rows.push(
      {
        what: "first getTuple, new process, 500-turn thread: calls",
        value: firstRead.calls,
        unit: "calls",
        target: "<= 5",
        pass: firstRead.calls <= 5,
      },
      {
        what: "first getTuple, 500 turns: bytes received / newest checkpoint's size",
        value: received,
        unit: "x",
        target: "<= 3x",
        pass: received <= 3,
      },
      {
        what: "saver heap for a 500-turn thread / newest checkpoint's size",
        value: heap,
        unit: "x",
        target: "<= 10x",
        pass: heap <= 10,
      },
      {
        what: "bytes sent writing 300 turns / writing 100 turns",
        value: growth,
        unit: "x",
        target: "<= 4x",
        pass: growth <= 4,
      },
    );
    return rows;
  } finally {
    await emulator.close();
  }
}

/**
 * The same thread costs with `createEncryptedSerde`: every value sealed for its place, appended
 * parts included. Compared with the plaintext rows: the first read's bytes against the newest
 * checkpoint's plaintext size, and the growth of the bytes sent.
 */
async function encryptedRows(): Promise<BenchRow[]> {
  const emulator = await startEmulator({ recordRequests: false });
  const sealing = createEncryptedSerde({
    keys: { bench: toBase64(crypto.getRandomValues(new Uint8Array(32))) },
  });
  try {
    const threadId = "bench-sealed";
    const turns = 300;
    const writer = countingClient(emulator);
    const sentAt = new Map<number, number>();
    const started = performance.now();
    await writeTurns(
      new StudioCheckpointSaver({ client: writer.client, serde: sealing }),
      threadId,
      turns,
      (turn) => sentAt.set(turn, writer.traffic.sent),
    );
    const perPut = (performance.now() - started) / (turns * 5);
    await writer.client.close();
    const plain = countingClient(emulator);
    await writeTurns(new StudioCheckpointSaver({ client: plain.client }), "bench-plain", turns);
    await plain.client.close();

    const reader = countingClient(emulator);
    const saver = new StudioCheckpointSaver({ client: reader.client, serde: sealing });
    const tuple = await saver.getTuple({ configurable: { thread_id: threadId } });
    await reader.client.close();
    const newestBytes = (await sealing.inner.dumpsTyped(tuple?.checkpoint))[1].byteLength;
    const received = reader.traffic.received / newestBytes;
    const growth = (sentAt.get(300) ?? Number.NaN) / (sentAt.get(100) ?? Number.NaN);
    const overhead = writer.traffic.sent / plain.traffic.sent;
    const at = `encrypted, ${turns}-turn thread`;
    return [
      { what: `${at}: write, per checkpoint (with its writes)`, value: perPut, unit: "ms" },
      {
        what: `${at}: first getTuple, new process: calls`,
        value: reader.traffic.calls,
        unit: "calls",
        target: "<= 5",
        pass: reader.traffic.calls <= 5,
      },
      {
        what: `${at}: first getTuple, bytes received / newest checkpoint's plaintext size`,
        value: received,
        unit: "x",
        target: "<= 3x",
        pass: received <= 3,
      },
      {
        what: "encrypted: bytes sent writing 300 turns / writing 100 turns",
        value: growth,
        unit: "x",
        target: "<= 4x",
        pass: growth <= 4,
      },
      { what: `${at}: bytes sent, encrypted / plaintext`, value: overhead, unit: "x" },
    ];
  } finally {
    await emulator.close();
  }
}

export const memoryBench: BenchEntry = { name: "memory", run };

await runIfMain(import.meta.url, memoryBench);
