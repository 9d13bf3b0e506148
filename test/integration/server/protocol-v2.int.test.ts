/**
 * Protocol v2 through the SDK's own client (`client.threads.stream`, its ThreadStream over SSE):
 * a client-chosen thread created by `run.start`, `POST /threads` with `thread_id`/`if_exists`,
 * interrupts answered with `input.respond`, forks, the state commands, the agent tree, replay
 * from `since`, the event stream's filters, and another user kept out.
 */
import type { Client } from "@langchain/langgraph-sdk";
import { beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { gatedGraph } from "./gated-graph";
import { type Handler, sdkClient, studioServer } from "./harness";
import { ALL_CHANNELS as ALL, command, readEvents, rootEnd } from "./protocol-v2-scripts";
import { say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function handlerFetch(handler: Handler) {
  return (input: string | URL | Request, init?: RequestInit) => handler(new Request(input, init));
}

function open(client: Client, handler: Handler, threadId: string, assistantId: string) {
  return client.threads.stream(threadId, { assistantId, fetch: handlerFetch(handler) });
}

describe("protocol v2 with the SDK's ThreadStream", () => {
  it("run.start on a client-chosen id creates the thread and streams its values", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const threadId = crypto.randomUUID();
    const thread = open(client, handler, threadId, "echo");
    const started = await thread.run.start({ input: say("hello") });
    expect(started.run_id).toEqual(expect.any(String));
    expect(texts(await thread.values)).toEqual(["hello", "You said: hello"]);
    await thread.close();
    // The v1 routes know the thread under the client's id, and list it under that id.
    const got = await client.threads.get(threadId);
    expect(got.thread_id).toBe(threadId);
    expect(got.metadata?.graph_id).toBe("echo");
    const listed = await client.threads.search({ limit: 10 });
    expect(listed.map((t) => t.thread_id)).toEqual([threadId]);
    const state = await client.threads.getState(threadId);
    expect(texts(state.values)).toEqual(["hello", "You said: hello"]);
  });

  it("POST /threads takes thread_id: if_exists raise is a 409, do_nothing returns it", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const threadId = crypto.randomUUID();
    const created = await client.threads.create({ threadId, metadata: { topic: "a" } });
    expect(created.thread_id).toBe(threadId);
    await expect(client.threads.create({ threadId })).rejects.toThrow(/409/);
    const again = await client.threads.create({ threadId, ifExists: "do_nothing" });
    expect(again.thread_id).toBe(threadId);
    expect(again.metadata?.topic).toBe("a");
    // PATCH, runs and DELETE take the client's id too.
    const patched = await client.threads.update(threadId, { metadata: { topic: "b" } });
    expect(patched.thread_id).toBe(threadId);
    expect(patched.metadata?.topic).toBe("b");
    for await (const _ of client.runs.stream(threadId, "echo", { input: say("v1 run") })) {
      // drained
    }
    expect(texts((await client.threads.getState(threadId)).values)).toEqual([
      "v1 run",
      "You said: v1 run",
    ]);
    await client.threads.delete(threadId);
    await expect(client.threads.get(threadId)).rejects.toThrow(/404/);
    // The id is free again once its thread is gone.
    expect((await client.threads.create({ threadId })).thread_id).toBe(threadId);
  });

  it("a fresh process finds a client-chosen id in the service", async () => {
    const first = studioServer(emulator.handle);
    const threadId = crypto.randomUUID();
    await sdkClient(first.handler).threads.create({ threadId, metadata: { n: 1 } });
    const second = studioServer(emulator.handle);
    const before = second.calls.count;
    const found = await sdkClient(second.handler).threads.get(threadId);
    expect(found.metadata?.n).toBe(1);
    // The id's listing and the thread's record; no scan of the account.
    expect(second.calls.count - before).toBeLessThanOrEqual(4);
  });

  it("an interrupt is shown, then answered with input.respond", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const threadId = crypto.randomUUID();
    const thread = open(client, handler, threadId, "approval");
    await thread.run.start({ input: say("write to Ada") });
    await thread.values;
    expect(thread.interrupted).toBe(true);
    const [pending] = thread.interrupts;
    expect(pending?.payload).toEqual({ question: "Send the draft?" });
    await thread.close();
    // A ThreadStream's `values` settles once: the answer is sent from a fresh one (a reload).
    const answering = open(client, handler, threadId, "approval");
    await answering.input.respond({
      namespace: [],
      interrupt_id: pending!.interruptId,
      response: "yes",
    });
    const values = await answering.values;
    expect(texts(values)).toEqual(["write to Ada", "Draft for: write to Ada", "Decision: yes"]);
    await answering.close();
    const listed = await client.threads.get(threadId);
    expect(listed.status).toBe("idle");
  });

  it("input.respond naming no pending interrupt is a no_such_interrupt error", async () => {
    const { handler } = studioServer(emulator.handle);
    const threadId = crypto.randomUUID();
    const start = { assistant_id: "approval", input: say("hi") };
    await command(handler, threadId, { id: 1, method: "run.start", params: start });
    await readEvents(handler, threadId, { channels: ["lifecycle"] }, rootEnd);
    const answer = await command(handler, threadId, {
      id: 2,
      method: "input.respond",
      params: { namespace: [], interrupt_id: "not-asked", response: "yes" },
    });
    expect(answer.body).toMatchObject({ type: "error", id: 2, error: "no_such_interrupt" });
  });

  it("state.get, state.listCheckpoints, state.fork and agent.getTree", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const threadId = crypto.randomUUID();
    const thread = open(client, handler, threadId, "echo");
    await thread.run.start({ input: say("first") });
    await thread.values;
    const state = (await thread.state.get({ namespace: [] })) as {
      values: Record<string, unknown>;
      checkpoint?: { id: string };
    };
    expect(texts(state.values)).toEqual(["first", "You said: first"]);
    expect(state.checkpoint?.id).toEqual(expect.any(String));
    const picked = (await thread.state.get({ namespace: [], keys: ["nothing"] })) as {
      values: Record<string, unknown>;
    };
    expect(picked.values).toEqual({});
    const { checkpoints } = (await thread.state.listCheckpoints({ limit: 10 })) as {
      checkpoints: { id: string; step: number }[];
    };
    expect(checkpoints[0]?.id).toBe(state.checkpoint?.id);
    expect(checkpoints.map((c) => c.step)).toEqual([1, 0, -1]);
    const tree = await thread.agent.getTree();
    expect(tree.tree).toMatchObject({ namespace: [], status: "completed", graph_name: "echo" });
    // Fork from the checkpoint before the reply: the input replaces "first".
    const input = checkpoints.find((c) => c.step === -1)!;
    const forked = (await thread.state.fork({
      checkpoint_id: input.id,
      input: say("edited"),
    })) as { run_id: string; thread_id: string };
    expect(forked.thread_id).toBe(threadId);
    await thread.close();
    const events = await readEvents(
      handler,
      threadId,
      { channels: ["lifecycle", "values"] },
      rootEnd,
    );
    expect(events.some((e) => e.method === "values")).toBe(true);
    const after = await client.threads.getState(threadId);
    expect(texts(after.values)).toEqual(["edited", "You said: edited"]);
  });

  it("run.start from a checkpoint (forkFrom) is a fork", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const threadId = crypto.randomUUID();
    const turn = async (params: Record<string, unknown>) => {
      // A ThreadStream's `values` settles once: one per turn, as a page reload would.
      const thread = open(client, handler, threadId, "echo");
      await thread.run.start(params as never);
      const values = await thread.values;
      await thread.close();
      return texts(values);
    };
    await turn({ input: say("one") });
    expect(await turn({ input: say("two") })).toEqual([
      "one",
      "You said: one",
      "two",
      "You said: two",
    ]);
    const history = await client.threads.getHistory(threadId, { limit: 20 });
    const afterFirst = history.find(
      (s) => (s.values as { messages: unknown[] }).messages.length === 2 && s.next.length === 0,
    );
    const forked = await turn({
      input: say("other"),
      forkFrom: afterFirst!.checkpoint.checkpoint_id!,
    });
    expect(forked).toEqual(["one", "You said: one", "other", "You said: other"]);
  });

  it("input.inject runs the message as the thread's next input", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const threadId = crypto.randomUUID();
    const thread = open(client, handler, threadId, "echo");
    await thread.run.start({ input: say("first") });
    await thread.values;
    await thread.close();
    const before = await readEvents(handler, threadId, { channels: ["lifecycle"] }, rootEnd);
    const injecting = open(client, handler, threadId, "echo");
    await injecting.input.inject({
      namespace: [],
      message: { role: "user", content: "injected" },
    });
    await injecting.close();
    const since = before.at(-1)!.seq;
    await readEvents(handler, threadId, { channels: ["lifecycle"], since }, rootEnd);
    expect(texts((await client.threads.getState(threadId)).values)).toEqual([
      "first",
      "You said: first",
      "injected",
      "You said: injected",
    ]);
    const bad = await command(handler, threadId, {
      id: 9,
      method: "input.inject",
      params: { namespace: [], message: { role: "tool", content: "x" } },
    });
    expect(bad.body).toMatchObject({ type: "error", error: "invalid_argument" });
    expect(String(bad.body.message)).toContain("role");
  });

  it("subscription.subscribe and unsubscribe are answered", async () => {
    const { handler } = studioServer(emulator.handle);
    const threadId = crypto.randomUUID();
    const subscribed = await command(handler, threadId, {
      id: 1,
      method: "subscription.subscribe",
      params: { channels: ["values"] },
    });
    expect(subscribed.body).toMatchObject({
      type: "success",
      id: 1,
      result: { subscription_id: expect.any(String) },
    });
    const result = subscribed.body.result as { subscription_id: string };
    const gone = await command(handler, threadId, {
      id: 2,
      method: "subscription.unsubscribe",
      params: { subscription_id: result.subscription_id },
    });
    expect(gone.body).toMatchObject({ type: "success", id: 2, result: {} });
  });

  it("runs queue on the thread (enqueue); a v1 cancel ends one as interrupted", async () => {
    const slow = gatedGraph();
    const { handler } = studioServer(emulator.handle, { graphs: { slow: slow.graph } });
    const client = sdkClient(handler);
    const threadId = crypto.randomUUID();
    const start = (id: number, text: string) =>
      command(handler, threadId, {
        id,
        method: "run.start",
        params: { assistant_id: "slow", input: say(text) },
      });
    const first = (await start(1, "one")).body.result as { run_id: string };
    await slow.entered(0);
    const second = (await start(2, "two")).body.result as { run_id: string };
    expect(second.run_id).not.toBe(first.run_id);
    // The v1 routes know the v2 run under the client's thread id.
    await client.runs.cancel(threadId, first.run_id, true);
    await slow.entered(1);
    slow.open(1);
    const roots = await readEvents(
      handler,
      threadId,
      { channels: ["lifecycle"], namespaces: [[]], depth: 0 },
      (e) => rootEnd(e) && e.params.data.event === "completed",
    );
    expect(roots.map((e) => e.params.data.event)).toEqual([
      "running",
      "interrupted",
      "running",
      "completed",
    ]);
    expect(texts((await client.threads.getState(threadId)).values)).toEqual([
      "one",
      "two",
      "Slowly: two",
    ]);
  });

  it("an unknown command is the protocol's unknown_command error naming it", async () => {
    const { handler } = studioServer(emulator.handle);
    const threadId = crypto.randomUUID();
    await command(handler, threadId, {
      id: 1,
      method: "run.start",
      params: { assistant_id: "echo", input: say("hi") },
    });
    const answer = await command(handler, threadId, { id: 7, method: "state.rewind", params: {} });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      type: "error",
      id: 7,
      error: "unknown_command",
      message: expect.stringContaining("state.rewind"),
    });
  });

  it("replays the buffer to a new stream, and only what follows `since`", async () => {
    const { handler } = studioServer(emulator.handle);
    const threadId = crypto.randomUUID();
    await command(handler, threadId, {
      id: 1,
      method: "run.start",
      params: { assistant_id: "approval", input: say("hi") },
    });
    const all = await readEvents(handler, threadId, { channels: ALL }, rootEnd);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    // A stream opened after the run ended gets the same events again.
    const again = await readEvents(handler, threadId, { channels: ALL }, rootEnd);
    expect(again.map((e) => e.seq)).toEqual(all.map((e) => e.seq));
    const since = all[4]!.seq;
    const later = await readEvents(handler, threadId, { channels: ALL, since }, rootEnd);
    expect(later.map((e) => e.seq)).toEqual(all.slice(5).map((e) => e.seq));
  });

  it("filters by channels, namespaces and depth", async () => {
    const { handler } = studioServer(emulator.handle);
    const threadId = crypto.randomUUID();
    await command(handler, threadId, {
      id: 1,
      method: "run.start",
      params: { assistant_id: "approval", input: say("hi") },
    });
    const all = await readEvents(handler, threadId, { channels: ALL }, rootEnd);
    const lifecycle = await readEvents(handler, threadId, { channels: ["lifecycle"] }, rootEnd);
    expect(lifecycle.map((e) => e.seq)).toEqual(
      all.filter((e) => e.method === "lifecycle").map((e) => e.seq),
    );
    // Root only: depth 0 below the root namespace leaves the nodes' message events out.
    const rootOnly = await readEvents(
      handler,
      threadId,
      { channels: ALL, namespaces: [[]], depth: 0 },
      rootEnd,
    );
    expect(rootOnly.length).toBeGreaterThan(0);
    expect(rootOnly.every((e) => e.params.namespace.length === 0)).toBe(true);
    expect(all.some((e) => e.params.namespace.length > 0)).toBe(true);
    // A namespace prefix by graph name ("draft") matches "draft:<task id>".
    const draft = await readEvents(
      handler,
      threadId,
      { channels: ["messages", "lifecycle"], namespaces: [["draft"]] },
      (e) => e.method === "lifecycle" && e.params.data.event === "completed",
    );
    expect(draft.length).toBeGreaterThan(1);
    expect(draft.every((e) => e.params.namespace[0]?.startsWith("draft:"))).toBe(true);
    // A filter with a field the protocol lacks is a 422 naming it.
    const bad = await handler(
      new Request(`http://agent.test/threads/${threadId}/stream/events`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ channels: ["values"], chanels: ["x"] }),
      }),
    );
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("chanels");
  });

  it("another user's client id never reaches the owner's thread", async () => {
    const { handler } = studioServer(emulator.handle, {
      auth: (request) => request.headers.get("x-user") ?? undefined,
    });
    const threadId = crypto.randomUUID();
    await command(
      handler,
      threadId,
      { id: 1, method: "run.start", params: { assistant_id: "echo", input: say("ada's secret") } },
      { "x-user": "ada" },
    );
    await readEvents(handler, threadId, { channels: ["lifecycle"] }, rootEnd, { "x-user": "ada" });
    const bob = sdkClient(handler, { "x-user": "bob" });
    await expect(bob.threads.get(threadId)).rejects.toThrow(/404/);
    await expect(bob.threads.getState(threadId)).rejects.toThrow(/404/);
    const streamed = await handler(
      new Request(`http://agent.test/threads/${threadId}/stream/events`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "x-user": "bob" },
        body: JSON.stringify({ channels: ["values"] }),
      }),
    );
    expect(streamed.status).toBe(404);
    const state = await command(
      handler,
      threadId,
      { id: 2, method: "state.get", params: { namespace: [] } },
      { "x-user": "bob" },
    );
    expect(state.status).toBe(404);
    // Bob's run.start under the same id makes bob's own thread: ada's words never reach him.
    await command(
      handler,
      threadId,
      { id: 3, method: "run.start", params: { assistant_id: "echo", input: say("bob here") } },
      { "x-user": "bob" },
    );
    await readEvents(handler, threadId, { channels: ["lifecycle"] }, rootEnd, { "x-user": "bob" });
    const mine = await bob.threads.getState(threadId);
    expect(texts(mine.values)).toEqual(["bob here", "You said: bob here"]);
    const ada = sdkClient(handler, { "x-user": "ada" });
    expect(texts((await ada.threads.getState(threadId)).values)).toEqual([
      "ada's secret",
      "You said: ada's secret",
    ]);
  });
});
