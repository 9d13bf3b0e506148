/**
 * A chat page that reloads while the model answers, driven through the SDK's `Client`: the run
 * goes on at the server (`on_disconnect: "continue"`, as `useStream` sends with
 * `reconnectOnMount`), and the reloaded page must reach the answer whichever moment it comes
 * back at: before it learned the run's id, after the run ended, or while the thread's snapshot
 * is being saved.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { createAgentServer } from "../../../src/server";
import { useEmulator } from "../../helpers/emulator";
import { isSettled } from "../../helpers/gate";
import { gatedGraph } from "./gated-graph";
import { sdkClient, studioServer } from "./harness";
import { collect, say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

/** What `useStream` sends for a submit with `reconnectOnMount`. */
const RESUMABLE = { on_disconnect: "continue", stream_resumable: true, stream_mode: ["values"] };

/** Posts a run on the slow graph and drops its response unread, as a reload does. */
async function startAndLeave(
  handler: (request: Request) => Promise<Response>,
  threadId: string,
  text: string,
): Promise<string> {
  const response = await handler(
    new Request(`http://agent.test/threads/${threadId}/runs/stream`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ assistant_id: "slow", input: say(text), ...RESUMABLE }),
    }),
  );
  const runId = /runs\/([^/]+)$/.exec(response.headers.get("Content-Location") ?? "")?.[1];
  await response.body?.cancel();
  if (!runId) throw new Error(`no run id in a ${response.status} response`);
  return runId;
}

describe("a page that reloads during a run", () => {
  it("finds the thread's running run when it never learned the run id, and joins it", async () => {
    const slow = gatedGraph();
    const { handler } = studioServer(emulator.handle, { graphs: { slow: slow.graph } });
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const runId = await startAndLeave(handler, thread.thread_id, "are you there?");
    await slow.entered(0);

    // The reloaded page: no run id kept, so it asks the server.
    const running = await client.runs.list(thread.thread_id, { status: "running", limit: 1 });
    expect(running.map((r) => r.run_id)).toEqual([runId]);
    const joined = collect(client.runs.joinStream(thread.thread_id, runId, { lastEventId: "-1" }));
    slow.open(0);
    const events = await joined;
    expect(events[0]?.event).toBe("metadata");
    expect(texts(events.at(-1)?.data).at(-1)).toBe("Slowly: are you there?");

    // Once it ended, the run is listed with its status, and no longer as running.
    expect(await client.runs.list(thread.thread_id, { status: "running" })).toEqual([]);
    const all = await client.runs.list(thread.thread_id);
    expect(all.map((r) => [r.run_id, r.status])).toEqual([[runId, "success"]]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("replays and ends a join that comes just after the run ended", async () => {
    const slow = gatedGraph();
    const { handler } = studioServer(emulator.handle, { graphs: { slow: slow.graph } });
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const runId = await startAndLeave(handler, thread.thread_id, "late");
    // Another tab's join ends when the run does: the join below comes after the end.
    const watching = collect(client.runs.joinStream(thread.thread_id, runId));
    slow.open(0);
    await watching;
    expect((await client.runs.get(thread.thread_id, runId)).status).toBe("success");

    const events = await collect(
      client.runs.joinStream(thread.thread_id, runId, { lastEventId: "-1" }),
    );
    expect(events.map((e) => e.event)).toEqual(["metadata", "values", "values"]);
    expect(texts(events.at(-1)?.data).at(-1)).toBe("Slowly: late");
  });

  it("keeps the run open while the thread's snapshot is saved: a join ends on the saved thread", async () => {
    // The thread list's saves (the new snapshot appended to the chat thread) wait at a gate.
    const released = gatedGraph();
    released.openAll();
    let gate: Promise<void> | undefined;
    let saves = "";
    let open = () => {};
    let held = () => {};
    const heldSave = new Promise<void>((resolve) => {
      held = resolve;
    });
    const studio = new StudioClient({
      baseUrl: emulator.handle.baseUrl,
      proxyUrl: emulator.handle.proxyUrl,
      apiKey: emulator.handle.apiKey,
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        const method = (init?.method ??
          (input instanceof Request ? input.method : "GET")) as string;
        if (gate && method.toUpperCase() === "POST" && String(input).endsWith(saves)) {
          held();
          await gate;
        }
        return fetch(input, init);
      },
    } as ConstructorParameters<typeof StudioClient>[0]);
    const handler = createAgentServer({
      graphs: { slow: released.graph },
      checkpointer: new StudioCheckpointSaver({ client: studio, datasetId: "chat-server" }),
      client: studio,
    });
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    saves = `/threads/${thread.thread_id}/messages`;
    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const runId = await startAndLeave(handler, thread.thread_id, "saving");
    await heldSave;

    // The graph is done, the snapshot not yet saved: the run and the thread still say so.
    expect((await client.runs.get(thread.thread_id, runId)).status).toBe("running");
    expect((await client.threads.get(thread.thread_id)).status).toBe("busy");
    const joined = collect(client.runs.joinStream(thread.thread_id, runId, { lastEventId: "-1" }));
    expect(await isSettled(joined)).toBe(false);

    gate = undefined;
    open();
    const events = await joined;
    expect(texts(events.at(-1)?.data).at(-1)).toBe("Slowly: saving");
    // When the join ends, the thread is saved: what a page reads next is the answer, idle.
    const view = await client.threads.get(thread.thread_id);
    expect(view.status).toBe("idle");
    expect(view).toMatchObject({ preview: "Slowly: saving" });
    expect((await client.runs.get(thread.thread_id, runId)).status).toBe("success");
  });

  it("keeps another user's runs out of the list", async () => {
    const { handler } = studioServer(emulator.handle, {
      auth: (request) => request.headers.get("x-user"),
    });
    const ada = sdkClient(handler, { "x-user": "ada" });
    const bob = sdkClient(handler, { "x-user": "bob" });
    const thread = await ada.threads.create();
    await collect(ada.runs.stream(thread.thread_id, "echo", { input: say("mine") }));
    expect(await ada.runs.list(thread.thread_id)).toHaveLength(1);
    await expect(bob.runs.list(thread.thread_id)).rejects.toThrow(/404/);
  });
});
