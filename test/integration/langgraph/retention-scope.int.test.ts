/**
 * Retention reaches the saver's own threads unless told otherwise: two apps on one account, each
 * with its saver (one in a dataset of its own, one in none), and one app's `deleteThreads` or
 * `sweep` must leave the other's conversations whole. `scope: "account"` is the explicit way to
 * reach every checkpoint thread.
 */
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import type { StudioCheckpointSaver } from "../../../src/langgraph";
import { useSaverEmulator } from "./saver-emulator";

const { saver } = useSaverEmulator();

/** One checkpoint in `threadId`, as a graph's first step stores it. */
async function write(checkpointer: StudioCheckpointSaver, threadId: string): Promise<void> {
  const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
  await checkpointer.put(config, emptyCheckpoint(), { source: "input", step: -1, parents: {} }, {});
}

async function exists(checkpointer: StudioCheckpointSaver, threadId: string): Promise<boolean> {
  return (await checkpointer.getTuple({ configurable: { thread_id: threadId } })) !== undefined;
}

/** A cut-off after every write: every thread is older than it. */
const future = () => new Date(Date.now() + 60_000);

describe("retention scope", () => {
  it("deleteThreads of a saver without a dataset keeps another app's threads (its dataset)", async () => {
    const batchJob = saver();
    const chatServer = saver({ datasetId: "chat-server" });
    await write(batchJob, "job-1");
    await write(chatServer, "conversation-1");

    expect(await batchJob.deleteThreads({ olderThan: future() })).toEqual(["job-1"]);
    expect(await exists(saver({ datasetId: "chat-server" }), "conversation-1")).toBe(true);
    expect(await exists(saver(), "job-1")).toBe(false);
  });

  it("deleteThreads and sweep of a saver in a dataset keep the threads outside it", async () => {
    const chatServer = saver({ datasetId: "chat-server", ttl: { defaultTTL: 1 } });
    const otherApp = saver({ datasetId: "other-app" });
    const batchJob = saver();
    await write(chatServer, "conversation-1");
    await write(otherApp, "other-1");
    await write(batchJob, "job-1");

    expect(await chatServer.deleteThreads({ olderThan: future(), dryRun: true })).toEqual([
      "conversation-1",
    ]);
    expect(await chatServer.sweep({ dryRun: true })).toEqual([]);
    expect(await chatServer.deleteThreads({ olderThan: future() })).toEqual(["conversation-1"]);
    expect(await exists(saver({ datasetId: "other-app" }), "other-1")).toBe(true);
    expect(await exists(saver(), "job-1")).toBe(true);
  });

  it('scope: "account" reaches every checkpoint thread of the account', async () => {
    const batchJob = saver();
    await write(batchJob, "job-1");
    await write(saver({ datasetId: "chat-server" }), "conversation-1");
    await write(saver({ datasetId: "other-app" }), "other-1");

    const listed = await batchJob.deleteThreads({
      olderThan: future(),
      dryRun: true,
      scope: "account",
    });
    expect(listed.sort()).toEqual(["conversation-1", "job-1", "other-1"]);
    const deleted = await batchJob.deleteThreads({ olderThan: future(), scope: "account" });
    expect(deleted.sort()).toEqual(["conversation-1", "job-1", "other-1"]);
    expect(await exists(saver({ datasetId: "chat-server" }), "conversation-1")).toBe(false);
  });

  it("an unknown scope is refused, naming the two there are", async () => {
    await expect(saver().deleteThreads({ maxAgeMs: 0, scope: "all" as never })).rejects.toThrow(
      'Invalid scope: must be "saver" or "account" (got "all")',
    );
  });
});
