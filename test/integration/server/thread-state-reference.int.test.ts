/**
 * `threads.updateState` and `threads.getState` at a checkpoint answer as
 * `@langchain/langgraph-api`'s `createEmbedServer` with `MemorySaver` does (ids and times left
 * out): the same script through the SDK's `Client` against both.
 */
import type { Client } from "@langchain/langgraph-sdk";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { useEmulator } from "../../helpers/emulator";
import { referenceServer, sdkClient, studioServer } from "./harness";
import { approvalUntilInterrupt, comparable } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function both(): Client[] {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  const studio = new StudioClient({ baseUrl, proxyUrl, apiKey });
  return [sdkClient(studioServer(emulator.handle).handler), sdkClient(referenceServer(studio))];
}

/** Pause on the interrupt, write the decision as the paused node, read the state then and now. */
async function script(client: Client): Promise<unknown[]> {
  const { thread_id } = await client.threads.create({ graphId: "approval" });
  await approvalUntilInterrupt(client, thread_id);
  const paused = await client.threads.getState(thread_id);
  const written = await client.threads.updateState(thread_id, {
    values: { decision: "no" },
    asNode: "approve",
  });
  const now = await client.threads.getState(thread_id);
  const then = await client.threads.getState(thread_id, paused.checkpoint.checkpoint_id!);
  const byConfig = await client.threads.getState(thread_id, paused.checkpoint);
  return [written, now, then, byConfig];
}

describe("thread state matches @langchain/langgraph-api's embed server", () => {
  it("updateState as a node, then the state now and at the earlier checkpoint", async () => {
    const [ours, reference] = both();
    const mine = await script(ours!);
    const theirs = await script(reference!);
    const events = (states: unknown[]) =>
      comparable(states.map((data, i) => ({ event: String(i), data })));
    expect(events(mine)).toEqual(events(theirs));
  });
});
