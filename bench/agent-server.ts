/**
 * `createAgentServer` against LangGraph's own server (`@langchain/langgraph-api`'s
 * `createEmbedServer`) on the same graphs, both on `MemorySaver`, each driven by the SDK's
 * `Client` in process (its `fetch` calls the handler: no socket). Ours keeps its thread list on
 * an in-process emulator. Interleaved rounds in one process; ratios are medians of per-round
 * ratios (`pairedRatioRow`).
 *
 * - time per run: one streamed run of a one-node graph on a thread made beforehand (the first
 *   message of a conversation), `<= 1.0x` the reference's;
 * - events per second: one run whose node writes EVENTS custom events, streamed in "custom" mode,
 *   `>= 1.0x` the reference's rate;
 * - heap per open stream: STREAMS runs held open at once (their node waits on a gate);
 * - service calls per message: what one more message on a thread costs the thread list;
 * - protocol v2: a run as `@langchain/react`'s `useStream` starts one (a thread id minted by the
 *   client, `run.start`, the thread's event stream until the run's output): the first message,
 *   which creates the thread, and the next message on a thread that had one (the threads made
 *   beforehand, one per run); and the service calls of that first message (its thread's look-up
 *   and creation apart from the message's own) and of a second one on the same thread.
 *
 *   node --expose-gc --import tsx bench/agent-server.ts
 */

import { AIMessage } from "@langchain/core/messages";
import {
  type LangGraphRunnableConfig,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { createEmbedServer, type ThreadSaver } from "@langchain/langgraph-api/experimental/embed";
import { Client } from "@langchain/langgraph-sdk";
import { StudioClient } from "../src/client";
import { createInProcessEmulator } from "../src/emulator";
import { createAgentServer } from "../src/server";
import {
  type BenchEntry,
  type BenchRow,
  measureRounds,
  median,
  pairedRatioRow,
  runIfMain,
} from "./harness";

type Handler = (request: Request) => Promise<Response>;

const EVENTS = 500;
const STREAMS = 100;
const MAX_CALLS_PER_MESSAGE = 3;
/** A client-minted thread's look-up and creation (`src/server/v2/thread-ids.ts` says why). */
const MAX_CALLS_TO_CREATE = 4;
const INPUT = { messages: [{ type: "human", content: "hello" }] };

export function echoGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("reply", (state) => ({
      messages: [new AIMessage({ content: `You said: ${state.messages.at(-1)?.text ?? ""}` })],
    }))
    .addEdge(START, "reply")
    .compile();
}

function eventsGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("emit", (_state, config: LangGraphRunnableConfig) => {
      for (let i = 0; i < EVENTS; i++) config.writer?.({ i });
      return { messages: [new AIMessage({ content: "done" })] };
    })
    .addEdge(START, "emit")
    .compile();
}

/** A graph whose node waits until `gate` opens: its runs stay open as long as we like. */
function heldGraph(gate: { wait: () => Promise<void> }) {
  return new StateGraph(MessagesAnnotation)
    .addNode("hold", async (_state, config: LangGraphRunnableConfig) => {
      config.writer?.({ held: true });
      await gate.wait();
      return { messages: [new AIMessage({ content: "released" })] };
    })
    .addEdge(START, "hold")
    .compile();
}

/** The SDK's v2 `ThreadStream` on a new client-minted thread: one run, read to its output. */
async function runV2(client: Client, handler: Handler, threadId?: string): Promise<void> {
  const fetch = ((input: string | URL | Request, init?: RequestInit) =>
    handler(new Request(input, init))) as typeof globalThis.fetch;
  const options = { assistantId: "echo", fetch };
  const thread =
    threadId === undefined
      ? client.threads.stream(options)
      : client.threads.stream(threadId, options);
  try {
    await thread.run.start({ input: INPUT });
    await thread.output;
  } finally {
    await thread.close();
  }
}

