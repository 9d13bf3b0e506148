/**
 * Time travel and concurrent runs, side by side with LangGraph's MemorySaver: a replay from a past
 * checkpoint, a fork with `updateState`, and two processes running on one thread at once must
 * read the values of their own branch. Each "process" is a saver with its own client, so only the
 * service (the emulator) carries state between them.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Annotation, END, messagesStateReducer, START, StateGraph } from "@langchain/langgraph";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph-checkpoint";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function studioSaver() {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  return new StudioCheckpointSaver({ client: new StudioClient({ baseUrl, proxyUrl, apiKey }) });
}

const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
  plain: Annotation<string>(),
});

/** Answers each turn with a numbered reply; a replayed step gets a new number, so it differs. */
function chatGraph(checkpointer: BaseCheckpointSaver, name = "bot", pauseMs = 0) {
  let replies = 0;
  return new StateGraph(State)
    .addNode("respond", async (state) => {
      replies += 1;
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
      const last = state.messages.at(-1)?.text ?? "";
      return {
        messages: [
          new AIMessage({ id: `${name}-${replies}`, content: `${name} ${replies}: ${last}` }),
        ],
        plain: `${name} replied ${replies} times`,
      };
    })
    .addEdge(START, "respond")
    .addEdge("respond", END)
    .compile({ checkpointer });
}

const human = (id: string) => ({ messages: [new HumanMessage({ id, content: id })] });

/** What a user sees of a state: message ids and texts, the plain channel, what runs next. */
function seen(state: { values: Record<string, unknown>; next: readonly string[] }) {
  const messages = (state.values.messages as BaseMessage[] | undefined) ?? [];
  return {
    messages: messages.map((m) => `${m.id}: ${m.text}`),
    plain: state.values.plain,
    next: [...state.next],
  };
}

async function history(graph: ReturnType<typeof chatGraph>, config: RunnableConfig) {
  const states = [];
  for await (const state of graph.getStateHistory(config)) states.push(state);
  return states;
}

/**
 * Three turns, a replay of turn 2 and a turn after it, then a fork of turn 1 edited with
 * `updateState` and continued. Returns what each step shows, reading through a fresh saver
 * (a new process) when `reader` is given.
 */
async function timeTravel(makeSaver: () => BaseCheckpointSaver): Promise<Record<string, unknown>> {
  const saver = makeSaver();
  const graph = chatGraph(saver);
  const config = { configurable: { thread_id: "travel" } };
  const read = () => chatGraph(makeSaver());
  for (const id of ["h1", "h2", "h3"]) await graph.invoke(human(id), config);

  const past = await history(graph, config);
  const beforeTurn2 = past.find((s) => s.next[0] === "respond" && seen(s).messages.length === 3);
  const afterTurn1 = past.find((s) => s.next.length === 0 && seen(s).messages.length === 2);
  expect(beforeTurn2 && afterTurn1).toBeTruthy();

  const replayed = await graph.invoke(null, beforeTurn2!.config);
  const afterReplay = seen(await read().getState(config));
  await graph.invoke(human("h4"), config);
  const afterReplayTurn = seen(await read().getState(config));

  const forkConfig = await graph.updateState(afterTurn1!.config, {
    messages: [new AIMessage({ id: "edit", content: "edited" })],
    plain: "forked",
  });
  const afterFork = seen(await read().getState(forkConfig));
  await graph.invoke(human("h5"), forkConfig);
  const latest = seen(await read().getState(config));
  const all = (await history(read(), config)).map(seen);
  return {
    replayed: seen({ values: replayed, next: [] }),
    afterReplay,
    afterReplayTurn,
    afterFork,
    latest,
    history: all,
  };
}

describe("StudioCheckpointSaver on branches, as MemorySaver", () => {
  it("reads a replayed branch's values, and the turns after it build on them", async () => {
    const memory = new MemorySaver();
    const expected = await timeTravel(() => memory);
    const actual = await timeTravel(studioSaver);
    // The replay answered again (a new reply), and every read sees that new branch.
    expect(expected.afterReplay).toEqual(expected.replayed);
    expect((expected.afterReplay as { messages: string[] }).messages.at(-1)).toBe(
      "bot-4: bot 4: h2",
    );
    expect(actual).toEqual(expected);
  });

  it("two processes running on one thread at once leave a state one of them produced", async () => {
    const race = async (
      a: BaseCheckpointSaver,
      b: BaseCheckpointSaver,
      fresh: () => BaseCheckpointSaver,
    ) => {
      const config = { configurable: { thread_id: "race" } };
      const first = chatGraph(a, "first");
      await first.invoke(human("h0"), config);
      // Both start from the latest checkpoint, as two processes that read it at the same time.
      const base = (await first.getState(config)).config;
      const [fromA, fromB] = await Promise.all([
        chatGraph(a, "A", 20).invoke(human("hA"), base),
        chatGraph(b, "B", 20).invoke(human("hB"), base),
      ]);
      const runs = [fromA, fromB].map((values) => seen({ values, next: [] }));
      const latest = seen(await chatGraph(fresh()).getState(config));
      const states = (await history(chatGraph(fresh()), config)).map(seen);
      return { runs, latest, states };
    };
    const memory = new MemorySaver();
    const expected = await race(memory, memory, () => memory);
    const actual = await race(studioSaver(), studioSaver(), studioSaver);
    for (const { runs, latest } of [expected, actual]) {
      // Each run saw only its own input, and the latest state is one run's result.
      expect(runs[0]!.messages).toEqual([
        "h0: h0",
        "first-1: first 1: h0",
        "hA: hA",
        "A-1: A 1: hA",
      ]);
      expect(runs[1]!.messages).toEqual([
        "h0: h0",
        "first-1: first 1: h0",
        "hB: hB",
        "B-1: B 1: hB",
      ]);
      expect(runs).toContainEqual(latest);
    }
    // Every checkpoint of both branches shows what MemorySaver shows for it.
    const sorted = (states: unknown[]) => states.map((s) => JSON.stringify(s)).sort();
    expect(sorted(actual.states)).toEqual(sorted(expected.states));
  });
});
