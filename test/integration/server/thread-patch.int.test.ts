/**
 * PATCH of a thread's metadata, driven through the SDK's `Client` against the emulator: every
 * acknowledged PATCH is kept, however they race each other or a run's final save (the record's
 * read-modify-write is serialized per thread in this process; `run-lifecycle.ts`).
 */
import { AIMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { snapshotMessage } from "../../../src/records/chat-thread";
import { createAgentServer } from "../../../src/server";
import { useEmulator } from "../../helpers/emulator";
import { deferred, drain, gate } from "../../helpers/gate";
import { sdkClient, studioServer } from "./harness";
import { collect, say } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function studioClient(fetchImpl?: typeof fetch): StudioClient {
  return new StudioClient({
    baseUrl: emulator.handle.baseUrl,
    proxyUrl: emulator.handle.proxyUrl,
    apiKey: emulator.handle.apiKey,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  } as ConstructorParameters<typeof StudioClient>[0]);
}

function replyGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("reply", () => ({ messages: [new AIMessage({ content: "done" })] }))
    .addEdge(START, "reply")
    .compile();
}

describe("createAgentServer: concurrent PATCHes", () => {
  it("keeps all ten of ten concurrent PATCHes of distinct metadata keys", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const { thread_id } = await client.threads.create({ metadata: { from: "test" } });
    const keys = Array.from({ length: 10 }, (_, i) => `key${i}`);
    await Promise.all(
      keys.map((key) => client.threads.update(thread_id, { metadata: { [key]: 1 } })),
    );
    const { metadata } = await client.threads.get(thread_id);
    for (const key of ["from", ...keys])
      expect(metadata).toHaveProperty(key, key === "from" ? "test" : 1);
  });
});

describe("createAgentServer: a PATCH while a run ends", () => {
  it("keeps metadata patched while the run reads its final state", async () => {
    let client: ReturnType<typeof sdkClient> | undefined;
    let threadId = "";
    let patchNextRead = false;
    /** The run's final state read is the first read after its node ran: PATCH right then. */
    class PatchingSaver extends StudioCheckpointSaver {
      override async getTuple(config: RunnableConfig) {
        if (patchNextRead && client) {
          patchNextRead = false;
          await client.threads.update(threadId, { metadata: { pinned: true } });
        }
        return super.getTuple(config);
      }
    }
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("reply", () => {
        patchNextRead = true;
        return { messages: [new AIMessage({ content: "done" })] };
      })
      .addEdge(START, "reply")
      .compile();
    const { handler } = studioServer(emulator.handle, {
      graphs: { patched: graph },
      checkpointer: new PatchingSaver({ client: studioClient(), datasetId: "chat-server" }),
    });
    client = sdkClient(handler);
    threadId = (await client.threads.create({ metadata: { from: "test" } })).thread_id;
    await collect(client.runs.stream(threadId, "patched", { input: say("hi") }));
    expect(patchNextRead).toBe(false);
    const thread = await client.threads.get(threadId);
    expect(thread.metadata).toMatchObject({ from: "test", pinned: true, graph_id: "patched" });
  });

  it("keeps the thread's graph_id when a PATCH races the end of its first run", async () => {
    // The run's final save (its snapshot POST) waits at a gate while a PATCH comes. A PATCH that
    // waits its turn asks the service nothing meanwhile; one that does not reads the thread and
    // saves at once, and is let land first (as it would by chance), so the test catches it.
    let hold: ReturnType<typeof gate> | undefined;
    let saveHeld = false;
    const saving = deferred();
    const patchPosted = deferred();
    let patchReads = 0;
    let threadId = "";
    const release = gate();
    const studio = studioClient(async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      const method = (init?.method ?? "GET").toUpperCase();
      const messages = url.includes(`/threads/${threadId}/messages`);
      if (hold && method === "POST" && messages) {
        const held = hold;
        hold = undefined;
        saveHeld = true;
        saving.resolve();
        await held.wait;
      } else if (saveHeld && method === "POST" && messages) {
        patchPosted.resolve();
      } else if (saveHeld && !release.opened && url.includes(`/threads/${threadId}`)) {
        patchReads++;
      }
      return fetch(input, init);
    });
    const handler = createAgentServer({
      graphs: { first: replyGraph() },
      checkpointer: new StudioCheckpointSaver({ client: studioClient(), datasetId: "chat-server" }),
      client: studio,
    });
    const client = sdkClient(handler);
    threadId = (await client.threads.create({ metadata: { from: "test" } })).thread_id;
    hold = release;
    const run = collect(client.runs.stream(threadId, "first", { input: say("hi") }));
    await saving.promise;
    const patch = client.threads.update(threadId, { metadata: { pinned: true } });
    // Everything the PATCH can do before its turn is done within these turns of the queue.
    for (let i = 0; i < 10 && patchReads === 0; i++) await drain();
    if (patchReads > 0) await patchPosted.promise;
    release.open();
    await Promise.all([run, patch]);
    const thread = await client.threads.get(threadId);
    expect(thread.metadata).toMatchObject({ from: "test", pinned: true, graph_id: "first" });
  });
});

describe("createAgentServer: the thread's first snapshot", () => {
  it("is never read over a later save, whatever the clocks say", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const thread = await client.threads.create({ metadata: { state: "created" } });
    // A save by a process whose clock is behind this one's: an older `updated_at` than the
    // first snapshot's, written after it.
    const behind = new Date(Date.parse(thread.updated_at) - 60_000).toISOString();
    const saved = { ...thread, metadata: { state: "saved" }, updated_at: behind };
    await studioClient().createMessage(thread.thread_id, snapshotMessage(saved));
    // Read by a process that has not seen the thread (nothing cached), and in a search.
    const fresh = sdkClient(studioServer(emulator.handle).handler);
    expect((await fresh.threads.get(thread.thread_id)).metadata).toEqual({ state: "saved" });
    const listed = await fresh.threads.search();
    expect(listed.map((t) => t.metadata)).toEqual([{ state: "saved" }]);
  });
});
