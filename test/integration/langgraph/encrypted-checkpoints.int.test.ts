/**
 * The checkpointer with `createEncryptedSerde`, as the service sees it: every value a record holds
 * is sealed, a list that only grew is still stored as its appended items (sealed too), and a
 * value moved, replayed, changed or put in plaintext is refused with the reason and the place.
 * Records are read and written straight through the client, as someone with access to the
 * service's data could.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Annotation, END, messagesStateReducer, START, StateGraph } from "@langchain/langgraph";
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { beforeEach, describe, expect, it } from "vitest";
import { contentItemText } from "../../../src/api-types";
import { StudioClient } from "../../../src/client";
import { fromBase64, toBase64 } from "../../../src/converters/base64";
import {
  createEncryptedSerde,
  ENCRYPTED_TYPE,
  StudioCheckpointSaver,
  StudioDecryptionError,
} from "../../../src/langgraph";
import type {
  CheckpointRecord,
  StoredRecord,
  StoredValue,
  WritesRecord,
} from "../../../src/langgraph/records";
import { RECORD_KIND_KEY } from "../../../src/langgraph/records";
import { threadTitle } from "../../../src/langgraph/thread-store";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator({ recordRequests: false });

beforeEach(async () => {
  await emulator.handle.reset();
});

const keys = { k1: toBase64(crypto.getRandomValues(new Uint8Array(32))) };
const SECRET = "the safe opens with 31-7-44";

function client(): StudioClient {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  return new StudioClient({ baseUrl, proxyUrl, apiKey });
}

/** A saver as a new process builds it: its own client, and a serde made from the same keys. */
function saver(serde: SerializerProtocol = createEncryptedSerde({ keys })) {
  return new StudioCheckpointSaver({ client: client(), serde });
}

/** A saver without encryption. */
function plainSaver() {
  return new StudioCheckpointSaver({ client: client() });
}

const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
});

/** `turns` turns of a conversation whose every message holds the secret. */
async function converse(checkpointer: StudioCheckpointSaver, threadId: string, turns: number) {
  const graph = new StateGraph(State)
    .addNode("reply", (state) => ({
      messages: [new AIMessage(`noted: ${state.messages.at(-1)?.text}`)],
    }))
    .addEdge(START, "reply")
    .addEdge("reply", END)
    .compile({ checkpointer });
  for (let turn = 0; turn < turns; turn++) {
    await graph.invoke(
      { messages: [new HumanMessage(`${SECRET} (turn ${turn})`)] },
      { configurable: { thread_id: threadId } },
    );
  }
}

async function serviceThreadOf(threadId: string): Promise<string> {
  for await (const thread of client().iterateThreads()) {
    if (thread.title === threadTitle(threadId)) return thread.id;
  }
  throw new Error(`no service thread for ${threadId}`);
}

/** The records of a LangGraph thread as stored, oldest first, with their raw text. */
async function storedRecords(threadId: string): Promise<{ text: string; record: StoredRecord }[]> {
  const records = [];
  const c = client();
  for await (const message of c.iterateMessages(await serviceThreadOf(threadId), {
    order: "asc",
  })) {
    if (message.metadata?.[RECORD_KIND_KEY] === undefined) continue;
    const text = message.content.map((item) => contentItemText(item) ?? "").join("");
    records.push({ text, record: JSON.parse(text) as StoredRecord });
  }
  return records;
}

async function appendRecord(threadId: string, record: StoredRecord): Promise<void> {
  await client().createMessage(await serviceThreadOf(threadId), {
    role: "assistant",
    content: JSON.stringify(record),
    metadata: { [RECORD_KIND_KEY]: record.kind },
  });
}

function checkpoints(records: { record: StoredRecord }[]): CheckpointRecord[] {
  return records.flatMap(({ record }) => (record.kind === "checkpoint" ? [record] : []));
}

/** Every value a record holds. */
function valuesOf(record: StoredRecord): StoredValue[] {
  if (record.kind === "writes") return record.writes.map((write) => write.value);
  const blobs = record.blobs.map((blob) => ("value" in blob ? blob.value : blob.append));
  return record.kind === "checkpoint" ? [record.checkpoint, record.metadata, ...blobs] : blobs;
}

async function refusalOf(threadId: string) {
  const error = await saver()
    .getTuple({ configurable: { thread_id: threadId } })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(StudioDecryptionError);
  return error as StudioDecryptionError;
}

