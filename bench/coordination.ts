/**
 * What `redisCoordination` costs (#35), on a redis-server of the bench's own (loopback, no
 * persistence) and the in-process emulator, instances of the server in this process:
 *
 * - Redis commands per agent turn (a model call, a tool call, a second model call) on the
 *   instance that runs it, and per streamed event (a run of EVENTS custom events, less a run of
 *   none, over EVENTS); the same for a protocol v2 run (`run.start`) and its events;
 * - Redis commands per background run (a `wait` of the echo graph), sent by every instance:
 *   admitted by an instance with a free worker slot, and by one with none
 *   (`maxBackgroundRuns: 0`), so that another instance claims it from the ready queue;
 * - bytes kept in Redis per agent turn once it ended (its record and its events, `MEMORY USAGE`);
 * - the latency an event gains when read on another instance (from Redis) rather than on the
 *   instance that runs it (from memory), median over the events of a run;
 * - runs per second of CONCURRENT conversations, one instance without coordination against three
 *   instances on Redis taking the conversations in turn (all in this one process: the row shows
 *   the coordination's overhead, not the scaling of more machines).
 *
 *   node --expose-gc --import tsx bench/coordination.ts
 */
import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import {
  type LangGraphRunnableConfig,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import type { Client } from "@langchain/langgraph-sdk";
import { createAgent } from "langchain";
import { createClient } from "redis";
import * as z from "zod";
import { ChatStudio } from "../src/chat_models";
import { StudioClient } from "../src/client";
import { createInProcessEmulator } from "../src/emulator";
import { type AgentServerHandler, createAgentServer } from "../src/server";
import { redisCoordination } from "../src/server/redis";
import type { RedisClientLike } from "../src/server/redis/connection";
import { startRedisServer } from "../test/setup/redis-server";
import { echoGraph, sdk } from "./agent-server";
import { type BenchEntry, type BenchRow, median, runIfMain } from "./harness";

const EVENTS = 200;
const TURNS = 15;
const CONCURRENT = 12;
const THROUGHPUT_RUNS = 120;

const getWeather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, {
  name: "get_weather",
  description: "The weather in a city",
  schema: z.object({ city: z.string() }),
});

function eventsGraph(spacing: number) {
  return new StateGraph(MessagesAnnotation)
    .addNode("emit", async (_state, config: LangGraphRunnableConfig) => {
      for (let i = 0; i < EVENTS; i++) {
        config.writer?.({ i, at: performance.now() });
        if (spacing > 0) await new Promise((resolve) => setTimeout(resolve, spacing));
      }
      return { messages: [new AIMessage({ content: "done" })] };
    })
    .addEdge(START, "emit")
    .compile();
}

