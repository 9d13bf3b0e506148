import { describe, expect, it } from "vitest";
import type { ThreadMessage } from "../../../src/api-types";
import { METADATA_LIMITS } from "../../../src/api-types";
import { CheckpointLog } from "../../../src/langgraph/checkpoint-log";
import {
  type CheckpointRecord,
  loadValue,
  RECORD_FORMAT,
  RECORD_KIND_KEY,
  RecordReader,
  recordMessages,
  storeValue,
  type WritesRecord,
} from "../../../src/langgraph/records";

const bytes = (text: string) => new TextEncoder().encode(text);

function checkpointRecord(over: Partial<CheckpointRecord> = {}): CheckpointRecord {
  return {
    kind: "checkpoint",
    format: RECORD_FORMAT,
    threadId: "t",
    ns: "",
    checkpointId: "c1",
    parentId: undefined,
    checkpoint: { type: "json", json: { v: 4, id: "c1" } },
    metadata: { type: "json", json: { step: 1 } },
    blobs: {},
    ...over,
  };
}

function writesRecord(over: Partial<WritesRecord> = {}): WritesRecord {
  return {
    kind: "writes",
    format: RECORD_FORMAT,
    threadId: "t",
    ns: "",
    checkpointId: "c1",
    taskId: "task",
    taskPath: "",
    writes: [],
    ...over,
  };
}

/** The messages as the service would hand them back. */
function asStored(messages: ReturnType<typeof recordMessages>, from = 0): ThreadMessage[] {
  return messages.map((m, i) => ({
    id: `msg_${from + i}`,
    role: m.role,
    content: [{ type: "text", text: m.content }],
    metadata: m.metadata,
  }));
}

describe("storeValue / loadValue", () => {
  it("keeps serializer JSON as a readable value and gives the same text back", () => {
    const stored = storeValue(["json", bytes('{"a":[1,"é"]}')]);
    expect(stored).toEqual({ type: "json", json: { a: [1, "é"] } });
    expect(loadValue(stored)).toEqual(["json", '{"a":[1,"é"]}']);
  });

  it("keeps every byte of other types (and of JSON that is not UTF-8) in base64", () => {
    const raw = new Uint8Array([0, 255, 128, 10]);
    const stored = storeValue(["bytes", raw]);
    expect(stored).toEqual({ type: "bytes", base64: "AP+ACg==" });
    expect(loadValue(stored)).toEqual(["bytes", raw]);
    expect(storeValue(["json", raw])).toEqual({ type: "json", base64: "AP+ACg==" });
  });
});

describe("recordMessages and RecordReader", () => {
  it("stores a small record in one message, with readable metadata within the limits", () => {
    const record = checkpointRecord({
      ns: "n".repeat(600),
      blobs: { messages: { version: 2, value: { type: "empty" } } },
    });
    const [message, ...rest] = recordMessages(record);
    expect(rest).toEqual([]);
    expect(message!.role).toBe("assistant");
    expect(JSON.parse(message!.content)).toEqual(record);
    expect(message!.metadata).toEqual({
      [RECORD_KIND_KEY]: "checkpoint",
      checkpoint_id: "c1",
      channels: "messages",
    });
    for (const [key, value] of Object.entries(message!.metadata)) {
      expect(key.length).toBeLessThanOrEqual(METADATA_LIMITS.maxKeyLength);
      expect(value.length).toBeLessThanOrEqual(METADATA_LIMITS.maxValueLength);
    }
    expect(new RecordReader().read(asStored([message!])[0]!)).toEqual(record);
  });

  it("splits a long record into parts and reads it back once every part is there", () => {
    const record = writesRecord({
      writes: [{ idx: 0, channel: "big", value: { type: "json", json: "x".repeat(5_000) } }],
    });
    const messages = recordMessages(record, 1_000, () => "rec-1");
    expect(messages.length).toBe(Math.ceil(JSON.stringify(record).length / 1_000));
    expect(messages.map((m) => m.metadata.part)).toEqual(
      messages.map((_, i) => `${i + 1}/${messages.length}`),
    );
    const stored = asStored(messages);
    const reader = new RecordReader();
    // Parts may arrive over several reads (pages, syncs): nothing until the last one.
    for (const message of stored.slice(0, -1)) expect(reader.read(message)).toBeUndefined();
    expect(reader.read(stored.at(-1)!)).toEqual(record);
  });

  it("never returns a record with a part missing", () => {
    const record = writesRecord({
      writes: [{ idx: 0, channel: "big", value: { type: "json", json: "y".repeat(3_000) } }],
    });
    const stored = asStored(recordMessages(record, 1_000, () => "rec-2"));
    const reader = new RecordReader();
    const results = stored.filter((_, i) => i !== 1).map((m) => reader.read(m));
    expect(results.every((r) => r === undefined)).toBe(true);
  });

  it("ignores messages that are not records (a conversation, damaged or newer formats)", () => {
    const reader = new RecordReader();
    const message = (text: string, metadata: Record<string, string> = {}): ThreadMessage => ({
      id: "m",
      role: "user",
      content: [{ type: "text", text }],
      metadata,
    });
    expect(reader.read(message("hello"))).toBeUndefined();
    expect(reader.read(message("{not json", { [RECORD_KIND_KEY]: "checkpoint" }))).toBeUndefined();
    const future = JSON.stringify({ ...checkpointRecord(), format: RECORD_FORMAT + 1 });
    expect(reader.read(message(future, { [RECORD_KIND_KEY]: "checkpoint" }))).toBeUndefined();
    // The `{ value }` text form of this service family reads the same.
    const record = checkpointRecord();
    const valueForm: ThreadMessage = {
      id: "m2",
      role: "assistant",
      content: [{ type: "text", text: { value: JSON.stringify(record) } }],
      metadata: { [RECORD_KIND_KEY]: "checkpoint" },
    };
    expect(reader.read(valueForm)).toEqual(record);
  });
});

