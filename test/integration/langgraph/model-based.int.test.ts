/**
 * Model-based test of the checkpointer: random agent workloads (a tool, parallel tool calls, a
 * tool that asks a person and is approved, edited or rejected, `Send` fan-out, a subgraph that
 * interrupts, a task that fails beside one that succeeds and is retried) interleaved with
 * `prune`, forks (`updateState` on an older checkpoint), replays, and a second saver (another
 * process: its own client) continuing the thread, in `keep: "all"` and `keep: "latest"`.
 *
 * The model is a MemorySaver that receives every `put` and `putWrites` the savers make (a tee):
 * after every step, every checkpoint the thread still holds, read by a fresh saver, must read as
 * the MemorySaver reads it, and the newest state (values, next tasks, pending writes, interrupts)
 * must be the MemorySaver's. Puts are slowed at random, as over a slow link, so that LangGraph
 * stores a step's writes before its checkpoint; and a prune sometimes runs right after an
 * interrupt is stored, as another process's would while the run goes on. Seeded: a failure
 * names its seed and step.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import {
  Annotation,
  Command,
  END,
  interrupt,
  MemorySaver,
  messagesStateReducer,
  Send,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  INTERRUPT,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { StudioClient } from "../../../src/client";
import { toBase64 } from "../../../src/converters/base64";
import { createEncryptedSerde, StudioCheckpointSaver } from "../../../src/langgraph";
import { useInProcessEmulator } from "../../helpers/emulator";

// In process: the savers' clients reach the emulator through its fetch, no loopback. The subject
// is what the checkpoints read as, not the transport; each saver still has a client of its own.
const emulator = useInProcessEmulator({ recordRequests: false });

beforeEach(async () => {
  await emulator.handle.reset();
});

/** A key for the encrypted runs (its bytes are of no importance to the test). */
const KEYS = { k1: toBase64(new Uint8Array(32).fill(7)) };
let encrypted = false;

function studioSaver(keep: "all" | "latest") {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  return new StudioCheckpointSaver({
    client: new StudioClient({ baseUrl, proxyUrl, apiKey, fetch: emulator.handle.fetch }),
    keep,
    ...(encrypted ? { serde: createEncryptedSerde({ keys: KEYS }) } : {}),
  });
}

/** A seeded random source (mulberry32). */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A process's saver: reads and writes through its own StudioCheckpointSaver, and tells the model
 * (a MemorySaver shared by all processes) every put and write it makes.
 */
class Process extends BaseCheckpointSaver {
  /** Run after an interrupt is stored (another process pruning while this run goes on). */
  onInterrupt: (() => Promise<unknown>) | undefined;
  constructor(
    readonly studio: StudioCheckpointSaver,
    readonly model: MemorySaver,
    readonly random: () => number,
  ) {
    super();
  }
  override getNextVersion(current: number | undefined): number {
    return this.studio.getNextVersion(current);
  }
  getTuple(config: RunnableConfig) {
    return this.studio.getTuple(config);
  }
  list(config: RunnableConfig, options?: CheckpointListOptions) {
    return this.studio.list(config, options);
  }
  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ) {
    // Both serialize the checkpoint when called, before LangGraph's next step goes on.
    const stored = this.studio.put(config, checkpoint, metadata, newVersions);
    await this.model.put(config, checkpoint, metadata);
    if (this.random() < 0.3) await new Promise((r) => setTimeout(r, 5 + this.random() * 30));
    return stored;
  }
  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string) {
    const stored = this.studio.putWrites(config, writes, taskId);
    await this.model.putWrites(config, writes, taskId);
    await stored;
    if (this.onInterrupt && writes.some(([channel]) => channel === INTERRUPT)) {
      await this.onInterrupt();
    }
  }
  deleteThread(threadId: string) {
    return this.studio.deleteThread(threadId);
  }
}

const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
  fanout: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
});
type S = typeof State.State;

/** What the world outside the graph is doing: a broken dependency, counts of side effects. */
interface World {
  broken: boolean;
  steadyRuns: number;
}

const lookup = tool(({ q }) => `found ${q}`, {
  name: "lookup",
  description: "Looks something up.",
  schema: z.object({ q: z.string() }),
});
const book = tool(
  ({ city }) => {
    const answer = interrupt({ book: city }) as string | { edit: string };
    if (answer === "reject") return `not booked: ${city}`;
    return typeof answer === "string" ? `booked ${city}` : `booked ${answer.edit} instead`;
  },
  { name: "book", description: "Books a trip.", schema: z.object({ city: z.string() }) },
);

