import { describe, expect, it } from "vitest";
import { toBase64 } from "../../../src/converters/base64";
import {
  createEncryptedSerde,
  ENCRYPTED_TYPE,
  StudioDecryptionError,
} from "../../../src/langgraph";
import type { CheckpointRecord, StoredRecord, WritesRecord } from "../../../src/langgraph/records";
import { PLAIN_RECORDS, sealedRecords } from "../../../src/langgraph/sealed-records";
import { RECORD_FORMAT } from "../../../src/records/checkpoint";

const serde = createEncryptedSerde({
  keys: { k1: toBase64(crypto.getRandomValues(new Uint8Array(32))) },
});
const codec = sealedRecords(serde);

const checkpoint: CheckpointRecord = {
  kind: "checkpoint",
  format: RECORD_FORMAT,
  threadId: "t1",
  ns: "",
  checkpointId: "c2",
  parentId: "c1",
  versions: { messages: "0002.aa", notes: "0001.bb", gone: "0002.cc" },
  checkpoint: { type: "json", json: { v: 4, id: "c2", ts: "2026-11-25T00:00:00Z" } },
  metadata: { type: "json", json: { step: 1 } },
  blobs: [
    {
      channel: "messages",
      version: "0002.aa",
      base: "0001.aa",
      append: { type: "json", json: ["b"] },
    },
    {
      channel: "notes",
      version: "0001.bb",
      value: { type: "bytes", base64: toBase64(Uint8Array.of(0, 255)) },
    },
    { channel: "gone", version: "0002.cc", value: { type: "empty" } },
  ],
  earlyWrites: ["task-1"],
};
const writes: WritesRecord = {
  kind: "writes",
  format: RECORD_FORMAT,
  threadId: "t1",
  ns: "",
  checkpointId: "c2",
  taskId: "task-1",
  taskPath: "~__pregel_pull, reply",
  writes: [{ idx: 0, channel: "messages", value: { type: "json", json: [{ text: "hi" }] } }],
};
const values: StoredRecord = {
  kind: "values",
  format: RECORD_FORMAT,
  threadId: "t1",
  ns: "",
  blobs: [{ channel: "messages", version: "0002.aa", value: { type: "json", json: ["a", "b"] } }],
};

describe("sealedRecords", () => {
  it("seals every value, the empty one too, and keeps the rest of the record readable", async () => {
    const sealed = (await codec.seal("t1", checkpoint)) as CheckpointRecord;
    expect({ ...sealed, checkpoint: null, metadata: null, blobs: null }).toEqual({
      ...checkpoint,
      checkpoint: null,
      metadata: null,
      blobs: null,
    });
    const sealedValues = [
      sealed.checkpoint,
      sealed.metadata,
      ...sealed.blobs.map((b) => ("value" in b ? b.value : b.append)),
    ];
    for (const value of sealedValues) {
      expect(value).toEqual({ type: ENCRYPTED_TYPE, base64: expect.any(String) });
    }
    expect(sealed.blobs.map(({ channel, version }) => [channel, version])).toEqual(
      checkpoint.blobs.map(({ channel, version }) => [channel, version]),
    );
  });

  it("opens what it sealed to the same record, for each kind of record", async () => {
    for (const record of [checkpoint, writes, values]) {
      const stored = JSON.parse(JSON.stringify(await codec.seal("t1", record)));
      expect(await codec.open("t1", stored)).toEqual(record);
    }
  });

  it("opens a record only for the thread it was sealed for", async () => {
    const sealed = await codec.seal("t1", writes);
    const error = await codec.open("t2", sealed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioDecryptionError);
    expect(error).toMatchObject({
      reason: "wrongContext",
      context: '["write","t2","","c2","task-1",0,"messages"]',
    });
  });

  it("refuses a plaintext record, or reads it as it is while migrating", async () => {
    const error = await codec.open("t1", writes).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "StudioDecryptionError", reason: "plaintext" });
    const migrating = sealedRecords(
      createEncryptedSerde({ keys: { k1: toBase64(new Uint8Array(32)) }, allowPlaintext: true }),
    );
    expect(await migrating.open("t1", checkpoint)).toEqual(checkpoint);
  });
});

describe("PLAIN_RECORDS", () => {
  it("stores records as they are, and says to pass the serde when one read back is sealed", async () => {
    expect(await PLAIN_RECORDS.seal("t1", checkpoint)).toBe(checkpoint);
    expect(await PLAIN_RECORDS.open("t1", checkpoint)).toEqual(checkpoint);
    const error = await PLAIN_RECORDS.open("t1", await codec.seal("t1", checkpoint)).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(
      /is encrypted, and this StudioCheckpointSaver has no encrypting serde: pass `serde: createEncryptedSerde/,
    );
  });
});
