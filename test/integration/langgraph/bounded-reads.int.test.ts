/**
 * A process new to a thread reads its newest messages only: the same number of calls at any age.
 * And random graphs (appends, edits, replays, forks, long values) read back as MemorySaver reads
 * them, so storing appended parts and copying values forward changes nothing a user sees. Both
 * hold with encryption on, where appended parts are sealed like whole values.
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Annotation, END, messagesStateReducer, START, StateGraph } from "@langchain/langgraph";
import {
  type BaseCheckpointSaver,
  emptyCheckpoint,
  MemorySaver,
  type SerializerProtocol,
  uuid6,
} from "@langchain/langgraph-checkpoint";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { toBase64 } from "../../../src/converters/base64";
import { createEncryptedSerde, StudioCheckpointSaver } from "../../../src/langgraph";
import { useInProcessEmulator } from "../../helpers/emulator";

const emulator = useInProcessEmulator({ recordRequests: false });

beforeEach(async () => {
  await emulator.handle.reset();
});

const encrypted = createEncryptedSerde({
  keys: { k1: toBase64(crypto.getRandomValues(new Uint8Array(32))) },
});

/** A saver in a new process, whose client counts its calls. */
function countingSaver(serde?: SerializerProtocol) {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  const counted = { calls: 0 };
  const client = new StudioClient({
    baseUrl,
    proxyUrl,
    apiKey,
    fetch: (input, init) => {
      counted.calls += 1;
      return emulator.handle.fetch(input, init);
    },
  });
  return { saver: new StudioCheckpointSaver({ client, serde }), counted };
}

/** A message as LangChain serializes it (the serializer revives it as an AIMessage). */
function storedMessage(i: number) {
  return {
    lc: 1,
    type: "constructor",
    id: ["langchain_core", "messages", "AIMessage"],
    kwargs: { id: `m${i}`, content: `message ${i}: the weather stays mild and dry all week.` },
  };
}

/** `steps` checkpoints, each appending one message, with that step's writes. */
async function growThread(saver: StudioCheckpointSaver, threadId: string, steps: number) {
  let config: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
  let version: string | undefined;
  const messages: unknown[] = [];
  for (let i = 0; i < steps; i++) {
    messages.push(storedMessage(i));
    version = String(saver.getNextVersion(version as never));
    const checkpoint = { ...emptyCheckpoint(), id: uuid6(-1) };
    checkpoint.channel_values = { messages };
    checkpoint.channel_versions = { messages: version };
    config = await saver.put(
      config,
      checkpoint,
      { source: "loop", step: i, parents: {} },
      {
        messages: version,
      },
    );
    await saver.putWrites(config, [["messages", [storedMessage(i + 1)]]], `task-${i}`);
  }
  return config;
}

describe("a new process's first read", () => {
  it("costs at most 4 calls at 300 steps and at 900 (one look-up, 3 pages), and reads it right", async () => {
    const calls: number[] = [];
    for (const steps of [300, 900]) {
      const threadId = `grown-${steps}`;
      const last = await growThread(countingSaver().saver, threadId, steps);
      const { saver, counted } = countingSaver();
      const tuple = await saver.getTuple({ configurable: { thread_id: threadId } });
      calls.push(counted.calls);
      const messages = tuple?.checkpoint.channel_values.messages as BaseMessage[];
      expect(messages).toHaveLength(steps);
      expect(messages.at(-1)?.id).toBe(`m${steps - 1}`);
      expect(messages[0]?.text).toBe("message 0: the weather stays mild and dry all week.");
      expect(tuple?.pendingWrites).toEqual([
        [`task-${steps - 1}`, "messages", [expect.any(AIMessage)]],
      ]);
      expect(tuple?.config).toEqual(last);
      // The whole history is still there for list() (which reads the whole thread).
      if (steps === 300) {
        let count = 0;
        let oldest: BaseMessage[] = [];
        for await (const item of saver.list({ configurable: { thread_id: threadId } })) {
          count += 1;
          oldest = item.checkpoint.channel_values.messages as BaseMessage[];
        }
        expect(count).toBe(steps);
        expect(oldest.map((m) => m.id)).toEqual(["m0"]);
      }
    }
    // Reading every message would take 7 and 19 calls. Where the newest whole copy falls (0 to
    // 280 messages back) decides between 2 and 4, at any age.
    for (const count of calls) expect(count).toBeLessThanOrEqual(4);
  }, 120_000);

  it("costs the same with encryption on, and reads it right", async () => {
    await growThread(countingSaver(encrypted).saver, "sealed", 300);
    const { saver, counted } = countingSaver(encrypted);
    const tuple = await saver.getTuple({ configurable: { thread_id: "sealed" } });
    const messages = tuple?.checkpoint.channel_values.messages as BaseMessage[];
    expect(messages.map((m) => m.id)).toEqual(Array.from({ length: 300 }, (_, i) => `m${i}`));
    expect(tuple?.pendingWrites).toEqual([["task-299", "messages", [expect.any(AIMessage)]]]);
    expect(counted.calls).toBeLessThanOrEqual(4);
  }, 120_000);
});