describe("what the service stores", () => {
  it("is sealed, value by value, and a growing list is still stored as its appended items", async () => {
    await converse(saver(), "sealed", 6);
    const records = await storedRecords("sealed");
    for (const { text, record } of records) {
      expect(text).not.toContain("31-7-44");
      for (const value of valuesOf(record)) expect(value.type).toBe(ENCRYPTED_TYPE);
    }
    const appended = checkpoints(records).flatMap((r) => r.blobs.filter((b) => "append" in b));
    expect(appended.length).toBeGreaterThanOrEqual(5);

    const state = await saver().getTuple({ configurable: { thread_id: "sealed" } });
    const messages = state?.checkpoint.channel_values.messages as BaseMessage[];
    expect(messages.map((m) => m.text)).toEqual(
      Array.from({ length: 6 }, (_, turn) => [
        `${SECRET} (turn ${turn})`,
        `noted: ${SECRET} (turn ${turn})`,
      ]).flat(),
    );
  });

  it('stays sealed and readable through retention: prune, and keep: "latest"', async () => {
    const serde = createEncryptedSerde({ keys });
    await converse(saver(), "pruned", 4);
    await saver().prune(["pruned"], { keepLast: 1 });
    const latest = new StudioCheckpointSaver({ client: client(), serde, keep: "latest" });
    await converse(latest, "latest", 3);
    for (const threadId of ["pruned", "latest"]) {
      const records = await storedRecords(threadId);
      expect(checkpoints(records)).toHaveLength(1);
      for (const { record } of records) {
        for (const value of valuesOf(record)) expect(value.type).toBe(ENCRYPTED_TYPE);
      }
    }
    const read = async (threadId: string) =>
      (await saver().getTuple({ configurable: { thread_id: threadId } }))?.checkpoint.channel_values
        .messages;
    expect(await read("pruned")).toHaveLength(8);
    expect(await read("latest")).toHaveLength(6);
  });

  it("is refused, with a message naming the serde, by a saver without the keys", async () => {
    await converse(saver(), "locked", 1);
    const error = await plainSaver()
      .getTuple({ configurable: { thread_id: "locked" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/encrypted/);
    expect((error as Error).message).toMatch(/serde/);
  });
});

describe("a value is refused when", () => {
  /** A thread of two turns, its newest checkpoint record changed by `change` and stored again. */
  async function changed(
    threadId: string,
    change: (newest: CheckpointRecord, older: CheckpointRecord[]) => StoredRecord,
  ) {
    await converse(saver(), threadId, 2);
    const all = checkpoints(await storedRecords(threadId));
    const newest = all.at(-1)!;
    await appendRecord(threadId, change(structuredClone(newest), all.slice(0, -1)));
    return refusalOf(threadId);
  }

  it("a checkpoint record is copied into another thread", async () => {
    await converse(saver(), "victim", 1);
    await converse(saver(), "source", 2);
    await appendRecord("victim", checkpoints(await storedRecords("source")).at(-1)!);
    const refused = await refusalOf("victim");
    expect(refused.reason).toBe("wrongContext");
    expect(refused.context).toContain('"victim"');
    expect(refused.message).toMatch(/encrypted for another place and copied here/);
  });

  it("a checkpoint is made to name an older version of a channel (a rollback)", async () => {
    const error = await changed("rollback", (newest, older) => {
      const before = older.find((r) => r.versions.messages !== newest.versions.messages)!;
      newest.versions.messages = before.versions.messages!;
      return newest;
    });
    expect(error.reason).toBe("wrongContext");
  });

  it("a checkpoint is given another parent", async () => {
    const error = await changed("reparented", (newest, older) => {
      newest.parentId = older[0]!.checkpointId;
      return newest;
    });
    expect(error.reason).toBe("wrongContext");
  });

  it("a channel's older value is put under its newest version", async () => {
    const error = await changed("replayed", (newest, older) => {
      const old = older.flatMap((r) => r.blobs).find((b) => b.channel === "messages")!;
      newest.blobs = newest.blobs.map((blob) =>
        blob.channel === "messages"
          ? {
              channel: blob.channel,
              version: blob.version,
              value: "value" in old ? old.value : old.append,
            }
          : blob,
      );
      return newest;
    });
    expect(error.reason).toBe("wrongContext");
  });

  it("a value is moved to another channel", async () => {
    const error = await changed("moved", (newest) => {
      const blob = newest.blobs.find((b) => b.channel === "messages")!;
      newest.blobs.push({ ...blob, channel: "__start__" });
      return newest;
    });
    expect(error.reason).toBe("wrongContext");
  });

  it("a pending write is moved to another task", async () => {
    await converse(saver(), "task", 1);
    const writes = (await storedRecords("task")).find(
      ({ record }) => record.kind === "writes" && record.writes.length > 0,
    )!.record as WritesRecord;
    await appendRecord("task", { ...writes, taskId: "someone-else" });
    expect((await refusalOf("task")).reason).toBe("wrongContext");
  });

  it("a byte of it is changed", async () => {
    const error = await changed("tampered", (newest) => {
      const stored = newest.checkpoint as { type: string; base64: string };
      const bytes = fromBase64(stored.base64)!;
      bytes[bytes.length - 1]! ^= 1;
      newest.checkpoint = { type: stored.type, base64: toBase64(bytes) };
      return newest;
    });
    expect(error.reason).toBe("tampered");
    expect(error.message).toMatch(/changed after it was written/);
  });

  it("it is plaintext, unless allowPlaintext says stored data is being migrated", async () => {
    await converse(plainSaver(), "migrating", 2);
    expect((await refusalOf("migrating")).reason).toBe("plaintext");

    const migrating = createEncryptedSerde({ keys, allowPlaintext: true });
    await converse(saver(migrating), "migrating", 1);
    const state = await saver(migrating).getTuple({ configurable: { thread_id: "migrating" } });
    expect(state?.checkpoint.channel_values.messages).toHaveLength(6);
    // New records are sealed; the old ones stay readable only while the flag is on.
    const newest = checkpoints(await storedRecords("migrating")).at(-1)!;
    for (const value of valuesOf(newest)) expect(value.type).toBe(ENCRYPTED_TYPE);
    expect((await refusalOf("migrating")).reason).toBe("plaintext");
  });
});
