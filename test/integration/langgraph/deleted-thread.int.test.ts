/**
 * A conversation deleted while another saver (another process) is still writing it stays deleted:
 * only a conversation's first checkpoint may create its thread again. A later checkpoint, a
 * task's writes, or a whole graph step that continues the deleted conversation is refused with
 * `StudioThreadDeletedError`, and nothing of it is stored.
 */
import { AIMessage } from "@langchain/core/messages";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioThreadDeletedError } from "../../../src/errors";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";
import { gate } from "../../helpers/gate";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function newSaver() {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  return new StudioCheckpointSaver({
    client: new StudioClient({ baseUrl, proxyUrl, apiKey, maxRetries: 0 }),
  });
}

function checkpointWith(values: Record<string, unknown>, version: number) {
  const checkpoint = emptyCheckpoint();
  checkpoint.id = uuid6(-3);
  checkpoint.channel_values = values;
  checkpoint.channel_versions = Object.fromEntries(Object.keys(values).map((k) => [k, version]));
  return checkpoint;
}

const meta = (step: number) => ({ source: "loop" as const, step, parents: {} });
const configOf = (thread_id: string) => ({ configurable: { thread_id, checkpoint_ns: "" } });

/** What a process that never saw the thread reads of it. */
async function storedTuple(threadId: string) {
  return newSaver().getTuple(configOf(threadId));
}

describe("StudioCheckpointSaver: a thread deleted by another process", () => {
  it("refuses a later checkpoint of it and stores nothing", async () => {
    const writer = newSaver();
    const first = await writer.put(configOf("gone"), checkpointWith({ a: 1 }, 1), meta(0), {
      a: 1,
    });
    await newSaver().deleteThread("gone");
    const later = writer.put(first, checkpointWith({ a: 2 }, 2), meta(1), { a: 2 });
    await expect(later).rejects.toBeInstanceOf(StudioThreadDeletedError);
    await expect(later).rejects.toThrow(
      /"gone" was deleted before checkpoint \S+ could be stored: none of it was stored/,
    );
    expect(await storedTuple("gone")).toBeUndefined();
  });

  it("refuses a task's writes to it and stores nothing", async () => {
    const writer = newSaver();
    const first = await writer.put(configOf("gone"), checkpointWith({ a: 1 }, 1), meta(0), {
      a: 1,
    });
    await newSaver().deleteThread("gone");
    await expect(writer.putWrites(first, [["a", 2]], "task-1")).rejects.toBeInstanceOf(
      StudioThreadDeletedError,
    );
    expect(await storedTuple("gone")).toBeUndefined();
  });

  it("starts it over on a first checkpoint (a config without checkpoint_id)", async () => {
    const writer = newSaver();
    await writer.put(configOf("again"), checkpointWith({ a: 1 }, 1), meta(0), { a: 1 });
    await newSaver().deleteThread("again");
    await writer.put(configOf("again"), checkpointWith({ b: 2 }, 1), meta(0), { b: 1 });
    expect((await storedTuple("again"))?.checkpoint.channel_values).toEqual({ b: 2 });
  });

  it("still creates a thread it never saw from a later checkpoint (a copy or a restore)", async () => {
    const parent = {
      configurable: { ...configOf("copied").configurable, checkpoint_id: uuid6(-3) },
    };
    await newSaver().put(parent, checkpointWith({ c: 3 }, 1), meta(4), { c: 1 });
    expect((await storedTuple("copied"))?.checkpoint.channel_values).toEqual({ c: 3 });
  });

  it("ends a graph run that continues it with the error, without recreating the thread", async () => {
    const between = gate();
    const reached = gate();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("first", () => ({ messages: [new AIMessage("first")] }))
      .addNode("second", async () => {
        reached.open();
        await between.wait;
        return { messages: [new AIMessage("second")] };
      })
      .addEdge(START, "first")
      .addEdge("first", "second")
      .compile({ checkpointer: newSaver() });
    const config = { configurable: { thread_id: "mid-run" }, durability: "sync" as const };
    const run = graph.invoke({ messages: [{ role: "user", content: "hi" }] }, config);
    await reached.wait;
    expect((await storedTuple("mid-run"))?.checkpoint.channel_values).toMatchObject({
      messages: expect.any(Array),
    });
    await newSaver().deleteThread("mid-run");
    between.open();
    await expect(run).rejects.toBeInstanceOf(StudioThreadDeletedError);
    expect(await storedTuple("mid-run")).toBeUndefined();
  });
});
