/**
 * Runs that cannot succeed leave the thread in a state the user can act on: an input over
 * `maxInputBytes` is refused before the run (a 413 naming the limit) and the next turn works; a
 * run the checkpointer fails (its reads and writes both) lists the thread `error`, not `idle`.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { createAgentServer, DEFAULT_MAX_INPUT_BYTES } from "../../../src/server";
import { useEmulator } from "../../helpers/emulator";
import { echoGraph } from "./graphs";
import { type Handler, postRun, sdkClient } from "./harness";
import { collect, say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function studioClient(): StudioClient {
  return new StudioClient({
    baseUrl: emulator.handle.baseUrl,
    proxyUrl: emulator.handle.proxyUrl,
    apiKey: emulator.handle.apiKey,
    maxRetries: 0,
  } as ConstructorParameters<typeof StudioClient>[0]);
}

/** A saver whose service stops answering for checkpoints once `failing` is set. */
class FailingSaver extends StudioCheckpointSaver {
  failing = false;

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    if (this.failing) throw new Error("checkpoint read failed: service unavailable");
    return super.getTuple(config);
  }

  override async put(...args: Parameters<StudioCheckpointSaver["put"]>) {
    if (this.failing) throw new Error("checkpoint write failed: service unavailable");
    return super.put(...args);
  }
}

async function turn(handler: Handler, threadId: string, text: string) {
  return handler(postRun(threadId, { assistant_id: "echo", input: say(text) }));
}

describe("createAgentServer: an input over maxInputBytes", () => {
  it("is refused before the run with a 413 naming the limit; the next turn works", async () => {
    const client = studioClient();
    const handler = createAgentServer({
      graphs: { echo: echoGraph() },
      checkpointer: new StudioCheckpointSaver({ client, datasetId: "chat-server" }),
      client,
      maxInputBytes: 2_000,
    });
    const sdk = sdkClient(handler);
    const thread = await sdk.threads.create();
    await collect(sdk.runs.stream(thread.thread_id, "echo", { input: say("first") }));

    const refused = await turn(handler, thread.thread_id, "x".repeat(3_000));
    expect(refused.status).toBe(413);
    expect(await refused.json()).toEqual({
      error: "Payload Too Large",
      message:
        "the run's input is 3051 bytes, over the server's maxInputBytes (2000); send a " +
        "shorter message",
    });

    const next = await collect(sdk.runs.stream(thread.thread_id, "echo", { input: say("next") }));
    expect(next.some((e) => e.event === "error")).toBe(false);
    const state = await sdk.threads.getState(thread.thread_id);
    expect(texts(state.values)).toEqual(["first", "You said: first", "next", "You said: next"]);
    expect((await sdk.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("defaults to 256 KiB", async () => {
    const client = studioClient();
    const handler = createAgentServer({
      graphs: { echo: echoGraph() },
      checkpointer: new StudioCheckpointSaver({ client, datasetId: "chat-server" }),
      client,
    });
    const thread = await sdkClient(handler).threads.create();
    expect(DEFAULT_MAX_INPUT_BYTES).toBe(256 * 1024);
    const refused = await turn(handler, thread.thread_id, "x".repeat(DEFAULT_MAX_INPUT_BYTES));
    expect(refused.status).toBe(413);
    expect(((await refused.json()) as { message: string }).message).toContain(
      `maxInputBytes (${DEFAULT_MAX_INPUT_BYTES})`,
    );
  });
});

describe("createAgentServer: a run the checkpointer fails", () => {
  it("lists the thread as error, not idle, and reports the cause", async () => {
    const client = studioClient();
    const saver = new FailingSaver({ client, datasetId: "chat-server" });
    const reported: unknown[] = [];
    const handler = createAgentServer({
      graphs: { echo: echoGraph() },
      checkpointer: saver,
      client,
      onError: (error) => {
        reported.push(error);
      },
    });
    const sdk = sdkClient(handler);
    const thread = await sdk.threads.create();
    saver.failing = true;
    const events = await collect(sdk.runs.stream(thread.thread_id, "echo", { input: say("hi") }));
    expect(events.filter((e) => e.event === "error").map((e) => e.data)).toEqual([
      expect.objectContaining({ code: "run_failed" }),
    ]);
    expect((await sdk.threads.get(thread.thread_id)).status).toBe("error");
    expect(reported.map(String)).toContain("Error: checkpoint read failed: service unavailable");
  });
});
