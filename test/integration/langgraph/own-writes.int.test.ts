/**
 * No second download of a process's own writes: the service echoes each created message, and the
 * next catch-up starts after them, while another process's writes made in between are still read.
 * Bytes are counted in a wrapped `fetch`.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Annotation, END, messagesStateReducer, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { beforeEach, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function countingSaver() {
  const traffic = { sent: 0, received: 0 };
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  const client = new StudioClient({
    baseUrl,
    proxyUrl,
    apiKey,
    fetch: async (input, init) => {
      if (typeof init?.body === "string") traffic.sent += Buffer.byteLength(init.body);
      const response = await fetch(input, init);
      const body = await response.arrayBuffer();
      traffic.received += body.byteLength;
      return new Response(body, { status: response.status, headers: response.headers });
    },
  });
  return { saver: new StudioCheckpointSaver({ client }), traffic };
}

const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
});

function chatGraph(checkpointer: BaseCheckpointSaver, who: string) {
  return new StateGraph(State)
    .addNode("reply", (state) => ({
      messages: [
        new AIMessage({
          content: `${who} replies to ${state.messages.length} messages: ${"a long answer. ".repeat(60)}`,
        }),
      ],
    }))
    .addEdge(START, "reply")
    .addEdge("reply", END)
    .compile({ checkpointer });
}

it("a writer receives at most 1.3x what it sends, and still reads what another process wrote", async () => {
  const config = { configurable: { thread_id: "mine" } };
  const a = countingSaver();
  const b = countingSaver();
  const graphA = chatGraph(a.saver, "A");
  const graphB = chatGraph(b.saver, "B");
  await graphA.invoke({ messages: [new HumanMessage("warm-up")] }, config);
  const start = { ...a.traffic };
  for (let turn = 0; turn < 6; turn++) {
    await graphA.invoke({ messages: [new HumanMessage(`A ${turn}`)] }, config);
  }
  const sent = a.traffic.sent - start.sent;
  const received = a.traffic.received - start.received;
  expect(received / sent).toBeLessThanOrEqual(1.3);
  for (let turn = 6; turn < 8; turn++) {
    // Another process takes a turn between two of this process's turns.
    await graphB.invoke({ messages: [new HumanMessage(`B ${turn}`)] }, config);
    await graphA.invoke({ messages: [new HumanMessage(`A ${turn}`)] }, config);
  }
  // A read B's turns: its state holds them, in order.
  const texts = ((await graphA.getState(config)).values.messages as BaseMessage[]).map((m) =>
    m.text.slice(0, 24),
  );
  expect(texts.filter((text) => text.startsWith("B "))).toEqual([
    "B 6",
    "B replies to 15 messages",
    "B 7",
    "B replies to 19 messages",
  ]);
  expect(texts).toHaveLength(2 + 8 * 2 + 2 * 2);
});
