/**
 * The checkpointer under real LangGraph runs: a `createAgent` that remembers earlier turns, and a
 * human-in-the-loop interrupt resumed elsewhere. "Elsewhere" is a second saver with its own
 * client, so nothing but the service (the emulator) carries state from one to the other, as
 * between two processes.
 */
import { tool } from "@langchain/core/tools";
import { Annotation, Command, END, interrupt, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import type { ChatCompletionRequest, Thread } from "../../../src/api-types";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

/** What a fresh process would build: its own client, model and saver. */
function freshProcess() {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  const client = new StudioClient({ baseUrl, proxyUrl, apiKey });
  return {
    client,
    get model() {
      return new ChatStudio({ model: "studio/echo-small", client });
    },
    checkpointer: new StudioCheckpointSaver({ client }),
  };
}

const getWeather = tool(({ city }) => `${city}: sunny`, {
  name: "get_weather",
  description: "Today's weather in a city.",
  schema: z.object({ city: z.string() }),
});

function lastChatRequest(): ChatCompletionRequest {
  const chats = emulator.handle.requests.filter((r) => r.path.endsWith("/chat/completions"));
  return chats.at(-1)!.body as ChatCompletionRequest;
}

describe("createAgent with StudioCheckpointSaver", () => {
  it("remembers the earlier turns of a thread_id across two savers with their own clients", async () => {
    const config = { configurable: { thread_id: "user-42" } };
    const first = freshProcess();
    const agentA = createAgent({
      model: first.model,
      tools: [getWeather],
      checkpointer: first.checkpointer,
    });
    const turn1 = await agentA.invoke(
      { messages: [{ role: "user", content: 'get_weather {"city": "Oslo"}' }] },
      config,
    );
    expect(turn1.messages.map((m) => m.text)).toEqual([
      'get_weather {"city": "Oslo"}',
      "",
      "Oslo: sunny",
      "Tool said: Oslo: sunny",
    ]);

    const second = freshProcess();
    const agentB = createAgent({
      model: second.model,
      tools: [getWeather],
      checkpointer: second.checkpointer,
    });
    const turn2 = await agentB.invoke(
      { messages: [{ role: "user", content: "and my name is Ada" }] },
      config,
    );
    expect(turn2.messages.map((m) => m.text)).toEqual([
      'get_weather {"city": "Oslo"}',
      "",
      "Oslo: sunny",
      "Tool said: Oslo: sunny",
      "and my name is Ada",
      "You said: and my name is Ada",
    ]);
    // The model saw the first turn: the memory reached the model, not only the state.
    const sent = lastChatRequest().messages.map((m) => m.content);
    expect(sent).toContain('get_weather {"city": "Oslo"}');

    // Another thread_id starts empty.
    const other = await agentB.invoke(
      { messages: [{ role: "user", content: "hello" }] },
      { configurable: { thread_id: "user-43" } },
    );
    expect(other.messages.map((m) => m.text)).toEqual(["hello", "You said: hello"]);
  });

  it("keeps each thread_id in one service thread, titled and tagged as checkpoints", async () => {
    const { client, model, checkpointer } = freshProcess();
    const agent = createAgent({ model, tools: [getWeather], checkpointer });
    for (const text of ["one", "two"]) {
      await agent.invoke(
        { messages: [{ role: "user", content: text }] },
        { configurable: { thread_id: "user-42" } },
      );
    }
    const threads: Thread[] = [];
    for await (const thread of client.iterateThreads({ order: "asc" })) {
      // (The account's record that sessions are filed by dataset is not a session's thread.)
      if (thread.metadata?.lc_session !== undefined) threads.push(thread);
    }
    expect(threads).toHaveLength(1);
    expect(threads[0]).toMatchObject({
      title: "LangGraph checkpoints: user-42",
      metadata: {
        lc_memory: "langgraph-checkpoints",
        lc_kind: "checkpoint",
        lc_session: "user-42",
      },
    });
    const messages = [];
    for await (const m of client.iterateMessages(threads[0]!.id, { order: "asc" }))
      messages.push(m);
    const kinds = new Set(messages.map((m) => m.metadata?.lc_checkpoint_record));
    expect(kinds).toEqual(new Set(["checkpoint", "writes"]));
  });

  it("deleteThread forgets the thread for every saver", async () => {
    const config = { configurable: { thread_id: "gone" } };
    const a = freshProcess();
    const agent = createAgent({ model: a.model, tools: [], checkpointer: a.checkpointer });
    await agent.invoke({ messages: [{ role: "user", content: "remember me" }] }, config);
    const b = freshProcess();
    expect(await b.checkpointer.getTuple(config)).toBeDefined();
    await b.checkpointer.deleteThread("gone");
    expect(await a.checkpointer.getTuple(config)).toBeUndefined();
    expect(await freshProcess().checkpointer.getTuple(config)).toBeUndefined();
  });
});

describe("human in the loop", () => {
  const State = Annotation.Root({
    request: Annotation<string>(),
    decision: Annotation<string>(),
  });
  function approvalGraph(checkpointer: StudioCheckpointSaver) {
    return new StateGraph(State)
      .addNode("approve", (state) => ({
        decision: interrupt({ question: `Approve ${state.request}?` }) as string,
      }))
      .addEdge(START, "approve")
      .addEdge("approve", END)
      .compile({ checkpointer });
  }

  it("an interrupt raised with one saver resumes with Command({ resume }) on another", async () => {
    const config = { configurable: { thread_id: "approval-7" } };
    const paused = await approvalGraph(freshProcess().checkpointer).invoke(
      { request: "refund #7" },
      config,
    );
    expect((paused as { __interrupt__?: unknown }).__interrupt__).toEqual([
      expect.objectContaining({ value: { question: "Approve refund #7?" } }),
    ]);

    const other = approvalGraph(freshProcess().checkpointer);
    const state = await other.getState(config);
    expect(state.next).toEqual(["approve"]);
    const resumed = await other.invoke(new Command({ resume: "approved" }), config);
    expect(resumed).toEqual({ request: "refund #7", decision: "approved" });
    expect((await other.getState(config)).next).toEqual([]);
  });
});
