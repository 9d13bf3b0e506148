/**
 * What a chat message costs in service calls, counted at the emulator: the server's own share
 * (the thread list) is fixed per message, and neither it nor a search grows with the account.
 * The numbers are the ones docs/chat-ui.md states.
 */
import { MemorySaver } from "@langchain/langgraph";
import type { Client } from "@langchain/langgraph-sdk";
import { beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { type Handler, sdkClient, studioServer } from "./harness";
import { agentTurn, approvalResume, approvalUntilInterrupt, say, texts } from "./scripts";

const emulator = useEmulator({ recordRequests: 10_000 } as never);

beforeEach(async () => {
  await emulator.handle.reset();
});

/** The service calls made while `action` runs, by "METHOD path" with ids replaced. */
async function callsDuring(action: () => Promise<unknown>, threadId?: string): Promise<string[]> {
  const before = emulator.handle.requests.length;
  await action();
  return emulator.handle.requests
    .slice(before)
    .filter((r) => threadId === undefined || r.path.includes(`/threads/${threadId}`))
    .map((r) => `${r.method} ${r.path.replace(/\/(thread|msg|asst)[-_][A-Za-z0-9_-]+/g, "/:id")}`);
}

function threadListCalls(calls: string[]): string[] {
  // The checkpointer's calls and the model's are theirs; the rest is the server's thread list.
  return calls.filter((c) => !c.includes("chat/completions"));
}

describe("service calls per thread creation and PATCH", () => {
  it("POST /threads costs one call: the thread, with its first snapshot", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const calls = await callsDuring(() => client.threads.create({ metadata: { n: 1 } }));
    expect(calls).toEqual(["POST /studio/v1/threads"]);
  });

  it("a PATCH costs three calls: read the record (1), replace its snapshot (2)", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const patch = (metadata: Record<string, unknown>) =>
      callsDuring(() => client.threads.update(thread.thread_id, { metadata }), thread.thread_id);
    // The thread's owner was learnt when this process created it: no read of the thread itself.
    // The first save after the creation deletes nothing (the first snapshot stays).
    expect(await patch({ pinned: true })).toEqual([
      "GET /studio/v1/threads/:id/messages",
      "POST /studio/v1/threads/:id/messages",
    ]);
    expect(await patch({ pinned: false })).toEqual([
      "GET /studio/v1/threads/:id/messages",
      "POST /studio/v1/threads/:id/messages",
      "DELETE /studio/v1/threads/:id/messages/:id",
    ]);
    expect((await client.threads.get(thread.thread_id)).metadata).toEqual({ pinned: false });
  });
});

describe("service calls per message", () => {
  it("a message costs the checkpointer's calls plus three for the thread list, at any age", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "warm up", "echo");
    const second = await callsDuring(() => agentTurn(client, thread.thread_id, "hello", "echo"));
    const third = await callsDuring(() => agentTurn(client, thread.thread_id, "again", "echo"));
    // The same count on the tenth message as on the second: nothing grows with the thread's age.
    for (let i = 0; i < 6; i++) await agentTurn(client, thread.thread_id, `turn ${i}`, "echo");
    const tenth = await callsDuring(() => agentTurn(client, thread.thread_id, "tenth", "echo"));
    expect(third.length).toBe(second.length);
    expect(tenth.length).toBe(second.length);
    // The thread list's share: the owner check before the run is free (the owner never
    // changes, and this process knows it), then read the record and replace its snapshot (3).
    // The rest is the checkpointer's (7 for this one-node graph).
    const own = await callsDuring(
      () => agentTurn(client, thread.thread_id, "counted", "echo"),
      thread.thread_id,
    );
    expect(own).toEqual([
      "GET /studio/v1/threads/:id/messages",
      "POST /studio/v1/threads/:id/messages",
      "DELETE /studio/v1/threads/:id/messages/:id",
    ]);
    expect(second).toHaveLength(10);
  });

  it("a process that has not seen the thread reads its owner once (4 calls), then 3 a message", async () => {
    const first = studioServer(emulator.handle);
    const thread = await sdkClient(first.handler).threads.create();
    // Past the thread's first save (which has no snapshot to delete).
    await agentTurn(sdkClient(first.handler), thread.thread_id, "warm up", "echo");
    // Another process (a restart, a second instance) over the same service.
    const later = sdkClient(studioServer(emulator.handle).handler);
    const counted = () =>
      callsDuring(() => agentTurn(later, thread.thread_id, "hello", "echo"), thread.thread_id);
    expect(await counted()).toEqual([
      "GET /studio/v1/threads/:id",
      "GET /studio/v1/threads/:id/messages",
      "POST /studio/v1/threads/:id/messages",
      "DELETE /studio/v1/threads/:id/messages/:id",
    ]);
    expect(await counted()).toEqual([
      "GET /studio/v1/threads/:id/messages",
      "POST /studio/v1/threads/:id/messages",
      "DELETE /studio/v1/threads/:id/messages/:id",
    ]);
  });

  it("a search lists the owner's threads in one call per 100, whatever else the account holds", async () => {
    const { handler } = studioServer(emulator.handle, { auth: (r) => r.headers.get("x-user") });
    const ada = sdkClient(handler, { "x-user": "ada" });
    const bob = sdkClient(handler, { "x-user": "bob" });
    for (let i = 0; i < 3; i++) await ada.threads.create();
    const small = await callsDuring(() => ada.threads.search());
    for (let i = 0; i < 12; i++) await bob.threads.create();
    const large = await callsDuring(() => ada.threads.search());
    expect(threadListCalls(large)).toEqual(threadListCalls(small));
    expect(large).toHaveLength(1);
  });

  it("an interrupt and its resume cost the same thread-list calls as a message", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    // Past the thread's first save (which has no snapshot to delete).
    await agentTurn(client, thread.thread_id, "warm up", "echo");
    const paused = await callsDuring(
      () => approvalUntilInterrupt(client, thread.thread_id),
      thread.thread_id,
    );
    const resumed = await callsDuring(
      () => approvalResume(client, thread.thread_id),
      thread.thread_id,
    );
    expect(paused).toHaveLength(3);
    expect(resumed).toEqual(paused);
  });
});

