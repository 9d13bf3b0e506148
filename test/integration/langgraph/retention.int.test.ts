/**
 * Retention: `prune` keeps the newest checkpoints (and what a waiting interrupt needs),
 * `keep: "latest"` keeps only the newest as it goes, and `deleteThreads` is the time-to-live the
 * service lacks. Each is checked by what another process then reads.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import {
  Annotation,
  Command,
  END,
  interrupt,
  messagesStateReducer,
  START,
  StateGraph,
} from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { useSaverEmulator } from "./saver-emulator";

const { newClient, saver } = useSaverEmulator();

const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
  decision: Annotation<string>(),
});

/** Replies to each turn; with `ask`, waits for a person's decision first. */
function chatGraph(checkpointer: BaseCheckpointSaver, ask = false) {
  return new StateGraph(State)
    .addNode("reply", (state) => {
      const decision = ask ? (interrupt("approve?") as string) : undefined;
      const n = state.messages.length;
      return {
        messages: [new AIMessage({ id: `ai-${n}`, content: `reply to ${n} messages` })],
        ...(decision ? { decision } : {}),
      };
    })
    .addEdge(START, "reply")
    .addEdge("reply", END)
    .compile({ checkpointer });
}

const turn = (i: number) => ({ messages: [new HumanMessage({ id: `h-${i}`, content: `q ${i}` })] });

async function storedMessages(threadId: string): Promise<number> {
  const client = newClient();
  let count = 0;
  for await (const thread of client.iterateThreads({ order: "asc" })) {
    if (thread.metadata?.lc_session !== threadId || thread.metadata?.lc_kind !== "checkpoint")
      continue;
    for await (const _ of client.iterateMessages(thread.id, { order: "asc" })) count += 1;
  }
  return count;
}

async function historyOf(checkpointer: BaseCheckpointSaver, threadId: string) {
  const states = [];
  for await (const state of chatGraph(checkpointer).getStateHistory({
    configurable: { thread_id: threadId },
  })) {
    states.push({
      id: state.config.configurable?.checkpoint_id,
      values: state.values,
      next: state.next,
    });
  }
  return states;
}

describe("prune", () => {
  it("keeps the newest checkpoints as they read, with what they need, and deletes the rest", async () => {
    const config = { configurable: { thread_id: "long" } };
    const graph = chatGraph(saver());
    for (let i = 0; i < 6; i++) await graph.invoke(turn(i), config);
    const before = await historyOf(saver(), "long");
    const messagesBefore = await storedMessages("long");

    await saver().prune(["long"], { keepLast: 2 });

    expect(await historyOf(saver(), "long")).toEqual(before.slice(0, 2));
    expect(await storedMessages("long")).toBeLessThan(messagesBefore / 4);
    // The conversation goes on from the kept state, in another process.
    const next = await chatGraph(saver()).invoke(turn(6), config);
    expect((next.messages as BaseMessage[]).map((m) => m.id)).toEqual([
      ...Array.from({ length: 6 }, (_, i) => [`h-${i}`, `ai-${2 * i + 1}`]).flat(),
      "h-6",
      "ai-13",
    ]);
  });

  it("keeps a waiting interrupt resumable", async () => {
    const config = { configurable: { thread_id: "asking" } };
    const graph = chatGraph(saver(), true);
    await graph.invoke(turn(0), config);
    await graph.invoke(new Command({ resume: "yes" }), config);
    await graph.invoke(turn(1), config);
    await saver().prune(["asking"], { keepLast: 1 });

    const other = chatGraph(saver(), true);
    expect((await other.getState(config)).next).toEqual(["reply"]);
    const resumed = await other.invoke(new Command({ resume: "later" }), config);
    expect(resumed.decision).toBe("later");
    expect((resumed.messages as BaseMessage[]).map((m) => m.id)).toEqual([
      "h-0",
      "ai-1",
      "h-1",
      "ai-3",
    ]);
  });

  it("refuses a keepLast below 1 before any call", async () => {
    await expect(saver().prune(["x"], { keepLast: 0 })).rejects.toThrow(
      expect.objectContaining({ name: "StudioValidationError", field: "keepLast" }),
    );
  });
});

describe('keep: "latest"', () => {
  it("keeps only the newest checkpoint, and another process continues from it", async () => {
    const config = { configurable: { thread_id: "shallow" } };
    const graph = chatGraph(saver({ keep: "latest" }));
    for (let i = 0; i < 5; i++) await graph.invoke(turn(i), config);
    // The newest checkpoint, and none of the 14 before it or their writes.
    expect(await storedMessages("shallow")).toBe(1);
    const history = await historyOf(saver(), "shallow");
    expect(history).toHaveLength(1);
    expect((history[0]!.values.messages as BaseMessage[]).map((m) => m.id)).toHaveLength(10);

    const next = await chatGraph(saver({ keep: "latest" })).invoke(turn(5), config);
    expect((next.messages as BaseMessage[]).map((m) => m.id).slice(-2)).toEqual(["h-5", "ai-11"]);
  });

  it("keeps an interrupt's writes until the run resumes", async () => {
    const config = { configurable: { thread_id: "shallow-ask" } };
    await chatGraph(saver({ keep: "latest" }), true).invoke(turn(0), config);
    const other = chatGraph(saver({ keep: "latest" }), true);
    expect((await other.getState(config)).tasks[0]?.interrupts).toEqual([
      expect.objectContaining({ value: "approve?" }),
    ]);
    const resumed = await other.invoke(new Command({ resume: "ok" }), config);
    expect(resumed.decision).toBe("ok");
  });
});

describe("deleteThreads", () => {
  it("deletes the LangGraph threads whose newest message is older than the cut-off", async () => {
    const checkpointer = saver();
    const graph = chatGraph(checkpointer);
    await graph.invoke(turn(0), { configurable: { thread_id: "stale" } });
    await new StudioChatMessageHistory({ client: newClient(), sessionId: "chat" }).addMessage(
      new HumanMessage("a conversation, not a LangGraph thread"),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const cutoff = new Date();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await graph.invoke(turn(0), { configurable: { thread_id: "fresh" } });

    expect(await checkpointer.deleteThreads({ olderThan: cutoff })).toEqual(["stale"]);
    const reader = saver();
    expect(await reader.getTuple({ configurable: { thread_id: "stale" } })).toBeUndefined();
    expect(await reader.getTuple({ configurable: { thread_id: "fresh" } })).toBeDefined();
    const history = await new StudioChatMessageHistory({
      client: newClient(),
      sessionId: "chat",
    }).getMessages();
    expect(history).toHaveLength(1);
    await expect(
      checkpointer.deleteThreads({ olderThan: Number.NaN as unknown as Date }),
    ).rejects.toThrow(expect.objectContaining({ field: "olderThan" }));
  });
});
