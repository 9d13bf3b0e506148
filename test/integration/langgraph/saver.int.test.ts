/**
 * StudioCheckpointSaver's own guarantees against the emulator, beyond the official suite: long
 * records split and read back by another saver, writes retried without duplicates, failures that
 * say what is stored, a thread deleted by someone else, and list() ignoring conversations.
 */
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
  emulator.handle.setFaults(undefined);
});

function newClient() {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  return new StudioClient({ baseUrl, proxyUrl, apiKey, maxRetries: 0 });
}

function checkpointWith(values: Record<string, unknown>, version: number) {
  const checkpoint = emptyCheckpoint();
  checkpoint.id = uuid6(-3);
  checkpoint.channel_values = values;
  checkpoint.channel_versions = Object.fromEntries(Object.keys(values).map((k) => [k, version]));
  return checkpoint;
}

const meta = (step: number) => ({ source: "loop" as const, step, parents: {} });
const recordPosts = () =>
  emulator.handle.requests.filter((r) => r.method === "POST" && r.path.endsWith("/messages"));

describe("StudioCheckpointSaver", () => {
  it("splits a record longer than maxMessageChars and another saver reads it back whole", async () => {
    const big = "word ".repeat(4_000);
    const writer = new StudioCheckpointSaver({ client: newClient(), maxMessageChars: 1_000 });
    const config = { configurable: { thread_id: "big", checkpoint_ns: "" } };
    emulator.handle.clearRequests();
    const saved = await writer.put(config, checkpointWith({ notes: big }, 1), meta(0), {
      notes: 1,
    });
    const posts = recordPosts();
    expect(posts.length).toBeGreaterThan(20);
    for (const post of posts) {
      expect((post.body as { content: string }).content.length).toBeLessThanOrEqual(1_000);
    }
    const reader = new StudioCheckpointSaver({ client: newClient() });
    const tuple = await reader.getTuple(saved);
    expect(tuple?.checkpoint.channel_values).toEqual({ notes: big });
  });

  it("sends a write again after an ambiguous failure, and the record reads as once", async () => {
    const saver = new StudioCheckpointSaver({ client: newClient() });
    const config = { configurable: { thread_id: "retry", checkpoint_ns: "" } };
    const saved = await saver.put(config, checkpointWith({ a: 1 }, 1), meta(0), { a: 1 });
    // Stored, then answered with a 500: the saver cannot know, so it sends again.
    emulator.handle.setFaults({ rate500After: 1, match: "/messages" });
    emulator.handle.clearRequests();
    const failed = saver.putWrites(saved, [["a", 2]], "task-1");
    await expect(failed).rejects.toThrow(
      /task task-1 .*It may or may not be stored\. A record stored twice reads as once/s,
    );
    expect(recordPosts()).toHaveLength(3);
    emulator.handle.setFaults(undefined);
    const tuple = await new StudioCheckpointSaver({ client: newClient() }).getTuple(saved);
    expect(tuple?.pendingWrites).toEqual([["task-1", "a", 2]]);
  });

  it("says what is stored when the service refuses a write (429: nothing was done)", async () => {
    const saver = new StudioCheckpointSaver({ client: newClient() });
    const config = { configurable: { thread_id: "refused", checkpoint_ns: "" } };
    await saver.put(config, checkpointWith({}, 1), meta(0), {});
    emulator.handle.setFaults({ rate429: 1, retryAfterSeconds: 0, match: "/messages" });
    const checkpoint = checkpointWith({ a: 1 }, 2);
    emulator.handle.clearRequests();
    await expect(saver.put(config, checkpoint, meta(1), { a: 2 })).rejects.toThrow(
      new RegExp(
        `checkpoint ${checkpoint.id} of LangGraph thread "refused".*It is not stored\\.`,
        "s",
      ),
    );
    expect(recordPosts()).toHaveLength(1);

    // A long record: the failure names the part and says what of the record is stored.
    const split = new StudioCheckpointSaver({ client: newClient(), maxMessageChars: 1_000 });
    emulator.handle.setFaults(undefined);
    await split.getTuple(config);
    emulator.handle.setFaults({ rate429: 1, retryAfterSeconds: 0, match: "/messages" });
    const big = checkpointWith({ notes: "x".repeat(3_000) }, 3);
    await expect(split.put(config, big, meta(2), { notes: 3 })).rejects.toThrow(
      /Part 1 of \d+ is not stored\. No part before it is stored\. Later parts were not sent\./s,
    );
  });

  it("reads a thread deleted by another saver as gone, and starts a new one on the next write", async () => {
    const a = new StudioCheckpointSaver({ client: newClient() });
    const config = { configurable: { thread_id: "shared", checkpoint_ns: "" } };
    await a.put(config, checkpointWith({ a: 1 }, 1), meta(0), { a: 1 });
    expect(await a.getTuple(config)).toBeDefined();
    await new StudioCheckpointSaver({ client: newClient() }).deleteThread("shared");
    expect(await a.getTuple(config)).toBeUndefined();
    const again = await a.put(config, checkpointWith({ b: 2 }, 1), meta(0), { b: 1 });
    expect((await a.getTuple(again))?.checkpoint.channel_values).toEqual({ b: 2 });
  });

  it("writes to a new thread when another saver deleted the thread since the last read", async () => {
    const a = new StudioCheckpointSaver({ client: newClient() });
    const config = { configurable: { thread_id: "rewritten", checkpoint_ns: "" } };
    await a.put(config, checkpointWith({ a: 1 }, 1), meta(0), { a: 1 });
    await new StudioCheckpointSaver({ client: newClient() }).deleteThread("rewritten");
    const saved = await a.put(config, checkpointWith({ b: 2 }, 1), meta(0), { b: 1 });
    const fresh = new StudioCheckpointSaver({ client: newClient() });
    expect((await fresh.getTuple(saved))?.checkpoint.channel_values).toEqual({ b: 2 });
  });

  it("keeps at most maxCachedThreads threads in memory, reading an evicted one whole again", async () => {
    const saver = new StudioCheckpointSaver({ client: newClient(), maxCachedThreads: 1 });
    const a = { configurable: { thread_id: "a", checkpoint_ns: "" } };
    const b = { configurable: { thread_id: "b", checkpoint_ns: "" } };
    await saver.put(a, checkpointWith({ x: "a" }, 1), meta(0), { x: 1 });
    await saver.put(b, checkpointWith({ x: "b" }, 1), meta(0), { x: 1 });
    const listCalls = () =>
      emulator.handle.requests.filter((r) => r.method === "GET" && r.path.endsWith("/messages"));
    await saver.getTuple(b);
    emulator.handle.clearRequests();
    await saver.getTuple(b);
    expect(listCalls().map((r) => r.query.after)).toEqual([expect.any(String)]);
    emulator.handle.clearRequests();
    expect((await saver.getTuple(a))?.checkpoint.channel_values).toEqual({ x: "a" });
    expect((await saver.getTuple(b))?.checkpoint.channel_values).toEqual({ x: "b" });
    // Each was evicted by the other, so each read started from the thread's beginning.
    expect(listCalls().map((r) => r.query.after)).toEqual([undefined, undefined]);
  });

  it("finds a checkpoint's writes stored before it (LangGraph's async durability), however far", async () => {
    const writer = new StudioCheckpointSaver({ client: newClient() });
    const config = { configurable: { thread_id: "early", checkpoint_ns: "" } };
    const checkpoint = checkpointWith({ a: 1 }, 1);
    const own = { configurable: { ...config.configurable, checkpoint_id: checkpoint.id } };
    // A task's writes arrive first; 120 records of a subgraph come between them and the put.
    await writer.putWrites(own, [["a", 2]], "task-early");
    let sub = { configurable: { thread_id: "early", checkpoint_ns: "sub" } };
    for (let i = 0; i < 120; i++) {
      sub = (await writer.put(sub, checkpointWith({}, 1), meta(i), {})) as typeof sub;
    }
    await writer.put(config, checkpoint, meta(0), { a: 1 });
    const tuple = await new StudioCheckpointSaver({ client: newClient() }).getTuple(config);
    expect(tuple?.checkpoint.id).toBe(checkpoint.id);
    expect(tuple?.pendingWrites).toEqual([["task-early", "a", 2]]);
  });

  it("list() without a thread_id finds checkpoint threads only, not conversations", async () => {
    const client = newClient();
    await new StudioChatMessageHistory({ client, sessionId: "chat-1" }).addMessage(
      new (await import("@langchain/core/messages")).HumanMessage("hello"),
    );
    const saver = new StudioCheckpointSaver({ client });
    for (const threadId of ["t1", "t2"]) {
      await saver.put(
        { configurable: { thread_id: threadId } },
        checkpointWith({}, 1),
        meta(0),
        {},
      );
    }
    const threads: string[] = [];
    for await (const tuple of saver.list({ configurable: {} })) {
      threads.push(tuple.config.configurable?.thread_id);
    }
    expect(threads.sort()).toEqual(["t1", "t2"]);
  });
});
