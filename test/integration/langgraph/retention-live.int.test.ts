/**
 * Retention beside live runs: `keep: "latest"` and `prune` never delete a pending write LangGraph
 * stored before its checkpoint (with durability "async", a task's writes can reach the thread
 * before the checkpoint they belong to), never a record newer than what they read, and never an
 * unresolved interrupt. Each is checked by what this saver and a second saver (another process's
 * view: its own client, nothing shared but the emulator) then read.
 */

import type { RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { Annotation, Command, END, interrupt, START, StateGraph } from "@langchain/langgraph";
import {
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
  INTERRUPT,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { ChatStudio } from "../../../src/chat_models";
import { StudioCheckpointSaver, type StudioCheckpointSaverFields } from "../../../src/langgraph";
import { useSaverEmulator } from "./saver-emulator";

const { newClient, saver } = useSaverEmulator();

/**
 * A saver whose checkpoint `put`s are slow (as over a slow link), so that LangGraph stores a
 * step's writes before the step's checkpoint, and which runs `beside` right after a write to
 * `channel` is stored: what another process does while this run goes on.
 */
class SlowPuts extends StudioCheckpointSaver {
  constructor(
    fields: StudioCheckpointSaverFields,
    readonly channel: string,
    readonly beside: () => Promise<unknown>,
  ) {
    super(fields);
  }
  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ) {
    await new Promise((resolve) => setTimeout(resolve, 60));
    return super.put(config, checkpoint, metadata, newVersions);
  }
  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string) {
    await super.putWrites(config, writes, taskId);
    if (writes.some(([channel]) => channel === this.channel)) await this.beside();
  }
}

const State = Annotation.Root({
  input: Annotation<string>(),
  decision: Annotation<string>(),
  side: Annotation<string>(),
});

/** `start`, then `ask` (waits for a person) and `side` (counts its runs) in parallel. */
function parallelGraph(
  checkpointer: StudioCheckpointSaver,
  runs: { side: number },
  fail?: { ask: boolean },
) {
  return new StateGraph(State)
    .addNode("start", (state) => ({ input: `${state.input}!` }))
    .addNode("ask", () => {
      if (fail?.ask) throw new Error("ask failed");
      return { decision: interrupt("approve?") as string };
    })
    .addNode("sideTask", () => {
      runs.side += 1;
      return { side: `ran ${runs.side}` };
    })
    .addEdge(START, "start")
    .addEdge("start", "ask")
    .addEdge("start", "sideTask")
    .addEdge("ask", END)
    .addEdge("sideTask", END)
    .compile({ checkpointer });
}

const interruptsOf = (state: { tasks: readonly { interrupts: readonly unknown[] }[] }) =>
  state.tasks.flatMap((task) => task.interrupts);

describe('keep: "latest" beside the writes LangGraph stores before their checkpoint', () => {
  it("keeps the interrupt visible here and in another process, and resumes once", async () => {
    const config = { configurable: { thread_id: "latest-ask" } };
    const runs = { side: 0 };
    const slow = new SlowPuts({ client: newClient(), keep: "latest" }, "none", async () => {});
    await parallelGraph(slow, runs).invoke({ input: "go" }, config);

    for (const view of [slow, saver({ keep: "latest" })]) {
      const state = await parallelGraph(view, runs).getState(config);
      expect(state.next).toEqual(["ask"]);
      expect(interruptsOf(state)).toEqual([expect.objectContaining({ value: "approve?" })]);
    }
    const resumed = await parallelGraph(saver({ keep: "latest" }), runs).invoke(
      new Command({ resume: "yes" }),
      config,
    );
    expect(resumed).toEqual({ input: "go!", decision: "yes", side: "ran 1" });
    expect(runs.side).toBe(1);
  });

  it("does not run again a task that succeeded beside a failing one", async () => {
    const config = { configurable: { thread_id: "latest-fail" } };
    const runs = { side: 0 };
    const fail = { ask: true };
    const slow = new SlowPuts({ client: newClient(), keep: "latest" }, "none", async () => {});
    await expect(parallelGraph(slow, runs, fail).invoke({ input: "go" }, config)).rejects.toThrow(
      "ask failed",
    );
    expect(runs.side).toBe(1);
    fail.ask = false;
    // Another process retries the failed step: only the failed task runs again.
    const other = parallelGraph(saver({ keep: "latest" }), runs, fail);
    await other.invoke(null, config);
    expect(runs.side).toBe(1);
    const resumed = await other.invoke(new Command({ resume: "ok" }), config);
    expect(resumed).toEqual({ input: "go!", decision: "ok", side: "ran 1" });
  });
});

describe("prune while the thread runs", () => {
  it("keeps the run's interrupt when another process prunes between its writes and its checkpoint", async () => {
    const config = { configurable: { thread_id: "pruned-live" } };
    const runs = { side: 0 };
    const pruner = saver();
    const pruned: number[] = [];
    const slow = new SlowPuts({ client: newClient() }, INTERRUPT, async () => {
      pruned.push((await pruner.prune(["pruned-live"], { keepLast: 1 })).checkpoints);
    });
    await parallelGraph(slow, runs).invoke({ input: "go" }, config);
    expect(pruned).toHaveLength(1);

    for (const view of [slow, saver()]) {
      const state = await parallelGraph(view, runs).getState(config);
      expect(state.next).toEqual(["ask"]);
      expect(interruptsOf(state)).toEqual([expect.objectContaining({ value: "approve?" })]);
    }
    const resumed = await parallelGraph(saver(), runs).invoke(
      new Command({ resume: "yes" }),
      config,
    );
    expect(resumed).toEqual({ input: "go!", decision: "yes", side: "ran 1" });
    expect(runs.side).toBe(1);
  });

  it("keeps a createAgent tool's interrupt when another process prunes mid-run", async () => {
    const config = { configurable: { thread_id: "agent-live" } };
    const pruner = saver();
    const confirm = tool(({ city }) => `${city}: ${interrupt(`book ${city}?`) as string}`, {
      name: "book_trip",
      description: "Books a trip once a person approves.",
      schema: z.object({ city: z.string() }),
    });
    const agent = (checkpointer: StudioCheckpointSaver) =>
      createAgent({
        model: new ChatStudio({ model: "studio/echo-small", client: newClient() }),
        tools: [confirm],
        checkpointer,
      });
    const slow = new SlowPuts({ client: newClient() }, INTERRUPT, () =>
      pruner.prune(["agent-live"], { keepLast: 1 }),
    );
    const live = agent(slow);
    await live.invoke({ messages: [{ role: "user", content: "hello" }] }, config);
    await live.invoke(
      { messages: [{ role: "user", content: 'book_trip {"city": "Oslo"}' }] },
      config,
    );

    for (const view of [slow, saver()]) {
      // (createAgent's getState is typed for its own state; what is checked here is LangGraph's.)
      const state = (await agent(view).getState(config)) as unknown as {
        next: string[];
        tasks: { interrupts: unknown[] }[];
      };
      expect(state.next).toEqual(["tools"]);
      expect(interruptsOf(state)).toEqual([expect.objectContaining({ value: "book Oslo?" })]);
    }
    const done = await agent(saver()).invoke(new Command({ resume: "booked" }), config);
    expect(done.messages.map((m) => m.text).slice(-2)).toEqual([
      "Oslo: booked",
      "Tool said: Oslo: booked",
    ]);
  });
});
