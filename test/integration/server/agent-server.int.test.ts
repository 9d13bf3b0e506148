/**
 * The Agent Server handler driven by the SDK's `Client` (its fetch pointed at the handler),
 * against the emulator: threads, every stream mode, interrupts, forks, history, cancel, 409,
 * tenancy, and a second handler (another process) continuing a thread.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver, StudioStore } from "../../../src/langgraph";
import { createAgentServer } from "../../../src/server";
import { useEmulator } from "../../helpers/emulator";
import { gatedGraph } from "./gated-graph";
import { echoGraph, memoGraph } from "./graphs";
import { sdkClient, studioServer } from "./harness";
import { agentTurn, approvalResume, approvalUntilInterrupt, collect, say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

describe("createAgentServer with the SDK's Client", () => {
  it("creates threads and finds them by metadata, newest activity first", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const a = await client.threads.create({ metadata: { project: "alpha" } });
    const b = await client.threads.create({ metadata: { project: "beta" } });
    expect(a.thread_id).not.toBe(b.thread_id);
    expect(a.status).toBe("idle");
    expect((await client.threads.get(a.thread_id)).metadata).toMatchObject({ project: "alpha" });

    const beta = await client.threads.search({ metadata: { project: "beta" } });
    expect(beta.map((t) => t.thread_id)).toEqual([b.thread_id]);

    await agentTurn(client, a.thread_id, "hello there");
    const all = await client.threads.search({ sortBy: "updated_at", sortOrder: "desc" });
    expect(all.map((t) => t.thread_id)).toEqual([a.thread_id, b.thread_id]);
    expect(all[0]).toMatchObject({
      status: "idle",
      title: "hello there",
      preview: "You said: hello there",
      metadata: { project: "alpha", graph_id: "agent" },
    });
    const page = await client.threads.search({ limit: 1, offset: 1, sortBy: "updated_at" });
    expect(page.map((t) => t.thread_id)).toEqual([b.thread_id]);

    const patched = await client.threads.update(b.thread_id, { metadata: { title: "Named" } });
    expect(patched.metadata).toMatchObject({ project: "beta", title: "Named" });
    expect(patched).toMatchObject({ title: "Named" });
    await client.threads.delete(b.thread_id);
    await expect(client.threads.get(b.thread_id)).rejects.toThrow(/404/);
    await expect(client.threads.get("%E0%A4%A")).rejects.toThrow(/404/);
    expect((await client.threads.search()).map((t) => t.thread_id)).toEqual([a.thread_id]);
  });

  it("streams values, messages-tuple and updates, metadata first", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const events = await agentTurn(client, thread.thread_id, 'get_weather {"city": "Oslo"}');
    expect(events[0]?.event).toBe("metadata");
    expect(events[0]?.data).toMatchObject({ run_id: expect.any(String) });
    const names = new Set(events.map((e) => e.event));
    expect(names).toEqual(new Set(["metadata", "values", "messages", "updates"]));
    const last = events.filter((e) => e.event === "values").at(-1);
    expect(texts(last?.data)).toEqual([
      'get_weather {"city": "Oslo"}',
      "",
      "Oslo: sunny",
      "Tool said: Oslo: sunny",
    ]);
    const tuple = events.find((e) => e.event === "messages")?.data as [
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    expect(tuple[0]).toMatchObject({ type: expect.stringMatching(/^(ai|AIMessageChunk|tool)$/) });
    expect(tuple[1]).toMatchObject({ langgraph_node: expect.any(String) });
    const state = await client.threads.getState(thread.thread_id);
    expect(texts(state.values)).toHaveLength(4);
    expect(state.next).toEqual([]);
    // The history reads back ChatStudio's streamed chunks (what useStream's branching needs).
    const history = await client.threads.getHistory(thread.thread_id, { limit: 20 });
    expect(texts(history[0]?.values)).toHaveLength(4);
  });

  it("streams checkpoints as the SDK's snapshots, and debug with checkpoint ids", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const events = await collect(
      client.runs.stream(thread.thread_id, "echo", {
        input: say("snap"),
        streamMode: ["checkpoints", "debug"],
      }),
    );
    const snapshots = events.filter((e) => e.event === "checkpoints");
    expect(snapshots.length).toBeGreaterThan(1);
    const last = snapshots.at(-1)?.data as Record<string, unknown>;
    expect(Object.keys(last).sort()).toEqual([
      "config",
      "metadata",
      "next",
      "parent_config",
      "tasks",
      "values",
    ]);
    expect(texts(last.values)).toEqual(["snap", "You said: snap"]);
    const debug = events.find((e) => e.event === "debug")?.data as {
      type: string;
      payload: { checkpoint: { thread_id: string }; config: { configurable: object } };
    };
    expect(debug.type).toBe("checkpoint");
    expect(debug.payload.checkpoint.thread_id).toBe(thread.thread_id);
    expect(Object.keys(debug.payload.config.configurable).some((k) => k.startsWith("__"))).toBe(
      false,
    );
  });

  it("pauses at an interrupt (values, state tasks, status) and resumes with a command", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const paused = await approvalUntilInterrupt(client, thread.thread_id);
    expect(paused.find((e) => e.event === "custom")?.data).toEqual({ progress: "drafting" });
    const interruptEvent = paused.filter((e) => e.event === "values").at(-1)?.data as Record<
      string,
      unknown
    >;
    expect(interruptEvent.__interrupt__).toEqual([
      expect.objectContaining({ value: { question: "Send the draft?" } }),
    ]);
    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["approve"]);
    expect(state.tasks[0]?.interrupts).toEqual([
      expect.objectContaining({ value: { question: "Send the draft?" } }),
    ]);
    const listed = await client.threads.get(thread.thread_id);
    expect(listed.status).toBe("interrupted");
    expect(Object.values(listed.interrupts).flat()).toHaveLength(1);

    const resumed = await approvalResume(client, thread.thread_id);
    expect(texts(resumed.filter((e) => e.event === "values").at(-1)?.data)).toEqual([
      "write to Ada",
      "Draft for: write to Ada",
      "Decision: yes",
    ]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("keeps history and forks from an earlier checkpoint (edit a message)", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    await agentTurn(client, thread.thread_id, "first", "echo");
    await agentTurn(client, thread.thread_id, "second", "echo");
    const history = await client.threads.getHistory(thread.thread_id, { limit: 50 });
    expect(texts(history[0]?.values)).toEqual([
      "first",
      "You said: first",
      "second",
      "You said: second",
    ]);
    // The checkpoint before "second" was added: its values end with the first answer.
    const before = history.find(
      (s) => texts(s.values).join("|") === "first|You said: first" && s.next.length === 0,
    );
    expect(before?.checkpoint?.checkpoint_id).toBeTruthy();
    await collect(
      client.runs.stream(thread.thread_id, "echo", {
        input: say("second, edited"),
        checkpoint: before!.checkpoint,
        streamMode: ["values"],
      }),
    );
    const state = await client.threads.getState(thread.thread_id);
    expect(texts(state.values)).toEqual([
      "first",
      "You said: first",
      "second, edited",
      "You said: second, edited",
    ]);
    // The old branch is still in the history.
    const after = await client.threads.getHistory(thread.thread_id, { limit: 50 });
    expect(after.some((s) => texts(s.values).includes("You said: second"))).toBe(true);
  });

  /** Starts a run on the slow graph without reading its stream (the response is returned). */
  async function startSlow(
    handler: (request: Request) => Promise<Response>,
    threadId: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ response: Response; runId: string }> {
    const response = await handler(
      new Request(`http://agent.test/threads/${threadId}/runs/stream`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ assistant_id: "slow", input: say("wait"), ...extra }),
      }),
    );
    const runId = /runs\/([^/]+)$/.exec(response.headers.get("Content-Location") ?? "")?.[1];
    if (!runId) throw new Error(`no run id in ${response.status} ${await response.text()}`);
    return { response, runId };
  }

  /** How the run ended, once it has: a join's stream ends when the run does. */
  async function runEnded(client: ReturnType<typeof sdkClient>, threadId: string, runId: string) {
    await collect(client.runs.joinStream(threadId, runId));
    return (await client.runs.get(threadId, runId)).status;
  }

  /** A server whose "slow" graph waits at gates the test opens (or for the run's cancel). */
  function gatedServer() {
    const slow = gatedGraph();
    const { handler } = studioServer(emulator.handle, {
      graphs: { slow: slow.graph, echo: echoGraph() },
    });
    return { handler, slow };
  }

  it("answers 409 to a second run while one is active, and cancels a run", async () => {
    const { handler } = gatedServer();
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const { response, runId } = await startSlow(handler, thread.thread_id);
    expect((await client.threads.get(thread.thread_id)).status).toBe("busy");
    await expect(
      collect(client.runs.stream(thread.thread_id, "echo", { input: say("again") })),
    ).rejects.toThrow(/409/);
    await client.runs.cancel(thread.thread_id, runId, true);
    expect((await client.runs.get(thread.thread_id, runId)).status).toBe("interrupted");
    await response.body?.cancel();
    expect(texts((await client.threads.getState(thread.thread_id)).values)).not.toContain(
      "Slowly: wait",
    );
    // The thread takes runs again.
    const next = await agentTurn(client, thread.thread_id, "after cancel", "echo");
    expect(texts(next.filter((e) => e.event === "values").at(-1)?.data).at(-1)).toBe(
      "You said: after cancel",
    );
  });

  it("interrupts the active run for multitask_strategy interrupt", async () => {
    const { handler } = gatedServer();
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const first = await startSlow(handler, thread.thread_id);
    const second = await collect(
      client.runs.stream(thread.thread_id, "echo", {
        input: say("instead"),
        multitaskStrategy: "interrupt",
      }),
    );
    expect(await runEnded(client, thread.thread_id, first.runId)).toBe("interrupted");
    await first.response.body?.cancel();
    expect(texts(second.at(-1)?.data).at(-1)).toBe("You said: instead");
  });

  it("cancels the run when the client goes away, or lets it finish with on_disconnect continue", async () => {
    const { handler, slow } = gatedServer();
    const client = sdkClient(handler);
    const a = await client.threads.create();
    const gone = await startSlow(handler, a.thread_id);
    await gone.response.body?.cancel();
    expect(await runEnded(client, a.thread_id, gone.runId)).toBe("interrupted");
    expect(texts((await client.threads.getState(a.thread_id)).values)).not.toContain(
      "Slowly: wait",
    );

    const b = await client.threads.create();
    const keptEntry = slow.nextEntry();
    const kept = await startSlow(handler, b.thread_id, { on_disconnect: "continue" });
    await kept.response.body?.cancel();
    // The reader is gone and the run goes on: let its node finish.
    slow.open(await keptEntry);
    expect(await runEnded(client, b.thread_id, kept.runId)).toBe("success");
    expect(texts((await client.threads.getState(b.thread_id)).values).at(-1)).toBe("Slowly: wait");
  });

  it("delivers every event to a client that reads only after the run ended", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const response = await handler(
      new Request(`http://agent.test/threads/${thread.thread_id}/runs/stream`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ assistant_id: "echo", input: say("late reader") }),
      }),
    );
    const runId = /runs\/([^/]+)$/.exec(response.headers.get("Content-Location") ?? "")?.[1];
    expect(await runEnded(client, thread.thread_id, runId!)).toBe("success");
    const text = await response.text();
    expect(text.match(/^event: (.+)$/gm)).toEqual([
      "event: metadata",
      "event: values",
      "event: values",
    ]);
    expect(text).toContain("You said: late reader");
  });

  it("joins a resumable run from Last-Event-ID", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const events = await collect(
      client.runs.stream(thread.thread_id, "agent", {
        input: say("resume me"),
        streamMode: ["values"],
        streamResumable: true,
      }),
    );
    const runId = (events[0]!.data as { run_id: string }).run_id;
    const all = await collect(
      client.runs.joinStream(thread.thread_id, runId, { lastEventId: "-1" }),
    );
    expect(all.map((e) => e.event)).toEqual(events.map((e) => e.event));
    const tail = await collect(
      client.runs.joinStream(thread.thread_id, runId, { lastEventId: "1" }),
    );
    expect(tail.map((e) => e.event)).toEqual(events.slice(2).map((e) => e.event));
  });

  it("keeps users apart: another user's thread is a 404 everywhere, and search does not list it", async () => {
    const { handler } = studioServer(emulator.handle, {
      auth: (request) => request.headers.get("x-user"),
    });
    const ada = sdkClient(handler, { "x-user": "ada" });
    const bob = sdkClient(handler, { "x-user": "bob" });
    const anonymous = sdkClient(handler);
    const thread = await ada.threads.create({ metadata: { topic: "secret" } });
    await agentTurn(ada, thread.thread_id, "mine");
    expect((await ada.threads.get(thread.thread_id)).metadata).toMatchObject({ owner: "ada" });
    await expect(anonymous.threads.search()).rejects.toThrow(/401/);
    await expect(bob.threads.get(thread.thread_id)).rejects.toThrow(/404/);
    await expect(bob.threads.getState(thread.thread_id)).rejects.toThrow(/404/);
    await expect(bob.threads.getHistory(thread.thread_id)).rejects.toThrow(/404/);
    await expect(bob.threads.update(thread.thread_id, { metadata: { x: 1 } })).rejects.toThrow(
      /404/,
    );
    await expect(bob.threads.delete(thread.thread_id)).rejects.toThrow(/404/);
    await expect(agentTurn(bob, thread.thread_id, "theirs")).rejects.toThrow(/404/);
    expect(await bob.threads.search({ metadata: { topic: "secret" } })).toEqual([]);
    expect((await ada.threads.search()).map((t) => t.thread_id)).toEqual([thread.thread_id]);

    // The graph learns who is calling from the server, not from the request's config.
    const spoofed = await collect(
      ada.runs.stream(thread.thread_id, "whoami", {
        input: say("who am I?"),
        config: { configurable: { langgraph_auth_user_id: "bob" } },
      }),
    );
    expect(texts(spoofed.at(-1)?.data).at(-1)).toBe("You are ada");
  });

  it("lets a second handler (another process) list and continue the thread", async () => {
    const first = sdkClient(studioServer(emulator.handle).handler);
    const thread = await first.threads.create();
    await approvalUntilInterrupt(first, thread.thread_id);
    const second = sdkClient(studioServer(emulator.handle).handler);
    const listed = await second.threads.search();
    expect(listed.map((t) => [t.thread_id, t.status])).toEqual([[thread.thread_id, "interrupted"]]);
    await approvalResume(second, thread.thread_id);
    const state = await second.threads.getState(thread.thread_id);
    expect(texts(state.values).at(-1)).toBe("Decision: yes");
  });

  it("gives the graphs the store passed in (a StudioStore, seen by another process)", async () => {
    const { baseUrl, proxyUrl, apiKey } = emulator.handle;
    const client = new StudioClient({ baseUrl, proxyUrl, apiKey });
    const handler = createAgentServer({
      graphs: { memo: memoGraph() },
      checkpointer: new StudioCheckpointSaver({ client, datasetId: "chat-server" }),
      store: new StudioStore({ client }),
      client,
    });
    const sdk = sdkClient(handler);
    const thread = await sdk.threads.create();
    await agentTurn(sdk, thread.thread_id, "one", "memo");
    const second = await agentTurn(sdk, thread.thread_id, "two", "memo");
    expect(texts(second.filter((e) => e.event === "values").at(-1)?.data).at(-1)).toBe(
      "I remember 2",
    );
    const elsewhere = new StudioStore({ client: new StudioClient({ baseUrl, proxyUrl, apiKey }) });
    expect((await elsewhere.search(["memos"])).map((item) => item.value.text).sort()).toEqual([
      "one",
      "two",
    ]);
  });

  it("answers unknown routes with the API's 404 shape", async () => {
    const { handler } = studioServer(emulator.handle);
    const response = await handler(
      new Request("http://agent.test/crons/search", { method: "POST" }),
    );
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: "Not Found",
      message: "no route matches POST /crons/search; check the method and path",
    });
    // A thread id that is not valid percent-encoding is a thread that does not exist.
    const odd = await handler(new Request("http://agent.test/threads/%E0%A4%A"));
    expect(odd.status).toBe(404);
  });
});