/** What the scripted model does for the turn a human message asks for. */
function agentReply(state: S): AIMessage {
  const last = state.messages.at(-1);
  const n = state.messages.length;
  const ask = state.messages.findLast((m) => HumanMessage.isInstance(m))?.text ?? "";
  if (!HumanMessage.isInstance(last)) return new AIMessage({ id: `ai-${n}`, content: "done" });
  const call = (name: string, args: Record<string, string>, i = 0) => ({
    id: `call-${n}-${i}`,
    name,
    args,
  });
  switch (ask) {
    case "tool":
      return new AIMessage({
        id: `ai-${n}`,
        content: "",
        tool_calls: [call("lookup", { q: "a" })],
      });
    case "parallel":
      return new AIMessage({
        id: `ai-${n}`,
        content: "",
        tool_calls: [call("lookup", { q: "a" }), call("lookup", { q: "b" }, 1)],
      });
    case "ask":
      return new AIMessage({
        id: `ai-${n}`,
        content: "",
        tool_calls: [call("book", { city: "Oslo" })],
      });
    default:
      return new AIMessage({ id: `ai-${n}`, content: `on it: ${ask}` });
  }
}

function agentGraph(checkpointer: BaseCheckpointSaver, world: World) {
  const sub = new StateGraph(State)
    .addNode("inner", (state: S) => {
      const ok = interrupt({ sub: state.messages.length }) as string;
      return {
        messages: [new AIMessage({ id: `sub-${state.messages.length}`, content: `sub: ${ok}` })],
      };
    })
    .addEdge(START, "inner")
    .addEdge("inner", END)
    .compile();
  return (
    new StateGraph(State)
      .addNode("agent", (state: S) => ({ messages: [agentReply(state)] }))
      .addNode("tools", new ToolNode([lookup, book]))
      // Like createAgent's tool calls, each Send carries the state.
      .addNode("worker", (arg: { item: string; messages: BaseMessage[] }) => ({
        fanout: [`${arg.item}@${arg.messages.length}`],
      }))
      .addNode("sub", sub)
      .addNode("flaky", () => {
        if (world.broken) throw new Error("dependency down");
        return { messages: [new AIMessage({ id: "flaky", content: "flaky ok" })] };
      })
      .addNode("steady", (state: S) => {
        world.steadyRuns += 1;
        return {
          messages: [new AIMessage({ id: `steady-${state.messages.length}`, content: "steady" })],
        };
      })
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (state: S) => {
        const last = state.messages.at(-1) as AIMessage;
        if (last.tool_calls?.length) return "tools";
        const ask = state.messages.findLast((m) => HumanMessage.isInstance(m))?.text;
        if (last.text === "done") return END;
        if (ask === "send")
          return ["x", "y", "z"].map(
            (item) => new Send("worker", { item, messages: state.messages }),
          );
        if (ask === "sub") return "sub";
        if (ask === "fail") return ["flaky", "steady"];
        return END;
      })
      .addEdge("tools", "agent")
      .addEdge("worker", END)
      .addEdge("sub", END)
      .addEdge("flaky", END)
      .addEdge("steady", END)
      .compile({ checkpointer })
  );
}

/** A tuple as compared: pending writes in a stable order, configs by their ids. */
function comparable(tuple: CheckpointTuple | undefined) {
  if (!tuple) return undefined;
  const writes = [...(tuple.pendingWrites ?? [])].sort((a, b) =>
    JSON.stringify([a[0], a[1]]) < JSON.stringify([b[0], b[1]]) ? -1 : 1,
  );
  // MemorySaver keeps the values of channels that have no version yet (a reducer's default, an
  // empty Topic); savers that store values by version (this one, Postgres) do not, and LangGraph
  // gives those channels their defaults on load either way.
  const { channel_values: values, channel_versions: versions } = tuple.checkpoint;
  const versioned = Object.fromEntries(Object.entries(values).filter(([ch]) => ch in versions));
  return {
    id: tuple.config.configurable?.checkpoint_id,
    ns: tuple.config.configurable?.checkpoint_ns ?? "",
    checkpoint: { ...tuple.checkpoint, channel_values: versioned },
    metadata: tuple.metadata,
    parent: tuple.parentConfig?.configurable?.checkpoint_id,
    writes,
  };
}

function stateView(state: Awaited<ReturnType<ReturnType<typeof agentGraph>["getState"]>>) {
  return {
    values: state.values,
    next: state.next,
    id: state.config.configurable?.checkpoint_id,
    tasks: state.tasks.map((task) => ({
      name: task.name,
      interrupts: task.interrupts.map((i) => i.value),
      error: task.error !== undefined,
    })),
  };
}

const KINDS = ["answer", "tool", "parallel", "ask", "send", "sub", "fail"] as const;

