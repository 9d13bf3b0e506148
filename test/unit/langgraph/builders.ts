/** Records as the saver writes them, for tests of the log and the plans built on it. */
import type { Place } from "../../../src/langgraph/channel-values";
import type { BlobRecord, CheckpointRecord, WritesRecord } from "../../../src/langgraph/records";
import { RECORD_FORMAT } from "../../../src/records/checkpoint";

export function checkpointRecord(over: Partial<CheckpointRecord> = {}): CheckpointRecord {
  return {
    kind: "checkpoint",
    format: RECORD_FORMAT,
    threadId: "t",
    ns: "",
    checkpointId: "c1",
    parentId: undefined,
    versions: {},
    checkpoint: { type: "json", json: { v: 4, id: over.checkpointId ?? "c1" } },
    metadata: { type: "json", json: { step: 1 } },
    blobs: [],
    ...over,
  };
}

export function writesRecord(over: Partial<WritesRecord> = {}): WritesRecord {
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

/** A whole JSON value of a channel at a version. */
export function whole(channel: string, version: string, json: unknown): BlobRecord {
  return { channel, version, value: { type: "json", json } };
}

/** Items appended to the channel's value at `base`. */
export function appended(
  channel: string,
  version: string,
  base: string,
  items: unknown[],
): BlobRecord {
  return { channel, version, base, append: { type: "json", json: items } };
}

/** Message `position` of a thread whose messages are 100 characters each. */
export function at(position: number): Place {
  return { position, offset: position * 100 };
}
