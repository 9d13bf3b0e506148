/**
 * A thread's state written and read at a checkpoint through the SDK's `Client`:
 * `threads.updateState` (deep-agents-ui's file panel), `threads.getState` at a checkpoint (by id
 * and by config), and `select` on state and history.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { gatedGraph } from "./gated-graph";
import { whoamiGraph } from "./graphs";
import { sdkClient, statusOf, studioServer, twoUsers } from "./harness";
import { agentTurn, approvalUntilInterrupt, say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

type Messages = { messages: { type: string; content: unknown }[] };

describe("threads.updateState", () => {
  it("writes values as the node named, then the state and the list read them", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "hello", "echo");
    // The reference's answer, `{ checkpoint }` (the SDK types it as a config).
    const written = (await client.threads.updateState(thread.thread_id, {
      values: { messages: [{ type: "ai", content: "edited by hand" }] },
      asNode: "reply",
    })) as unknown as { checkpoint: { checkpoint_id: string } };
    const state = await client.threads.getState<Messages>(thread.thread_id);
    expect(texts(state.values)).toEqual(["hello", "You said: hello", "edited by hand"]);
    expect(state.checkpoint.checkpoint_id).toBe(written.checkpoint.checkpoint_id);
    expect(state.metadata?.source).toBe("update");
    // The node it was written as: the graph's next step after "reply" is the end.
    expect(state.next).toEqual([]);
    const [listed] = await client.threads.search<Messages>();
    expect(listed?.values.messages.at(-1)?.content).toBe("edited by hand");
  });

  it("as_node decides what runs next: written as the paused node, the graph moves past it", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    await approvalUntilInterrupt(client, thread.thread_id);
    expect((await client.threads.getState(thread.thread_id)).next).toEqual(["approve"]);
    await client.threads.updateState(thread.thread_id, {
      values: { decision: "no" },
      asNode: "approve",
    });
    const state = await client.threads.getState<{ decision: string }>(thread.thread_id);
    expect(state.next).toEqual(["answer"]);
    expect(state.values.decision).toBe("no");
    // The list follows: no longer waiting on the interrupt.
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("writes from a named checkpoint: a branch from the earlier state", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "first", "echo");
    const before = await client.threads.getState(thread.thread_id);
    await agentTurn(client, thread.thread_id, "second", "echo");
    await client.threads.updateState(thread.thread_id, {
      values: { messages: [{ type: "ai", content: "branch" }] },
      checkpointId: before.checkpoint.checkpoint_id ?? undefined,
      asNode: "reply",
    });
    const state = await client.threads.getState<Messages>(thread.thread_id);
    expect(texts(state.values)).toEqual(["first", "You said: first", "branch"]);
  });

  it("a checkpoint the thread does not have is a 404", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "first", "echo");
    const call = client.threads.updateState(thread.thread_id, {
      values: { messages: [] },
      checkpointId: "1f000000-0000-6000-8000-000000000000",
    });
    expect(await statusOf(call)).toBe(404);
  });

  it("a thread no graph has run on is a 409", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    expect(await statusOf(client.threads.updateState(thread.thread_id, { values: {} }))).toBe(409);
  });

  it("another user's thread is a 404, and its state is unchanged", async () => {
    const { ada, bob } = twoUsers(emulator.handle);
    const thread = await ada.threads.create();
    await agentTurn(ada, thread.thread_id, "mine", "echo");
    const call = bob.threads.updateState(thread.thread_id, {
      values: { messages: [{ type: "ai", content: "bob was here" }] },
      asNode: "reply",
    });
    expect(await statusOf(call)).toBe(404);
    const state = await ada.threads.getState<Messages>(thread.thread_id);
    expect(texts(state.values)).toEqual(["mine", "You said: mine"]);
  });
});

describe("threads.getState at a checkpoint", () => {
  it("by id and by config, the state as it was then", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "first", "echo");
    const then = await client.threads.getState(thread.thread_id);
    await agentTurn(client, thread.thread_id, "second", "echo");
    const id = then.checkpoint.checkpoint_id!;
    const byId = await client.threads.getState<Messages>(thread.thread_id, id);
    expect(texts(byId.values)).toEqual(["first", "You said: first"]);
    expect(byId.checkpoint.checkpoint_id).toBe(id);
    const byConfig = await client.threads.getState<Messages>(thread.thread_id, {
      thread_id: thread.thread_id,
      checkpoint_id: id,
      checkpoint_ns: "",
      checkpoint_map: null,
    });
    expect(byConfig.values).toEqual(byId.values);
  });

  it("a checkpoint the thread does not have is a 404", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "first", "echo");
    const missing = "1f000000-0000-6000-8000-000000000000";
    expect(await statusOf(client.threads.getState(thread.thread_id, missing))).toBe(404);
  });

  it("another user's thread is a 404, whatever the checkpoint", async () => {
    const { ada, bob } = twoUsers(emulator.handle);
    const thread = await ada.threads.create();
    await agentTurn(ada, thread.thread_id, "mine", "echo");
    const id = (await ada.threads.getState(thread.thread_id)).checkpoint.checkpoint_id!;
    expect(await statusOf(bob.threads.getState(thread.thread_id, id))).toBe(404);
    const byConfig = bob.threads.getState(thread.thread_id, {
      thread_id: thread.thread_id,
      checkpoint_id: id,
      checkpoint_ns: "",
      checkpoint_map: null,
    });
    expect(await statusOf(byConfig)).toBe(404);
  });
});

describe("select on state and history", () => {
  it("getState keeps only the selected fields, values.<key> one key", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    await approvalUntilInterrupt(client, thread.thread_id);
    const picked = await client.threads.getState(thread.thread_id, undefined, {
      select: ["values.messages", "next", "interrupts"],
    });
    expect(Object.keys(picked).sort()).toEqual(["interrupts", "next", "values"]);
    expect(Object.keys(picked.values)).toEqual(["messages"]);
    expect(picked.next).toEqual(["approve"]);
    const interrupts = (picked as unknown as { interrupts: { value: unknown }[] }).interrupts;
    expect(interrupts.map((i) => i.value)).toEqual([{ question: "Send the draft?" }]);
    const id = (await client.threads.getState(thread.thread_id)).checkpoint.checkpoint_id!;
    const atId = await client.threads.getState(thread.thread_id, id, { select: ["checkpoint"] });
    expect(atId).toEqual({ checkpoint: expect.objectContaining({ checkpoint_id: id }) });
  });

  it("getHistory keeps only the selected fields of each state", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "hello", "echo");
    const history = await client.threads.getHistory(thread.thread_id, {
      select: ["checkpoint", "metadata"],
    });
    expect(history.length).toBeGreaterThan(1);
    for (const state of history)
      expect(Object.keys(state).sort()).toEqual(["checkpoint", "metadata"]);
  });

  it("a field a state does not have is a 422 naming select", async () => {
    const client = sdkClient(studioServer(emulator.handle).handler);
    const thread = await client.threads.create();
    const bad = client.threads.getState(thread.thread_id, undefined, {
      select: ["config" as never],
    });
    expect(await statusOf(bad)).toBe(422);
    const badHistory = client.threads.getHistory(thread.thread_id, {
      select: ["tasks", "x" as never],
    });
    const error = (await badHistory.catch((e: unknown) => e)) as { message: string };
    expect(error.message).toContain("select.1");
  });
});

describe("threads.getState while a run of another graph is under way", () => {
  it("reads the thread with the running graph, so a reloaded UI sees what runs next", async () => {
    const gated = gatedGraph();
    const client = sdkClient(
      studioServer(emulator.handle, {
        graphs: { whoami: whoamiGraph(), slow: gated.graph },
      }).handler,
    );
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "hello", "whoami");
    const run = await client.runs.create(thread.thread_id, "slow", { input: say("again") });
    await gated.entered(0);
    // The record still names "whoami" (it changes at the run's end); read with it, the
    // checkpoint of "slow" would have nothing next.
    const during = await client.threads.getState(thread.thread_id);
    expect(during.next).toEqual(["reply"]);
    gated.openAll();
    await client.runs.join(thread.thread_id, run.run_id);
    expect((await client.threads.getState(thread.thread_id)).next).toEqual([]);
    expect((await client.threads.get(thread.thread_id)).metadata?.graph_id).toBe("slow");
  });
});
