/**
 * `threads.copy` and `threads.prune` through the SDK's `Client`, and a thread deleted by another
 * process while this one still knows its owner.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";
import { sdkClient, statusOf, studioServer, twoUsers } from "./harness";
import { agentTurn, approvalResume, approvalUntilInterrupt, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

type Messages = { messages: { content: unknown }[] };

describe("threads.copy", () => {
  it("a new thread with the same state, history and listing; the two then go apart", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create({ metadata: { topic: "trip" } });
    await agentTurn(client, thread.thread_id, "first", "echo");
    await agentTurn(client, thread.thread_id, "second", "echo");
    const copy = await client.threads.copy(thread.thread_id);
    expect(copy.thread_id).not.toBe(thread.thread_id);
    expect(copy.metadata).toMatchObject({ topic: "trip", graph_id: "echo" });
    const original = await client.threads.getState<Messages>(thread.thread_id);
    const copied = await client.threads.getState<Messages>(copy.thread_id);
    expect(copied.values).toEqual(original.values);
    expect(copied.checkpoint.checkpoint_id).toBe(original.checkpoint.checkpoint_id);
    const ids = async (id: string) =>
      (await client.threads.getHistory(id, { limit: 100 })).map((s) => s.checkpoint.checkpoint_id);
    expect(await ids(copy.thread_id)).toEqual(await ids(thread.thread_id));
    expect((await client.threads.search({ ids: [copy.thread_id] }))[0]?.values).toEqual(
      (await client.threads.search({ ids: [thread.thread_id] }))[0]?.values,
    );
    await agentTurn(client, copy.thread_id, "only in the copy", "echo");
    expect(texts((await client.threads.getState(thread.thread_id)).values)).toHaveLength(4);
    expect(texts((await client.threads.getState(copy.thread_id)).values)).toHaveLength(6);
  });

  it("a paused thread's copy is paused on the same interrupt, and resumes on its own", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    await approvalUntilInterrupt(client, thread.thread_id);
    const copy = await client.threads.copy(thread.thread_id);
    expect(copy.status).toBe("interrupted");
    const state = await client.threads.getState(copy.thread_id);
    expect(state.next).toEqual(["approve"]);
    // The pending interrupt is the checkpoint's pending write: copied with it.
    const asked = state.tasks.flatMap((task) => task.interrupts.map((i) => i.value));
    expect(asked).toEqual([{ question: "Send the draft?" }]);
    await approvalResume(client, copy.thread_id);
    expect(texts((await client.threads.getState(copy.thread_id)).values).at(-1)).toBe(
      "Decision: yes",
    );
    expect((await client.threads.getState(thread.thread_id)).next).toEqual(["approve"]);
  });

  it("another user's thread is a 404, and nothing is copied", async () => {
    const { ada, bob } = twoUsers(emulator.handle);
    const thread = await ada.threads.create();
    await agentTurn(ada, thread.thread_id, "mine", "echo");
    expect(await statusOf(bob.threads.copy(thread.thread_id))).toBe(404);
    expect(await bob.threads.count()).toBe(0);
  });
});

describe("threads.prune", () => {
  it('"delete" deletes the threads and their checkpoints', async () => {
    const here = studioServer(emulator.handle);
    const client = sdkClient(here.handler);
    const gone = await client.threads.create();
    const kept = await client.threads.create();
    await agentTurn(client, gone.thread_id, "bye", "echo");
    expect(await client.threads.prune([gone.thread_id])).toEqual({ pruned_count: 1 });
    expect(await statusOf(client.threads.get(gone.thread_id))).toBe(404);
    const saver = new StudioCheckpointSaver({ client: here.client, datasetId: "chat-server" });
    expect(await saver.getTuple({ configurable: { thread_id: gone.thread_id } })).toBeUndefined();
    expect((await client.threads.search()).map((t) => t.thread_id)).toEqual([kept.thread_id]);
  });

  it('"keep_latest" keeps the latest state and drops the older checkpoints', async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "first", "echo");
    await agentTurn(client, thread.thread_id, "second", "echo");
    const before = await client.threads.getState(thread.thread_id);
    expect((await client.threads.getHistory(thread.thread_id)).length).toBeGreaterThan(1);
    const pruned = await client.threads.prune([thread.thread_id], { strategy: "keep_latest" });
    expect(pruned).toEqual({ pruned_count: 1 });
    const history = await client.threads.getHistory(thread.thread_id);
    expect(history.map((s) => s.checkpoint.checkpoint_id)).toEqual([
      before.checkpoint.checkpoint_id,
    ]);
    expect((await client.threads.getState(thread.thread_id)).values).toEqual(before.values);
  });

  it("another user's thread among the ids is a 404, and nothing is pruned", async () => {
    const { ada, bob } = twoUsers(emulator.handle);
    const hers = await ada.threads.create();
    const his = await bob.threads.create();
    const call = bob.threads.prune([his.thread_id, hers.thread_id]);
    expect(await statusOf(call)).toBe(404);
    expect((await ada.threads.get(hers.thread_id)).thread_id).toBe(hers.thread_id);
    expect((await bob.threads.get(his.thread_id)).thread_id).toBe(his.thread_id);
  });

  it('"keep_latest" over a checkpointer without prune is a 422 naming strategy', async () => {
    const { MemorySaver } = await import("@langchain/langgraph");
    const { handler } = studioServer(emulator.handle, { checkpointer: new MemorySaver() });
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const call = client.threads.prune([thread.thread_id], { strategy: "keep_latest" });
    const error = (await call.catch((e: unknown) => e)) as { status: number; message: string };
    expect(error.status).toBe(422);
    expect(error.message).toContain('"message":"strategy: ');
  });
});

describe("a thread deleted by another process", () => {
  it("a run there ends in an error and leaves no checkpoints behind", async () => {
    const here = studioServer(emulator.handle);
    const client = sdkClient(here.handler);
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "hello", "echo");
    // Another instance deletes it; this one still knows the thread's owner.
    await sdkClient(studioServer(emulator.handle).handler).threads.delete(thread.thread_id);
    const events = await agentTurn(client, thread.thread_id, "still there?", "echo");
    expect(events.at(-1)).toMatchObject({ event: "error", data: { code: "thread_deleted" } });
    const saver = new StudioCheckpointSaver({ client: here.client, datasetId: "chat-server" });
    expect(await saver.getTuple({ configurable: { thread_id: thread.thread_id } })).toBeUndefined();
    expect(await statusOf(client.threads.get(thread.thread_id))).toBe(404);
  });
});