/** A client whose copies count the commands they send (`commands.count`). */
function countingClient(url: string, commands: { count: number }): RedisClientLike {
  const base = createClient({ url, RESP: 2 }) as unknown as RedisClientLike;
  base.on("error", () => {});
  const counted = (client: RedisClientLike): RedisClientLike =>
    new Proxy(client, {
      get(target, name) {
        if (name === "sendCommand") {
          return (args: readonly string[]) => {
            commands.count++;
            return target.sendCommand(args);
          };
        }
        const value = Reflect.get(target, name) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return new Proxy(base, {
    get(target, name) {
      if (name === "duplicate") {
        return (overrides?: Record<string, unknown>) => counted(target.duplicate(overrides));
      }
      const value = Reflect.get(target, name) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    // read to the end
  }
}

export const coordinationBench: BenchEntry = {
  name: "coordination",
  async run(): Promise<BenchRow[]> {
    const redis = await startRedisServer();
    const emulator = await createInProcessEmulator({ recordRequests: false });
    const studio = new StudioClient({
      baseUrl: emulator.baseUrl,
      proxyUrl: emulator.proxyUrl,
      apiKey: emulator.apiKey,
      fetch: emulator.fetch,
    } as ConstructorParameters<typeof StudioClient>[0]);
    const agent = createAgent({
      model: new ChatStudio({ model: "studio/echo-small", client: studio }),
      tools: [getWeather],
    });
    const graphs = {
      agent,
      events: eventsGraph(0),
      spaced: eventsGraph(1),
      echo: echoGraph(),
    };
    const commands = { count: 0 };
    const handlers: AgentServerHandler[] = [];
    const instance = (name: string, counting = false) => {
      const handler = createAgentServer({
        graphs,
        checkpointer: new MemorySaver(),
        client: studio,
        coordination: redisCoordination(
          counting
            ? { client: countingClient(redis.url, commands), instanceId: name }
            : { url: redis.url, instanceId: name },
        ),
      });
      handlers.push(handler);
      return handler;
    };
    try {
      const a = instance("a", true);
      const b = instance("b");
      const c = instance("c");
      const onA = sdk(a);
      const onB = sdk(b);
      const rows: BenchRow[] = [];

      // Commands per agent turn and per event, on the instance running the run.
      const thread = await onA.threads.create();
      await drain(onA.runs.stream(thread.thread_id, "echo", { input: say("warm up") }));
      const perTurn: number[] = [];
      const bytes: number[] = [];
      const admin = createClient({ url: redis.url, RESP: 2 });
      admin.on("error", () => {});
      await admin.connect();
      for (let i = 0; i < TURNS; i++) {
        const turn = await onA.threads.create();
        emulator.script("studio/echo-small", [
          { toolCalls: [{ name: "get_weather", args: { city: "Oslo" }, id: `call_${i}` }] },
          "Sunny in Oslo.",
        ]);
        const before = commands.count;
        let runId = "";
        for await (const part of onA.runs.stream(turn.thread_id, "agent", {
          input: say("weather in Oslo?"),
          streamMode: ["values", "messages-tuple"],
        })) {
          if (part.event === "metadata") runId = (part.data as { run_id: string }).run_id;
        }
        perTurn.push(commands.count - before);
        const sizes = await Promise.all(
          [`lcs:r:${runId}`, `lcs:e:${runId}`].map(
            async (key) => Number(await admin.sendCommand(["MEMORY", "USAGE", key])) || 0,
          ),
        );
        bytes.push(sizes.reduce((x, y) => x + y, 0));
        const state = await onA.threads.getState<{ messages: { type: string }[] }>(turn.thread_id);
        const kinds = state.values.messages.map((m) => m.type).join(",");
        if (kinds !== "human,ai,tool,ai")
          throw new Error(`not an agent turn with a tool: ${kinds}`);
      }
      rows.push({
        what: "coordination: Redis commands per agent turn (model, tool, model)",
        value: median(perTurn),
        unit: "commands",
      });
      rows.push({
        what: "coordination: bytes kept in Redis per agent turn",
        value: median(bytes),
        unit: "bytes",
      });

      const counts: number[] = [];
      for (const graph of ["echo", "events"]) {
        const t = await onA.threads.create();
        const before = commands.count;
        await drain(
          onA.runs.stream(t.thread_id, graph, { input: say("go"), streamMode: "custom" }),
        );
        counts.push(commands.count - before);
      }
      rows.push({
        what: "coordination: Redis commands per streamed event",
        value: ((counts[1] ?? 0) - (counts[0] ?? 0)) / EVENTS,
        unit: "commands",
        target: "<= 1",
        pass: ((counts[1] ?? 0) - (counts[0] ?? 0)) / EVENTS <= 1,
      });

      // Protocol v2: commands per event and per run on the instance running it (A), the run's
      // end awaited through B.
      const v2Counts: number[] = [];
      let v2Fixed = 0;
      // The first v2 run loads the v2 scripts into Redis: a warm-up, not counted.
      for (const graph of ["echo", "echo", "events"]) {
        // A thread made first: its id is the service's, the v2 stream's key.
        const threadId = (await onB.threads.create()).thread_id;
        const before = commands.count;
        const answer = await a(
          new Request(`http://agent.bench/threads/${threadId}/commands`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({
              id: 1,
              method: "run.start",
              params: { assistant_id: graph, input: say("go") },
            }),
          }),
        );
        const { result } = (await answer.json()) as { result: { run_id: string } };
        await onB.runs.join(threadId, result.run_id);
        v2Counts.push(commands.count - before);
        // The run's events, one command each: what is left is the run's own cost.
        const events = Number(await admin.sendCommand(["XLEN", `lcs:v2:${threadId}`]));
        if (graph === "echo") v2Fixed = commands.count - before - events;
      }
      const perV2Event = ((v2Counts[2] ?? 0) - (v2Counts[1] ?? 0)) / EVENTS;
      rows.push({
        what: "coordination: Redis commands per protocol v2 event",
        value: perV2Event,
        unit: "commands",
        target: "<= 1",
        pass: perV2Event <= 1,
      });
      rows.push({
        what: "coordination: Redis commands per protocol v2 run, besides one per event",
        value: v2Fixed,
        unit: "commands",
      });
      // Commands per background run, sent by every instance (three of their own, under another
      // prefix): one with a free slot runs it, or the ready queue gives it to another.
      const sent = { count: 0 };
      const queued = ["q0", "q1", "q2"].map((name, i) => {
        const handler = createAgentServer({
          graphs,
          checkpointer: new MemorySaver(),
          client: studio,
          coordination: redisCoordination({
            client: countingClient(redis.url, sent),
            instanceId: name,
            keyPrefix: "queue-bench:",
            maxBackgroundRuns: i === 0 ? 0 : 8,
          }),
        });
        handlers.push(handler);
        return sdk(handler);
      });
      for (const [via, label] of [
        [queued[1], "admitting instance has a free slot"],
        [queued[0], "through the ready queue"],
      ] as const) {
        const perRun: number[] = [];
        for (let i = 0; i < 5; i++) {
          const t = await via!.threads.create();
          const before = sent.count;
          await via!.runs.wait(t.thread_id, "echo", { input: say("go") });
          perRun.push(sent.count - before);
        }
        rows.push({
          what: `coordination: Redis commands per background run (wait), ${label}`,
          value: median(perRun),
          unit: "commands",
        });
      }

      // Latency an event gains read on another instance.
      const spaced = await onA.threads.create();
      const started = await a(
        new Request(`http://agent.bench/threads/${spaced.thread_id}/runs/stream`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            assistant_id: "spaced",
            input: say("go"),
            stream_mode: ["custom"],
            on_disconnect: "continue",
          }),
        }),
      );
      const location = started.headers.get("Content-Location") ?? "";
      const local = arrivals(started);
      const remote = arrivals(await b(new Request(`http://agent.bench${location}/stream`)));
      const [here, there] = await Promise.all([local, remote]);
      // The second half of the run's events: the reader on B has caught up with the replay.
      const added = [...there.keys()]
        .filter((i) => here.has(i) && i >= EVENTS / 2)
        .map((i) => (there.get(i) ?? 0) - (here.get(i) ?? 0));
      rows.push({
        what: "coordination: latency an event gains read on another instance",
        value: Number(median(added).toFixed(2)),
        unit: "ms",
      });

      // Throughput: CONCURRENT conversations, one instance alone vs three on Redis.
      const alone = createAgentServer({ graphs, checkpointer: new MemorySaver(), client: studio });
      const oneRate = await runsPerSecond([sdk(alone)]);
      const threeRate = await runsPerSecond([onA, onB, sdk(c)]);
      rows.push({
        what: `coordination: runs/s, ${CONCURRENT} conversations, 1 instance (no Redis)`,
        value: Number(oneRate.toFixed(1)),
        unit: "runs/s",
      });
      rows.push({
        what: `coordination: runs/s, ${CONCURRENT} conversations, 3 instances on Redis (one process)`,
        value: Number(threeRate.toFixed(1)),
        unit: "runs/s",
        reference: "1 instance",
        ratio: Number((threeRate / oneRate).toFixed(2)),
      });
      await admin.close();
      return rows;
    } finally {
      await Promise.all(handlers.map((handler) => handler.close()));
      await emulator.close();
      await redis.close();
    }
  },
};

function say(text: string) {
  return { messages: [{ type: "human", content: text }] };
}

/** When each custom event `i` of a run's SSE response arrived (performance.now()). */
async function arrivals(response: Response): Promise<Map<number, number>> {
  const seen = new Map<number, number>();
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    const now = performance.now();
    buffer += value;
    const frames = buffer.split("\n\n");
    buffer = frames.pop() ?? "";
    for (const frame of frames) {
      if (!/^event: custom$/m.test(frame)) continue;
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? "{}") as { i?: number };
      if (typeof data.i === "number") seen.set(data.i, now);
    }
  }
  return seen;
}

/** Runs per second of THROUGHPUT_RUNS echo runs over CONCURRENT threads, spread over `clients`. */
async function runsPerSecond(clients: Client[]): Promise<number> {
  const first = clients[0]!;
  const threads = await Promise.all(
    Array.from({ length: CONCURRENT }, () => first.threads.create()),
  );
  let next = 0;
  const started = performance.now();
  await Promise.all(
    threads.map(async (thread) => {
      while (next < THROUGHPUT_RUNS) {
        const client = clients[next % clients.length]!;
        next++;
        await drain(client.runs.stream(thread.thread_id, "echo", { input: say("hi") }));
      }
    }),
  );
  return THROUGHPUT_RUNS / ((performance.now() - started) / 1000);
}

await runIfMain(import.meta.url, coordinationBench);