/** One message as `@langchain/react`'s `useStream` sends it: `run.start`, then its values. */
async function v2Turn(client: Client, handler: Handler, threadId: string, text: string) {
  const fetch = (input: string | URL | Request, init?: RequestInit) =>
    handler(new Request(input, init));
  const thread = client.threads.stream(threadId, { assistantId: "echo", fetch });
  try {
    await thread.run.start({ input: say(text) });
    expect(texts(await thread.values).at(-1)).toBe(`You said: ${text}`);
  } finally {
    await thread.close();
  }
}

describe("service calls per protocol v2 message", () => {
  it("a message on a client-minted thread costs three calls; its first, which creates it, six", async () => {
    // MemorySaver: every call counted is the thread list's.
    const { handler } = studioServer(emulator.handle, { checkpointer: new MemorySaver() });
    const client = sdkClient(handler);
    const threadId = crypto.randomUUID();
    const first = await callsDuring(() => v2Turn(client, handler, threadId, "hello"));
    const creation = [
      // The id is looked up: its listing, then as a service id.
      "GET /studio/v1/threads",
      `GET /studio/v1/threads/${threadId}`,
      // The chat thread with its first snapshot, the id's thread (it names the chat thread),
      // then the check for a concurrent creation.
      "POST /studio/v1/threads",
      "POST /studio/v1/threads",
      "GET /studio/v1/threads",
      // The run's end appends the record (not read back: this process just wrote it); the
      // first snapshot stays, so nothing is deleted.
      "POST /studio/v1/threads/:id/messages",
    ];
    expect(first).toEqual(creation);
    // The command and the event stream find the thread in this process: no look-up.
    const perMessage = [
      "GET /studio/v1/threads/:id/messages",
      "POST /studio/v1/threads/:id/messages",
      "DELETE /studio/v1/threads/:id/messages/:id",
    ];
    expect(await callsDuring(() => v2Turn(client, handler, threadId, "again"))).toEqual(perMessage);
    expect(await callsDuring(() => v2Turn(client, handler, threadId, "third"))).toEqual(perMessage);
    // Once this process has seen that the service's ids are no UUIDs, a new UUID is not tried
    // as one: the next new thread costs five.
    const next = await callsDuring(() => v2Turn(client, handler, crypto.randomUUID(), "new"));
    expect(next).toEqual(creation.filter((call) => !call.includes(threadId)));
  });

  it("a process that has not seen the thread looks its id up once, then three calls a message", async () => {
    const first = studioServer(emulator.handle, { checkpointer: new MemorySaver() });
    const threadId = crypto.randomUUID();
    await v2Turn(sdkClient(first.handler), first.handler, threadId, "hello");
    const later = studioServer(emulator.handle, { checkpointer: new MemorySaver() });
    const client = sdkClient(later.handler);
    expect(await callsDuring(() => v2Turn(client, later.handler, threadId, "again"))).toEqual([
      // The id's listing, then the thread it names (its owner, its record).
      "GET /studio/v1/threads",
      "GET /studio/v1/threads/:id",
      "GET /studio/v1/threads/:id/messages",
      // The run's end: read the record, replace its snapshot.
      "GET /studio/v1/threads/:id/messages",
      "POST /studio/v1/threads/:id/messages",
      "DELETE /studio/v1/threads/:id/messages/:id",
    ]);
    expect(await callsDuring(() => v2Turn(client, later.handler, threadId, "third"))).toEqual([
      "GET /studio/v1/threads/:id/messages",
      "POST /studio/v1/threads/:id/messages",
      "DELETE /studio/v1/threads/:id/messages/:id",
    ]);
  });
});