describe("CheckpointLog", () => {
  const value = (json: unknown) => ({ type: "json", json });

  it("finds a checkpoint by id or the latest one of a namespace", () => {
    const log = new CheckpointLog();
    for (const id of ["c2", "c1", "c3"]) log.add(checkpointRecord({ checkpointId: id }));
    log.add(checkpointRecord({ checkpointId: "c9", ns: "child" }));
    expect(log.checkpoint("")?.checkpointId).toBe("c3");
    expect(log.checkpoint("", "c1")?.checkpointId).toBe("c1");
    expect(log.checkpoint("child")?.checkpointId).toBe("c9");
    expect(log.checkpoint("other")).toBeUndefined();
    expect(log.allCheckpoints("").map((r) => r.checkpointId)).toEqual(["c3", "c2", "c1"]);
    expect(log.allCheckpoints().map((r) => r.checkpointId)).toEqual(["c3", "c2", "c1", "c9"]);
  });

  it("applies the Postgres saver's conflict rules", () => {
    const log = new CheckpointLog();
    log.add(checkpointRecord({ blobs: { a: { version: 1, value: value("first") } } }));
    log.add(
      checkpointRecord({
        metadata: value({ step: 2 }),
        blobs: { a: { version: "1", value: value("second") } },
      }),
    );
    // A checkpoint put again replaces the earlier one; a blob version is written once.
    expect(log.checkpoint("", "c1")?.metadata).toEqual(value({ step: 2 }));
    expect(log.blob("", "a", 1)).toEqual(value("first"));

    const write = (idx: number, text: string) => ({ idx, channel: "ch", value: value(text) });
    log.add(writesRecord({ writes: [write(0, "kept"), write(-1, "error 1")] }));
    log.add(writesRecord({ writes: [write(0, "ignored"), write(-1, "error 2")] }));
    expect(log.pendingWrites("", "c1").map((w) => [w.idx, w.value])).toEqual([
      [-1, value("error 2")],
      [0, value("kept")],
    ]);
  });

  it("orders pending writes by task path, task id, then index", () => {
    const log = new CheckpointLog();
    const w = (idx: number) => ({ idx, channel: "c", value: value(idx) });
    log.add(writesRecord({ taskId: "b", taskPath: "~1", writes: [w(1), w(0)] }));
    log.add(writesRecord({ taskId: "z", taskPath: "", writes: [w(0)] }));
    log.add(writesRecord({ taskId: "a", taskPath: "~1", writes: [w(0)] }));
    expect(log.pendingWrites("", "c1").map((x) => `${x.taskId}${x.idx}`)).toEqual([
      "z0",
      "a0",
      "b0",
      "b1",
    ]);
  });
});
