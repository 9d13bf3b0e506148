/**
 * A DELETE served by one server process while another runs the thread: the conversation stays
 * deleted. The running process's checkpointer refuses to recreate the checkpoint thread (its
 * run ends with the error), and its thread record is not recreated either.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioThreadDeletedError } from "../../../src/errors";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";
import { deferred } from "../../helpers/gate";
import { gatedGraph } from "./gated-graph";
import { postRun, sdkClient, studioServer } from "./harness";
import { say } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function addressed() {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  return new StudioClient({ baseUrl, proxyUrl, apiKey });
}

/** A saver that says when its first checkpoint is stored. */
class ObservedSaver extends StudioCheckpointSaver {
  readonly stored = deferred();
  override async put(...args: Parameters<StudioCheckpointSaver["put"]>) {
    const saved = await super.put(...args);
    this.stored.resolve();
    return saved;
  }
}

/** What a third process finds of the thread's checkpoints (the servers' dataset). */
async function storedCheckpoint(threadId: string) {
  const saver = new StudioCheckpointSaver({ client: addressed(), datasetId: "chat-server" });
  return saver.getTuple({ configurable: { thread_id: threadId } });
}

describe("createAgentServer: DELETE from another process during a run", () => {
  it("is not undone by the process running the thread", async () => {
    const counted = gatedGraph();
    const failures: unknown[] = [];
    const saver = new ObservedSaver({ client: addressed(), datasetId: "chat-server" });
    const running = studioServer(emulator.handle, {
      graphs: { counted: counted.graph },
      checkpointer: saver,
      onError: (error) => failures.push(error),
    });
    const other = sdkClient(studioServer(emulator.handle).handler);
    const { thread_id } = await sdkClient(running.handler).threads.create();
    const response = await running.handler(
      postRun(thread_id, {
        assistant_id: "counted",
        input: say("secret"),
        on_disconnect: "continue",
      }),
    );
    await counted.entered(0);
    // The run's input checkpoint is stored before the delete comes.
    await saver.stored.promise;
    expect(JSON.stringify(await storedCheckpoint(thread_id))).toContain("secret");
    await other.threads.delete(thread_id);
    counted.openAll();
    const events = await response.text();
    expect(events).toMatch(/event: error\ndata: \{[^\n]*"code":"thread_deleted"/);
    expect(failures).toEqual([expect.any(StudioThreadDeletedError)]);
    expect(await storedCheckpoint(thread_id)).toBeUndefined();
    await expect(other.threads.get(thread_id)).rejects.toThrow(/404/);
    await expect(sdkClient(running.handler).threads.get(thread_id)).rejects.toThrow(/404/);
    const listed = await sdkClient(running.handler).threads.search();
    expect(listed.map((thread) => thread.thread_id)).not.toContain(thread_id);
  });
});
