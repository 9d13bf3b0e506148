/**
 * `keep: "latest"` and writes LangGraph stores before their checkpoint (durability "async"): such a
 * write is stored cut around the newest list this process has (the previous checkpoint's), so the
 * put of its checkpoint must not delete the records that list is read from; and a write whose
 * value can no longer be read whole is never handed back as its stored halves.
 */
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { expect, it } from "vitest";
import type { StudioCheckpointSaver } from "../../../src/langgraph";
import { useSaverEmulator } from "./saver-emulator";

const { newClient, saver } = useSaverEmulator();

const metadata = (step: number) => ({ source: "loop", step, parents: {} }) as never;

/** A conversation of 80 messages (over 2 KB, so a later copy is stored cut around it). */
const listA = Array.from({ length: 80 }, (_, i) => `message number ${i} `.padEnd(40, "x"));

async function earlyWriteThenPut(
  s: StudioCheckpointSaver,
  thread: string,
  afterA: () => Promise<void> = async () => {},
) {
  const a = { ...emptyCheckpoint(), id: uuid6(-1) };
  a.channel_values = { messages: listA };
  a.channel_versions = { messages: s.getNextVersion(undefined) };
  const configA = await s.put(
    { configurable: { thread_id: thread, checkpoint_ns: "" } },
    a,
    metadata(0),
    a.channel_versions,
  );
  await afterA();
  const b = { ...emptyCheckpoint(), id: uuid6(-1) };
  const listB = [...listA, "the model's reply"];
  b.channel_values = { messages: listB };
  b.channel_versions = { messages: s.getNextVersion(a.channel_versions.messages as never) };
  const configB = { configurable: { thread_id: thread, checkpoint_ns: "", checkpoint_id: b.id } };
  // A task of B's step finishes before B's put is called (durability "async").
  const send = { node: "tools", args: { messages: listB } };
  await s.putWrites(configB, [["__pregel_tasks", send]], "task-1");
  await s.put(configA, b, metadata(1), b.channel_versions);
  return { configB, send };
}

it('keep "latest": a write stored before its checkpoint reads whole, here and in a fresh saver', async () => {
  const writer = saver({ keep: "latest" });
  const { configB, send } = await earlyWriteThenPut(writer, "early");
  for (const reader of [writer, saver({ keep: "latest" }), saver()]) {
    const tuple = await reader.getTuple(configB);
    expect(tuple?.checkpoint.id).toBe(configB.configurable.checkpoint_id);
    expect(tuple?.pendingWrites).toEqual([["task-1", "__pregel_tasks", send]]);
  }
});

it('keep "latest": the records kept for an early write go at the next put', async () => {
  const writer = saver({ keep: "latest" });
  const { configB } = await earlyWriteThenPut(writer, "early");
  const b = (await writer.getTuple(configB))!.checkpoint;
  const c = { ...b, id: uuid6(-1), channel_values: { messages: ["a new conversation"] } };
  c.channel_versions = { messages: writer.getNextVersion(b.channel_versions.messages as never) };
  await writer.put(configB, c, metadata(2), c.channel_versions);
  const ids: string[] = [];
  for await (const tuple of saver().list({ configurable: { thread_id: "early" } })) {
    ids.push(tuple.checkpoint.id);
  }
  expect(ids).toEqual([c.id]);
  const tuple = await saver().getTuple({ configurable: { thread_id: "early" } });
  expect(tuple?.checkpoint.channel_values).toEqual({ messages: ["a new conversation"] });
});

it("a write whose value was cut around records another process deleted is left out, never handed back cut", async () => {
  const client = newClient();
  const messagesOf = async () => {
    const thread = (await client.listThreads()).data.find(
      (t) => t.metadata?.lc_session === "damaged",
    );
    const ids: string[] = [];
    for await (const message of client.iterateMessages(thread!.id)) ids.push(message.id);
    return { serviceThreadId: thread!.id, ids };
  };
  let recordsOfA: string[] = [];
  const { configB } = await earlyWriteThenPut(saver(), "damaged", async () => {
    recordsOfA = (await messagesOf()).ids;
  });
  const { serviceThreadId } = await messagesOf();
  // Another process deletes the records of checkpoint A (which the write was cut around).
  for (const id of recordsOfA) await client.deleteMessage(serviceThreadId, id);
  const tuple = await saver().getTuple(configB);
  expect(tuple?.checkpoint.id).toBe(configB.configurable.checkpoint_id);
  expect(tuple?.pendingWrites).toEqual([]);
});