/** Client-minted threads that have had one v2 message, made before the clock starts. */
async function v2ThreadPool(client: Client, handler: Handler, size: number) {
  const ids: string[] = [];
  for (let i = 0; i < size; i++) {
    const id = crypto.randomUUID();
    await runV2(client, handler, id);
    ids.push(id);
  }
  return () => {
    const id = ids.pop();
    if (id === undefined) throw new Error("the bench ran more v2 runs than it made threads for");
    return id;
  };
}

export function sdk(handler: Handler): Client {
  return new Client({
    apiUrl: "http://agent.bench",
    callerOptions: {
      maxRetries: 0,
      fetch: (input: string | URL | Request, init?: RequestInit) =>
        handler(new Request(input, init)),
    },
  });
}

/** The reference's thread list, in memory (it asks for one). */
function memoryThreads(): ThreadSaver {
  const threads = new Map<string, { thread_id: string; metadata: Record<string, unknown> }>();
  return {
    async get(id) {
      const thread = threads.get(id);
      if (!thread) throw new Error(`Thread ${id} not found`);
      return thread;
    },
    async set(id, { kind, metadata }) {
      const thread = {
        thread_id: id,
        metadata:
          kind === "patch" ? { ...threads.get(id)?.metadata, ...metadata } : { ...metadata },
      };
      threads.set(id, thread);
      return thread;
    },
    async delete(id) {
      threads.delete(id);
    },
  };
}

function gate() {
  let open: () => void = () => {};
  let opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    wait: () => opened,
    open: () => open(),
    close: () => {
      opened = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
  };
}

/** Threads made before the clock starts, one per run: every run is a first message. */
async function threadPool(client: Client, size: number): Promise<() => string> {
  const ids: string[] = [];
  for (let i = 0; i < size; i++) ids.push((await client.threads.create()).thread_id);
  return () => {
    const id = ids.pop();
    if (id === undefined) throw new Error("the bench ran more runs than it made threads for");
    return id;
  };
}

async function run(
  client: Client,
  threadId: string,
  graph: string,
  streamMode?: "custom",
): Promise<number> {
  let events = 0;
  for await (const part of client.runs.stream(threadId, graph, {
    input: INPUT,
    ...(streamMode ? { streamMode } : {}),
  })) {
    if (part.event === "custom") events++;
    if (part.event === "error") throw new Error(`run failed: ${JSON.stringify(part.data)}`);
  }
  return events;
}