/** A deterministic random source (mulberry32). */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
  notes: Annotation<string>(),
  turns: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

function randomGraph(checkpointer: BaseCheckpointSaver, seed: number) {
  const next = random(seed);
  let replies = 0;
  return new StateGraph(State)
    .addNode("reply", () => {
      replies += 1;
      // Long replies now and then, so values outgrow the characters a read may span.
      const size = next() < 0.1 ? 20_000 : 40 + Math.floor(next() * 400);
      const content = `reply ${replies} ${"x".repeat(size)}`;
      const notes =
        next() < 0.3 ? { notes: `notes after ${replies} (${"n".repeat(size % 300)})` } : {};
      return { messages: [new AIMessage({ id: `r${replies}`, content })], turns: 1, ...notes };
    })
    .addEdge(START, "reply")
    .addEdge("reply", END)
    .compile({ checkpointer });
}

/** Runs one seed's operations; returns what every checkpoint shows, read by a new process. */
async function randomRun(seed: number, makeSaver: () => BaseCheckpointSaver) {
  const saver = makeSaver();
  const graph = randomGraph(saver, seed);
  const pick = random(seed + 1);
  const config = { configurable: { thread_id: `random-${seed}` } };
  const show = (state: { values: Record<string, unknown>; next: readonly string[] }) => ({
    messages: ((state.values.messages as BaseMessage[] | undefined) ?? []).map(
      (m) => `${m.id}:${m.text.length}:${m.text.slice(0, 12)}`,
    ),
    notes: state.values.notes,
    turns: state.values.turns,
    next: [...state.next],
  });
  const past = async (saver: BaseCheckpointSaver) => {
    const states = [];
    for await (const state of randomGraph(saver, seed).getStateHistory(config)) states.push(state);
    return states;
  };
  let target: RunnableConfig = config;
  for (let op = 0; op < 90; op++) {
    const roll = pick();
    if (roll < 0.7 || op < 3) {
      await graph.invoke(
        { messages: [new HumanMessage({ id: `h${op}`, content: `q${op}` })] },
        target,
      );
      target = config;
    } else if (roll < 0.8) {
      // An edit that is not an append: a message removed.
      const state = await graph.getState(config);
      const messages = state.values.messages as BaseMessage[];
      const victim = messages[Math.floor(pick() * messages.length)];
      if (victim?.id)
        await graph.updateState(config, { messages: [new RemoveMessage({ id: victim.id })] });
    } else {
      // Back in time: continue from (replay) or edit (fork) a past checkpoint, chosen as the
      // running process reads the history (a new process reads it all at the end).
      const states = await past(saver);
      const chosen = states[Math.floor(pick() * states.length)]!;
      target =
        roll < 0.9
          ? chosen.config
          : await graph.updateState(chosen.config, { notes: `fork ${op}` });
    }
  }
  const fresh = makeSaver();
  return {
    latest: show(await randomGraph(fresh, seed).getState(config)),
    history: (await past(fresh)).map(show),
  };
}

describe("random graphs, against MemorySaver", () => {
  it("read every checkpoint's values as MemorySaver does", async () => {
    for (const seed of [1, 2, 3]) {
      const memory = new MemorySaver();
      const expected = await randomRun(seed, () => memory);
      const actual = await randomRun(seed, () => countingSaver().saver);
      expect(actual.latest).toEqual(expected.latest);
      expect(actual.history).toEqual(expected.history);
    }
  }, 300_000);

  it("read every checkpoint's values as MemorySaver does with encryption on", async () => {
    const memory = new MemorySaver();
    const expected = await randomRun(4, () => memory);
    const actual = await randomRun(4, () => countingSaver(encrypted).saver);
    expect(actual.latest).toEqual(expected.latest);
    expect(actual.history).toEqual(expected.history);
  }, 300_000);
});
