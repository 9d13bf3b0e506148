import { describe, expect, it } from "vitest";
import type { ThreadMessage } from "../../../src/api-types";
import { METADATA_LIMITS } from "../../../src/api-types";
import { StudioStoredFormatError } from "../../../src/errors";
import {
  loadValue,
  RECORD_KIND_KEY,
  RecordReader,
  recordMessages,
  storeValue,
} from "../../../src/langgraph/records";
import { RECORD_FORMAT, SPLICE_FORMAT } from "../../../src/records/checkpoint";
import { splitText } from "../../../src/records/parts";
import { checkpointRecord, writesRecord } from "./builders";

const bytes = (text: string) => new TextEncoder().encode(text);
const at = (position: number) => ({ position, offset: position * 10 });

/** The messages as the service would hand them back. */
function asStored(messages: ReturnType<typeof recordMessages>, from = 0): ThreadMessage[] {
  return messages.map((m, i) => ({
    id: `msg_${from + i}`,
    role: m.role,
    content: [{ type: "text", text: m.content }],
    metadata: m.metadata,
  }));
}

/** What a service that stores text as UTF-8 gives back (a lone surrogate becomes U+FFFD). */
function throughUtf8(text: string): string {
  return new TextDecoder().decode(new TextEncoder().encode(text));
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

  it("says what to do when a stored value is not base64", () => {
    expect(() => loadValue({ type: "bytes", base64: "not base64!" })).toThrow(
      'A stored checkpoint value of type "bytes" is not valid base64: the thread\'s record was ' +
        "changed by something other than this package. Restore that message, or delete the " +
        "LangGraph thread (deleteThread) to start it over.",
    );
  });
});

describe("recordMessages and RecordReader", () => {
  it("stores a small record in one message, with readable metadata within the limits", () => {
    const record = checkpointRecord({
      ns: "n".repeat(600),
      versions: { messages: "0002.ab" },
      blobs: [{ channel: "messages", version: "0002.ab", value: { type: "empty" } }],
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
    expect(new RecordReader().read(asStored([message!])[0]!, at(7))).toEqual({
      record,
      messageIds: ["msg_0"],
      place: at(7),
    });
  });

  it("splits a long record into parts and reads it back once every part is there, in any order", () => {
    const record = writesRecord({
      writes: [{ idx: 0, channel: "big", value: { type: "json", json: "x".repeat(5_000) } }],
    });
    const messages = recordMessages(record, 1_000, () => "rec-1");
    expect(messages.length).toBe(Math.ceil(JSON.stringify(record).length / 1_000));
    expect(messages.map((m) => m.metadata.part)).toEqual(
      messages.map((_, i) => `${i + 1}/${messages.length}`),
    );
    const stored = asStored(messages);
    // Oldest first (a catch-up) and newest first (a read from the thread's end) give one record.
    const forward = new RecordReader();
    for (const [i, message] of stored.slice(0, -1).entries()) {
      expect(forward.read(message, at(i))).toBeUndefined();
    }
    expect(forward.read(stored.at(-1)!, at(stored.length - 1))).toMatchObject({
      record,
      place: at(0),
    });
    const backward = new RecordReader();
    const results = [...stored].reverse().map((m, i) => backward.read(m, at(-i)));
    expect(results.slice(0, -1).every((r) => r === undefined)).toBe(true);
    expect(results.at(-1)).toEqual({
      record,
      messageIds: stored.map((m) => m.id),
      place: at(-(stored.length - 1)),
    });
  });

  it("never cuts a surrogate pair, so a service storing UTF-8 gives the record back intact", () => {
    const record = writesRecord({
      writes: [{ idx: 0, channel: "notes", value: { type: "json", json: "🙂".repeat(2_000) } }],
    });
    const text = JSON.stringify(record);
    // Some 1,000-unit boundary falls between the two halves of an emoji.
    expect([1_000, 2_000, 3_000].some((cut) => /[\ud800-\udbff]/.test(text.charAt(cut - 1)))).toBe(
      true,
    );
    const messages = recordMessages(record, 1_000, () => "rec-emoji");
    for (const message of messages) {
      expect(message.content.length).toBeLessThanOrEqual(1_000);
      expect(throughUtf8(message.content)).toBe(message.content);
    }
    const reader = new RecordReader();
    const stored = asStored(messages).map((m) => ({
      ...m,
      content: [{ type: "text", text: throughUtf8(String(m.content[0]!.text)) }],
    }));
    const results = stored.map((m, i) => reader.read(m, at(i)));
    expect(results.at(-1)?.record).toEqual(record);
  });

  it("splitText keeps pieces within the size and joins back to the text", () => {
    expect(splitText("ab🙂cd", 3)).toEqual(["ab", "🙂c", "d"]);
    expect(splitText("abcdef", 3)).toEqual(["abc", "def"]);
    expect(splitText("", 3)).toEqual([]);
  });

  it("never returns a record with a part missing", () => {
    const record = writesRecord({
      writes: [{ idx: 0, channel: "big", value: { type: "json", json: "y".repeat(3_000) } }],
    });
    const stored = asStored(recordMessages(record, 1_000, () => "rec-2"));
    const reader = new RecordReader();
    const results = stored.filter((_, i) => i !== 1).map((m, i) => reader.read(m, at(i)));
    expect(results.every((r) => r === undefined)).toBe(true);
  });

  it("ignores messages that are not records (a conversation, damaged or other formats)", () => {
    const reader = new RecordReader();
    const message = (text: string, metadata: Record<string, string> = {}): ThreadMessage => ({
      id: "m",
      role: "user",
      content: [{ type: "text", text }],
      metadata,
    });
    expect(reader.read(message("hello"), at(0))).toBeUndefined();
    expect(
      reader.read(message("{not json", { [RECORD_KIND_KEY]: "checkpoint" }), at(0)),
    ).toBeUndefined();
    // (Format 3 is a record holding spliced values: readable, see the splice tests.)
    const older = JSON.stringify({ ...checkpointRecord(), format: RECORD_FORMAT - 1 });
    expect(reader.read(message(older, { [RECORD_KIND_KEY]: "checkpoint" }), at(0))).toBeUndefined();
    // A newer format is not skipped: reading on would continue from older state.
    const newer = JSON.stringify({ ...checkpointRecord(), format: SPLICE_FORMAT + 1 });
    expect(() => reader.read(message(newer, { [RECORD_KIND_KEY]: "checkpoint" }), at(0))).toThrow(
      StudioStoredFormatError,
    );
    // The `{ value }` text form of this service family reads the same.
    const record = checkpointRecord();
    const valueForm: ThreadMessage = {
      id: "m2",
      role: "assistant",
      content: [{ type: "text", text: { value: JSON.stringify(record) } }],
      metadata: { [RECORD_KIND_KEY]: "checkpoint" },
    };
    expect(reader.read(valueForm, at(0))?.record).toEqual(record);
  });
});
