/**
 * Retention a user can trust: ages that read as ages (a number as `olderThan` is refused, an age
 * is `maxAgeMs`), dry runs that list what would be deleted and delete nothing, reports of what
 * was removed, and a time to live in the style of LangGraph's Redis saver (`ttl: { defaultTTL,
 * refreshOnRead }`, minutes) applied by `sweep()`.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Annotation, END, messagesStateReducer, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useSaverEmulator } from "./saver-emulator";

const { emulator, saver } = useSaverEmulator();

const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
});

function chatGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(State)
    .addNode("reply", (state) => ({
      messages: [new AIMessage({ content: `reply to ${state.messages.length} messages` })],
    }))
    .addEdge(START, "reply")
    .addEdge("reply", END)
    .compile({ checkpointer });
}

const say = (text: string) => ({ messages: [new HumanMessage(text)] });
// Ages come from a faked `Date` that runs with real time and jumps ahead (the emulator, in this
// process, stamps messages with the same clock): the jumps dwarf the time the calls take, so the
// ages asserted hold however loaded the machine is.
const jump = (ms: number) => vi.setSystemTime(Date.now() + ms);
afterEach(() => {
  vi.useRealTimers();
});

async function checkpointIds(threadId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const tuple of saver().list({ configurable: { thread_id: threadId } })) {
    ids.push(tuple.config.configurable?.checkpoint_id as string);
  }
  return ids;
}

describe("deleteThreads ages", () => {
  it("refuses a number as olderThan, before any call, and says to pass maxAgeMs or a Date", async () => {
    const before = emulator.handle.requests.length;
    const call = saver().deleteThreads({ olderThan: (30 * 86400_000) as unknown as Date });
    await expect(call).rejects.toThrow(
      expect.objectContaining({ name: "StudioValidationError", field: "olderThan" }),
    );
    await expect(call).rejects.toThrow(/maxAgeMs: 2592000000/);
    await expect(saver().deleteThreads({ olderThan: new Date(), maxAgeMs: 1 })).rejects.toThrow(
      expect.objectContaining({ field: "olderThan" }),
    );
    await expect(saver().deleteThreads({ maxAgeMs: -1 })).rejects.toThrow(
      expect.objectContaining({ field: "maxAgeMs" }),
    );
    await expect(saver().deleteThreads()).rejects.toThrow(
      expect.objectContaining({ field: "olderThan" }),
    );
    expect(emulator.handle.requests.length).toBe(before);
  });

  it("deletes by maxAgeMs, and a dry run lists the same threads and deletes nothing", async () => {
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    const checkpointer = saver();
    await chatGraph(checkpointer).invoke(say("old"), { configurable: { thread_id: "old" } });
    jump(60_000);
    await chatGraph(checkpointer).invoke(say("new"), { configurable: { thread_id: "new" } });

    expect(await saver().deleteThreads({ maxAgeMs: 30_000, dryRun: true })).toEqual(["old"]);
    expect(await saver().getTuple({ configurable: { thread_id: "old" } })).toBeDefined();
    expect(await saver().deleteThreads({ maxAgeMs: 30_000 })).toEqual(["old"]);
    expect(await saver().getTuple({ configurable: { thread_id: "old" } })).toBeUndefined();
    expect(await saver().getTuple({ configurable: { thread_id: "new" } })).toBeDefined();
  });
});

describe("prune reports", () => {
  it("lists what a dry run would delete, deletes nothing, then deletes exactly that", async () => {
    const config = { configurable: { thread_id: "long" } };
    const graph = chatGraph(saver());
    for (let i = 0; i < 4; i++) await graph.invoke(say(`q ${i}`), config);
    const all = await checkpointIds("long");
    expect(all).toHaveLength(12);

    const dry = await saver().prune(["long"], { keepLast: 2, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, checkpoints: 10 });
    expect(dry.threads[0]?.checkpoints.map((c) => c.checkpointId)).toEqual(all.slice(2));
    expect(dry.writes).toBeGreaterThan(0);
    expect(dry.messages).toBeGreaterThanOrEqual(dry.checkpoints + dry.writes);
    expect(await checkpointIds("long")).toEqual(all);

    const done = await saver().prune(["long"], { keepLast: 2 });
    expect(done).toEqual({ ...dry, dryRun: false });
    expect(await checkpointIds("long")).toEqual(all.slice(0, 2));
    // Nothing left to delete.
    expect((await saver().prune(["long"], { keepLast: 2 })).checkpoints).toBe(0);
  });
});

describe("ttl", () => {
  it("checks its fields at construction, in minutes as the Redis saver takes them", () => {
    expect(() => saver({ ttl: { defaultTTL: 0 } })).toThrow(
      expect.objectContaining({ name: "StudioValidationError", field: "ttl.defaultTTL" }),
    );
    expect(() =>
      saver({ ttl: { defaultTTL: 5, refreshOnRead: "yes" as unknown as boolean } }),
    ).toThrow(expect.objectContaining({ field: "ttl.refreshOnRead" }));
  });

  it("sweep() deletes the threads idle longer than defaultTTL; a read refreshes with refreshOnRead", async () => {
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    // One minute.
    const ttl = { defaultTTL: 1, refreshOnRead: true };
    const writer = saver({ ttl });
    await chatGraph(writer).invoke(say("a"), { configurable: { thread_id: "read" } });
    await chatGraph(writer).invoke(say("b"), { configurable: { thread_id: "idle" } });
    jump(35_000);
    // Another process reads "read": that counts as activity.
    expect(await saver({ ttl }).getTuple({ configurable: { thread_id: "read" } })).toBeDefined();
    // A saver without refreshOnRead reads "idle": it does not.
    const plain = saver({ ttl: { defaultTTL: 1 } });
    expect(await plain.getTuple({ configurable: { thread_id: "idle" } })).toBeDefined();
    jump(35_000);

    expect(await plain.sweep({ dryRun: true })).toEqual(["idle"]);
    expect(await plain.sweep()).toEqual(["idle"]);
    expect(await saver().getTuple({ configurable: { thread_id: "idle" } })).toBeUndefined();
    const kept = await saver().getTuple({ configurable: { thread_id: "read" } });
    expect(kept).toBeDefined();
    expect((kept!.checkpoint.channel_values.messages as BaseMessage[]).map((m) => m.text)).toEqual([
      "a",
      "reply to 1 messages",
    ]);
    // deleteThreads() without options sweeps by the saver's ttl too.
    jump(80_000);
    expect(await saver({ ttl }).deleteThreads()).toEqual(["read"]);
  });

  it("sweep() without a ttl says how to get one", async () => {
    await expect(saver().sweep()).rejects.toThrow(
      expect.objectContaining({ name: "StudioValidationError", field: "ttl" }),
    );
  });
});
