/**
 * An edit or a regenerate names the checkpoint to start from; under `keep: "latest"` an older one
 * is already deleted. Such a run is refused (409 naming the checkpoint) before it starts, and the
 * conversation is left whole, where LangGraph alone would start it from an empty state and its
 * save would delete the earlier turns. Driven through the SDK's `Client` against the emulator.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { createAgentServer } from "../../../src/server";
import { useEmulator } from "../../helpers/emulator";
import { deferred, type Gate, gate } from "../../helpers/gate";
import { echoGraph } from "./graphs";
import { postRun, sdkClient } from "./harness";
import { collect, say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function setUp(keep: "all" | "latest") {
  const client = new StudioClient({
    baseUrl: emulator.handle.baseUrl,
    proxyUrl: emulator.handle.proxyUrl,
    apiKey: emulator.handle.apiKey,
  } as ConstructorParameters<typeof StudioClient>[0]);
  const handler = createAgentServer({
    graphs: { echo: echoGraph() },
    checkpointer: new StudioCheckpointSaver({ client, keep, datasetId: "chat-server" }),
    client,
  });
  return { handler, sdk: sdkClient(handler) };
}

/** Two turns; returns the thread and the checkpoint the first turn ended on. */
async function twoTurns(sdk: ReturnType<typeof sdkClient>) {
  const thread = await sdk.threads.create();
  await collect(sdk.runs.stream(thread.thread_id, "echo", { input: say("one") }));
  const first = await sdk.threads.getState(thread.thread_id);
  await collect(sdk.runs.stream(thread.thread_id, "echo", { input: say("two") }));
  const checkpointId = first.checkpoint?.checkpoint_id;
  if (!checkpointId) throw new Error("the first turn has no checkpoint id");
  return { threadId: thread.thread_id, checkpointId };
}

const WHOLE = ["one", "You said: one", "two", "You said: two"];

/** A saver whose next `put` waits at `held` once armed, saying so through `waiting`. */
class HeldSaver extends StudioCheckpointSaver {
  held: Gate | undefined;
  readonly waiting = deferred();

  override async put(...args: Parameters<StudioCheckpointSaver["put"]>) {
    const held = this.held;
    if (held) {
      this.held = undefined;
      this.waiting.resolve();
      await held.wait;
    }
    return super.put(...args);
  }
}

describe('createAgentServer: a run from a checkpoint keep: "latest" deleted', () => {
  it("is refused with a 409 naming the checkpoint, and the conversation stays whole", async () => {
    const { handler, sdk } = setUp("latest");
    const { threadId, checkpointId } = await twoTurns(sdk);

    const edit = await handler(
      postRun(threadId, { assistant_id: "echo", input: say("uno"), checkpoint_id: checkpointId }),
    );
    expect(edit.status).toBe(409);
    expect(await edit.json()).toEqual({
      error: "Conflict",
      message:
        `Checkpoint ${checkpointId} of thread ${threadId} cannot be read (deleted, e.g. under ` +
        `keep: "latest"); run from the thread's latest state instead`,
    });
    // The SDK's edit (a checkpoint in the run's config) is refused the same way.
    await expect(
      collect(
        sdk.runs.stream(threadId, "echo", {
          input: say("uno"),
          checkpoint: { checkpoint_id: checkpointId, checkpoint_ns: "", checkpoint_map: {} },
        }),
      ),
    ).rejects.toThrow(/409/);

    const state = await sdk.threads.getState(threadId);
    expect(texts(state.values)).toEqual(WHOLE);
    expect((await sdk.threads.get(threadId)).status).toBe("idle");
  });

  it('still runs from a checkpoint that is kept (keep: "all")', async () => {
    const { sdk } = setUp("all");
    const { threadId, checkpointId } = await twoTurns(sdk);
    const events = await collect(
      sdk.runs.stream(threadId, "echo", { input: say("uno"), checkpointId }),
    );
    expect(events.some((e) => e.event === "error")).toBe(false);
    const state = await sdk.threads.getState(threadId);
    expect(texts(state.values)).toEqual(["one", "You said: one", "uno", "You said: uno"]);
  });

  it("ends a queued edit whose checkpoint a run ahead of it deleted, before it starts", async () => {
    const client = new StudioClient({
      baseUrl: emulator.handle.baseUrl,
      proxyUrl: emulator.handle.proxyUrl,
      apiKey: emulator.handle.apiKey,
    } as ConstructorParameters<typeof StudioClient>[0]);
    const saver = new HeldSaver({ client, keep: "latest", datasetId: "chat-server" });
    const sdk = sdkClient(
      createAgentServer({ graphs: { echo: echoGraph() }, checkpointer: saver, client }),
    );
    const thread = await sdk.threads.create();
    await collect(sdk.runs.stream(thread.thread_id, "echo", { input: say("one") }));
    const first = (await sdk.threads.getState(thread.thread_id)).checkpoint?.checkpoint_id;
    if (!first) throw new Error("the first turn has no checkpoint id");

    // The next turn's first write waits: the first turn's checkpoint is still there.
    const held = gate();
    saver.held = held;
    const next = collect(sdk.runs.stream(thread.thread_id, "echo", { input: say("two") }));
    await saver.waiting.promise;
    const edit = collect(
      sdk.runs.stream(thread.thread_id, "echo", {
        input: say("uno"),
        checkpointId: first,
        multitaskStrategy: "enqueue",
      }),
    );
    // The edit is admitted (its checkpoint was there) before the turn ahead goes on.
    const runs = () => sdk.runs.list(thread.thread_id);
    while ((await runs()).length < 2) await Promise.resolve();
    held.open();

    await next;
    const events = await edit;
    expect(events.filter((e) => e.event === "error").map((e) => e.data)).toEqual([
      {
        error: "RunError",
        message:
          `Checkpoint ${first} of thread ${thread.thread_id} cannot be read (deleted, e.g. ` +
          `under keep: "latest"); run from the thread's latest state instead`,
        code: "checkpoint_not_found",
      },
    ]);
    const state = await sdk.threads.getState(thread.thread_id);
    expect(texts(state.values)).toEqual(WHOLE);
  });
});
