/**
 * The server's conversations are out of reach of another app's retention on the same account:
 * the server refuses a `StudioCheckpointSaver` without a `datasetId` of its own, and with one,
 * another app's `deleteThreads` leaves every conversation readable.
 */
import { MemorySaver } from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioValidationError } from "../../../src/errors";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { createAgentServer } from "../../../src/server";
import { useEmulator } from "../../helpers/emulator";
import { echoGraph } from "./graphs";
import { sdkClient } from "./harness";
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
  } as ConstructorParameters<typeof StudioClient>[0]);
}

describe("createAgentServer: retention reach", () => {
  it("refuses a StudioCheckpointSaver without a datasetId, naming it", () => {
    const client = studioClient();
    const build = () =>
      createAgentServer({
        graphs: { echo: echoGraph() },
        checkpointer: new StudioCheckpointSaver({ client }),
        client,
      });
    expect(build).toThrow(StudioValidationError);
    expect(build).toThrow(
      'Invalid checkpointer.datasetId: is required for the server: new StudioCheckpointSaver({ client, datasetId: "chat-server" }) keeps its conversations out of reach of another app\'s retention (docs/chat-ui.md)',
    );
  });

  it("takes another LangGraph checkpointer as it is", () => {
    const client = studioClient();
    expect(() =>
      createAgentServer({ graphs: { echo: echoGraph() }, checkpointer: new MemorySaver(), client }),
    ).not.toThrow();
  });

  it("keeps its conversations readable after another app's deleteThreads", async () => {
    const client = studioClient();
    const handler = createAgentServer({
      graphs: { echo: echoGraph() },
      checkpointer: new StudioCheckpointSaver({ client, datasetId: "chat-server" }),
      client,
    });
    const sdk = sdkClient(handler);
    const thread = await sdk.threads.create();
    await collect(sdk.runs.stream(thread.thread_id, "echo", { input: say("keep me") }));

    const otherApp = new StudioCheckpointSaver({ client: studioClient(), datasetId: "reports" });
    await otherApp.put(
      { configurable: { thread_id: "report-1", checkpoint_ns: "" } },
      {
        v: 4,
        id: "1",
        ts: new Date().toISOString(),
        channel_values: {},
        channel_versions: {},
        versions_seen: {},
      },
      { source: "input", step: -1, parents: {} },
      {},
    );
    // A cut-off after every write: every thread is older than it, the server's too.
    const olderThan = new Date(Date.now() + 60_000);
    expect(await otherApp.deleteThreads({ olderThan, dryRun: true })).toEqual(["report-1"]);
    expect(await otherApp.deleteThreads({ olderThan })).toEqual(["report-1"]);

    const state = await sdk.threads.getState(thread.thread_id);
    expect(texts(state.values)).toEqual(["keep me", "You said: keep me"]);
  });
});