async function runWorkload(seed: number, keep: "all" | "latest", steps: number) {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const threadId = `mbt-${seed}-${keep}`;
  const config = { configurable: { thread_id: threadId } };
  const model = new MemorySaver();
  const world: World = { broken: false, steadyRuns: 0 };
  const processes = [0, 1].map(() => new Process(studioSaver(keep), model, random));
  const pruner = studioSaver(keep);
  let failTurns = 0;
  const log: string[] = [];

  for (let step = 0; step < steps; step++) {
    const proc = pick(processes);
    const graph = agentGraph(proc, world);
    const state = await graph.getState(config);
    const waiting = state.tasks.some((task) => task.interrupts.length > 0);
    const failed = state.tasks.some((task) => task.error !== undefined);
    proc.onInterrupt =
      keep === "all" && random() < 0.3
        ? () => pruner.prune([threadId], { keepLast: 1 + Math.floor(random() * 2) })
        : undefined;
    let action: string;
    if (waiting) {
      const answer = pick(["approve", { edit: "Rome" }, "reject"] as const);
      action = `resume ${JSON.stringify(answer)}`;
      await graph.invoke(new Command({ resume: answer }), config);
    } else if (failed) {
      world.broken = false;
      action = "retry";
      await graph.invoke(null, config);
    } else {
      const roll = random();
      if (keep === "all" && roll < 0.12) {
        const keepLast = 1 + Math.floor(random() * 3);
        action = `prune ${keepLast}`;
        await pruner.prune([threadId], { keepLast });
      } else if (keep === "all" && roll < 0.25 && step > 2) {
        const history = [];
        for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
        const older = history
          .slice(1)
          .filter((s) => s.next.length === 0 || s.next.includes("agent"));
        const target = older.length > 0 ? pick(older) : undefined;
        if (target && (target.next.length === 0 || random() < 0.5)) {
          action = `fork ${target.config.configurable?.checkpoint_id}`;
          await graph.updateState(
            target.config,
            { messages: [new HumanMessage("forked")] },
            "agent",
          );
        } else if (target) {
          action = `replay ${target.config.configurable?.checkpoint_id}`;
          await graph.invoke(null, target.config).catch((error: Error) => {
            if (!/dependency down/.test(error.message)) throw error;
          });
        } else {
          action = "nothing to fork";
        }
      } else {
        const kind = pick(KINDS);
        action = `turn ${kind}`;
        if (kind === "fail") {
          world.broken = true;
          failTurns += 1;
        }
        await graph
          .invoke({ messages: [new HumanMessage({ id: `h-${step}`, content: kind })] }, config)
          .catch((error: Error) => {
            if (!/dependency down/.test(error.message)) throw error;
          });
      }
    }
    log.push(`${step}: ${action}`);
    const where = `seed ${seed} (${keep}), after ${log.join("; ")}`;

    // Every checkpoint the thread still holds reads as the model reads it.
    const reader = studioSaver(keep);
    const kept: string[] = [];
    for await (const tuple of reader.list(config)) {
      const ns = tuple.config.configurable?.checkpoint_ns ?? "";
      const id = tuple.config.configurable?.checkpoint_id as string;
      kept.push(`${ns}/${id}`);
      const expected = await model.getTuple({
        configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: id },
      });
      expect(comparable(tuple), where).toEqual(comparable(expected));
    }
    expect(kept.length, where).toBeGreaterThan(0);
    // The newest state, with its pending writes and interrupts, is the model's.
    const fresh = await agentGraph(studioSaver(keep), world).getState(config);
    const truth = await agentGraph(model, world).getState(config);
    expect(stateView(fresh), where).toEqual(stateView(truth));
    expect(comparable(await reader.getTuple(config)), where).toEqual(
      comparable(await model.getTuple(config)),
    );
  }
  if (process.env.MBT_LOG) console.log(`seed ${seed} (${keep}): ${log.join("; ")}`);
  // A task that succeeded beside a failing one never ran again on the retry.
  expect(world.steadyRuns, `seed ${seed} (${keep}): ${log.join("; ")}`).toBeLessThanOrEqual(
    failTurns + log.filter((entry) => entry.includes("replay")).length,
  );
}

// The lowest-versions leg (`MATRIX_LEG=lowest`) checks the same code against older LangGraph:
// one seed of each kind is enough there to catch an incompatibility; the seeds' spread is here.
const LOWEST_LEG = process.env.MATRIX_LEG === "lowest";

describe("model-based: random agent workloads against a MemorySaver model", () => {
  for (const seed of LOWEST_LEG ? [1] : [1, 2, 3, 6, 7]) {
    it(`keep "all", seed ${seed}`, async () => {
      await runWorkload(seed, "all", 14);
    });
  }
  for (const seed of LOWEST_LEG ? [4] : [4, 5]) {
    it(`keep "latest", seed ${seed}`, async () => {
      await runWorkload(seed, "latest", 12);
    });
  }
  it(`keep "all", encrypted (createEncryptedSerde), seed 8`, async () => {
    encrypted = true;
    try {
      await runWorkload(8, "all", 14);
    } finally {
      encrypted = false;
    }
  });
});