function heapUsed(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

/** Bytes of heap per stream while STREAMS runs are open at once. */
async function heapPerOpenStream(client: Client, held: ReturnType<typeof gate>): Promise<number> {
  held.close();
  const threads = await Promise.all(Array.from({ length: STREAMS }, () => client.threads.create()));
  const before = heapUsed();
  const started: Promise<void>[] = [];
  const finished: Promise<void>[] = [];
  for (const thread of threads) {
    let first: () => void = () => {};
    started.push(
      new Promise<void>((resolve) => {
        first = resolve;
      }),
    );
    finished.push(
      (async () => {
        for await (const part of client.runs.stream(thread.thread_id, "held", {
          input: INPUT,
          streamMode: "custom",
        })) {
          if (part.event === "custom") first();
        }
      })(),
    );
  }
  await Promise.all(started);
  const during = heapUsed();
  held.open();
  await Promise.all(finished);
  return (during - before) / STREAMS;
}

export const agentServerBench: BenchEntry = {
  name: "agent-server",
  async run(): Promise<BenchRow[]> {
    const emulator = await createInProcessEmulator({ recordRequests: false });
    // `records`: the calls on a thread's messages (a record's read and its save), the rest being
    // look-ups and creations.
    const calls = { count: 0, records: 0 };
    const studio = new StudioClient({
      baseUrl: emulator.baseUrl,
      proxyUrl: emulator.proxyUrl,
      apiKey: emulator.apiKey,
      fetch: (input: string | URL | Request, init?: RequestInit) => {
        calls.count++;
        if (/\/threads\/[^/?]+\/messages/.test(String(input))) calls.records++;
        return emulator.fetch(input, init);
      },
    } as ConstructorParameters<typeof StudioClient>[0]);
    const oursGate = gate();
    const refGate = gate();
    const oursHandler = createAgentServer({
      graphs: { echo: echoGraph(), events: eventsGraph(), held: heldGraph(oursGate) },
      checkpointer: new MemorySaver(),
      client: studio,
    });
    const ours = sdk(oursHandler);
    const app = createEmbedServer({
      graph: {
        echo: echoGraph() as never,
        events: eventsGraph() as never,
        held: heldGraph(refGate) as never,
      },
      threads: memoryThreads(),
      checkpointer: new MemorySaver(),
    });
    const refHandler: Handler = async (request) => app.fetch(request);
    const reference = sdk(refHandler);
    try {
      for (const [name, client] of [
        ["ours", ours],
        ["reference", reference],
      ] as const) {
        const thread = await client.threads.create();
        const got = await run(client, thread.thread_id, "events", "custom");
        if (got !== EVENTS) throw new Error(`${name}: ${got} custom events, not ${EVENTS}`);
      }

      const runs = { warmup: 30, rounds: 12, iterations: 30 };
      const runThreads = runs.warmup + 1 + runs.rounds * runs.iterations;
      const oursThreads = await threadPool(ours, runThreads);
      const refThreads = await threadPool(reference, runThreads);
      const perRun = await measureRounds(
        {
          ours: () => run(ours, oursThreads(), "echo"),
          reference: () => run(reference, refThreads(), "echo"),
        },
        runs,
      );
      const eventRuns = { warmup: 5, rounds: 12, iterations: 4 };
      const eventThreads = eventRuns.warmup + 1 + eventRuns.rounds * eventRuns.iterations;
      const oursEventThreads = await threadPool(ours, eventThreads);
      const refEventThreads = await threadPool(reference, eventThreads);
      const perEventRun = await measureRounds(
        {
          ours: () => run(ours, oursEventThreads(), "events", "custom"),
          reference: () => run(reference, refEventThreads(), "events", "custom"),
        },
        eventRuns,
      );
      const rate = (us: number[]) => us.map((t) => EVENTS / (t / 1e6));
      const oursRate = rate(perEventRun.ours);
      const refRate = rate(perEventRun.reference);
      const rateRatio = median(oursRate.map((r, i) => r / (refRate[i] ?? Number.NaN)));

      const heap = { ours: [] as number[], reference: [] as number[] };
      for (let round = 0; round < 3; round++) {
        heap.ours.push(await heapPerOpenStream(ours, oursGate));
        heap.reference.push(await heapPerOpenStream(reference, refGate));
      }

      const thread = await ours.threads.create();
      const message = async () => {
        for await (const _ of ours.runs.stream(thread.thread_id, "echo", { input: INPUT })) {
          // drained
        }
      };
      await message();
      const perMessage: number[] = [];
      for (let i = 0; i < 5; i++) {
        const before = calls.count;
        await message();
        perMessage.push(calls.count - before);
      }
      const callsPerMessage = median(perMessage);

      const perV2Run = await measureRounds(
        { ours: () => runV2(ours, oursHandler), reference: () => runV2(reference, refHandler) },
        { warmup: 10, rounds: 8, iterations: 10 },
      );
      const v2Runs = { warmup: 10, rounds: 8, iterations: 10 };
      const v2Threads = v2Runs.warmup + 1 + v2Runs.rounds * v2Runs.iterations;
      const oursV2Threads = await v2ThreadPool(ours, oursHandler, v2Threads);
      const refV2Threads = await v2ThreadPool(reference, refHandler, v2Threads);
      const perV2Next = await measureRounds(
        {
          ours: () => runV2(ours, oursHandler, oursV2Threads()),
          reference: () => runV2(reference, refHandler, refV2Threads()),
        },
        v2Runs,
      );
      const v2Thread = crypto.randomUUID();
      let before = calls.count;
      const recordsBefore = calls.records;
      await runV2(ours, oursHandler, v2Thread);
      const v2First = calls.count - before;
      const v2FirstOwn = calls.records - recordsBefore;
      before = calls.count;
      await runV2(ours, oursHandler, v2Thread);
      const v2Second = calls.count - before;

      const ms = (us: number[]) => us.map((t) => t / 1000);
      return [
        {
          what: "agent server (createEmbedServer): streamed run (first message of a thread)",
          value: median(ms(perRun.reference)),
          unit: "ms/run",
        },
        pairedRatioRow(
          "agent server: streamed run (first message of a thread)",
          ms(perRun.ours),
          "ms/run",
          "createEmbedServer",
          ms(perRun.reference),
          1.0,
        ),
        {
          what: `agent server (createEmbedServer): custom events, ${EVENTS} per run`,
          value: median(refRate),
          unit: "events/s",
        },
        {
          what: `agent server: custom events, ${EVENTS} per run`,
          value: median(oursRate),
          unit: "events/s",
          reference: "createEmbedServer",
          ratio: rateRatio,
          target: ">= 1.00x",
          pass: rateRatio >= 1.0,
        },
        {
          what: `agent server (createEmbedServer): heap per open stream, ${STREAMS} open`,
          value: median(heap.reference) / 1024,
          unit: "KiB",
        },
        {
          what: `agent server: heap per open stream, ${STREAMS} open`,
          value: median(heap.ours) / 1024,
          unit: "KiB",
          reference: "createEmbedServer",
          ratio: median(heap.ours) / median(heap.reference),
        },
        {
          what: "agent server: service calls per message (thread list, MemorySaver)",
          value: callsPerMessage,
          unit: "calls",
          target: `<= ${MAX_CALLS_PER_MESSAGE}`,
          pass: callsPerMessage <= MAX_CALLS_PER_MESSAGE,
        },
        {
          what: "agent server (createEmbedServer): v2 run on a client-minted thread",
          value: median(ms(perV2Run.reference)),
          unit: "ms/run",
        },
        pairedRatioRow(
          "agent server: v2 run on a client-minted thread",
          ms(perV2Run.ours),
          "ms/run",
          "createEmbedServer",
          ms(perV2Run.reference),
          1.0,
        ),
        {
          what: "agent server (createEmbedServer): v2 run, next message of a client-minted thread",
          value: median(ms(perV2Next.reference)),
          unit: "ms/run",
        },
        pairedRatioRow(
          "agent server: v2 run, next message of a client-minted thread",
          ms(perV2Next.ours),
          "ms/run",
          "createEmbedServer",
          ms(perV2Next.reference),
          1.0,
        ),
        {
          // A creation, stated apart as v1's POST /threads is (docs/chat-ui.md, protocol v2 costs).
          what: "agent server: service calls, creating a client-minted thread (first v2 message)",
          value: v2First - v2FirstOwn,
          unit: "calls",
          target: `<= ${MAX_CALLS_TO_CREATE}`,
          pass: v2First - v2FirstOwn <= MAX_CALLS_TO_CREATE,
        },
        {
          what: "agent server: service calls, first v2 message beyond its thread's creation",
          value: v2FirstOwn,
          unit: "calls",
          target: `<= ${MAX_CALLS_PER_MESSAGE}`,
          pass: v2FirstOwn <= MAX_CALLS_PER_MESSAGE,
        },
        {
          what: "agent server: service calls, next v2 message on that thread",
          value: v2Second,
          unit: "calls",
          target: `<= ${MAX_CALLS_PER_MESSAGE}`,
          pass: v2Second <= MAX_CALLS_PER_MESSAGE,
        },
      ];
    } finally {
      await studio.close();
      await emulator.close();
    }
  },
};

await runIfMain(import.meta.url, agentServerBench);
