/**
 * What this version writes for an existing format is byte for byte what was written before: every
 * record in the stored fixtures, read back and written again through today's builders, gives the
 * stored text and metadata (a record id of a split record aside, which is random).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ThreadMessage } from "../../../src/api-types";
import { decodeMessage, encodeMessage } from "../../../src/converters/thread-messages";
import {
  DEFAULT_PART_CHARS,
  RECORD_KIND_KEY,
  RecordReader,
  recordMessages,
} from "../../../src/langgraph/records";
import {
  chatThreadMetadata,
  firstSnapshotMessage,
  OWNER_KEY,
  snapshotMessage,
} from "../../../src/records/chat-thread";
import { chatThreadIdMetadata } from "../../../src/records/chat-thread-id";
import {
  checkpointRecord,
  type StoredRecord,
  valuesRecord,
  writesRecord,
} from "../../../src/records/checkpoint";
import { CODEC_KEYS } from "../../../src/records/history-message";
import { KIND_KEY } from "../../../src/records/kinds";
import { messageText, PART_RECORD_KEY } from "../../../src/records/parts";
import { LAYOUT_DATASET, layoutThread } from "../../../src/records/session-layout";
import { STORE_RECORD_KEY } from "../../../src/records/store";
import { parseRecord, recordMessages as storeMessages } from "../../../src/store/records";

const FIXTURES = join(import.meta.dirname, "../../fixtures/stored");
/** Fixtures whose saver had `maxMessageChars: 2_000` (generate.ts). */
const SMALL_PARTS = ["checkpoint-format-3", "checkpoint-format-3-encrypted"];

interface StoredThread {
  id: string;
  title?: string | null;
  datasetId?: string | null;
  metadata?: Record<string, string> | null;
}

function load(name: string): { threads: StoredThread[]; messages: ThreadMessage[] } {
  const fixture = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8"));
  return fixture.data;
}

const names = readdirSync(FIXTURES)
  .filter((file) => file.endsWith(".json"))
  .map((file) => file.slice(0, -".json".length));

/** What a message says, without what is random per write (a split record's id, a write's id). */
function written(message: { content: unknown; metadata?: Record<string, unknown> | null }) {
  const {
    [PART_RECORD_KEY]: _id,
    [CODEC_KEYS.clientId]: _write,
    ...metadata
  } = message.metadata ?? {};
  const content =
    typeof message.content === "string"
      ? message.content
      : messageText(message.content as ThreadMessage["content"]);
  return { content, metadata };
}

function rebuilt(record: StoredRecord): StoredRecord {
  if (record.kind === "checkpoint") {
    const { kind: _k, format: _f, ...fields } = record;
    return checkpointRecord(fields);
  }
  if (record.kind === "writes") {
    const { kind: _k, format: _f, ...fields } = record;
    return writesRecord(fields);
  }
  const { kind: _k, format: _f, ...fields } = record;
  return valuesRecord(fields);
}

describe("records written again are byte-identical to the stored fixtures", () => {
  it.each(names.filter((name) => name.startsWith("checkpoint-")))("%s", (name) => {
    const { messages } = load(name);
    const byId = new Map(messages.map((m) => [m.id, m]));
    // The fixture's saver split records longer than its maxMessageChars (the generator's).
    const partChars = SMALL_PARTS.includes(name) ? 2_000 : DEFAULT_PART_CHARS;
    const reader = new RecordReader();
    let records = 0;
    messages.forEach((message, position) => {
      const read = reader.read(message, { position, offset: 0 });
      if (!read) return;
      records += 1;
      const again = recordMessages(rebuilt(read.record), partChars, () => "id");
      expect(again.map(written)).toEqual(read.messageIds.map((id) => written(byId.get(id)!)));
    });
    // Every record was read (and so compared): each whole message, each split record once.
    const ours = messages.filter((m) => m.metadata?.[RECORD_KIND_KEY] !== undefined);
    const splitIds = new Set(ours.flatMap((m) => m.metadata?.[PART_RECORD_KEY] ?? []));
    const wholes = ours.filter((m) => m.metadata?.[PART_RECORD_KEY] === undefined);
    expect(records).toBe(wholes.length + splitIds.size);
  });

  it.each(names.filter((name) => name.startsWith("store-")))("%s", (name) => {
    const { messages } = load(name);
    const records = new Map<string, ThreadMessage[]>();
    for (const message of messages) {
      if (message.metadata?.[STORE_RECORD_KEY] === undefined) continue;
      const id = String(message.metadata[PART_RECORD_KEY] ?? message.id);
      records.set(id, [...(records.get(id) ?? []), message]);
    }
    expect(records.size).toBeGreaterThan(3);
    for (const parts of records.values()) {
      const entries = parseRecord(parts.map((m) => messageText(m.content)).join(""))!;
      // The fixtures' store wrote with maxMessageChars 1000.
      expect(storeMessages(entries, 1_000).map(written)).toEqual(parts.map(written));
    }
  });

  it("chat-thread-view: the snapshots and the chat threads' tags", () => {
    const { threads, messages } = load("chat-thread-view");
    const snapshots = messages.filter((m) => m.metadata?.[KIND_KEY] === "chat-thread-view");
    expect(snapshots).toHaveLength(2);
    for (const message of snapshots) {
      const view = JSON.parse(messageText(message.content));
      expect(written(snapshotMessage(view))).toEqual(written(message));
    }
    const chats = threads.filter((t) => t.metadata?.[KIND_KEY] === "chat-thread");
    expect(chats).toHaveLength(2);
    for (const thread of chats) {
      expect(chatThreadMetadata(thread.metadata![OWNER_KEY]!)).toEqual(thread.metadata);
    }
  });

  it("chat-thread-view-format-2: each thread's first snapshot, and a later one beside it", () => {
    const { messages } = load("chat-thread-view-format-2");
    const snapshots = messages.filter((m) => m.metadata?.[KIND_KEY] === "chat-thread-view");
    const first = snapshots.filter((m) => m.metadata?.lc_format === "2");
    expect(first).toHaveLength(2);
    expect(snapshots).toHaveLength(3);
    for (const message of snapshots) {
      const view = JSON.parse(messageText(message.content));
      const again = first.includes(message) ? firstSnapshotMessage(view) : snapshotMessage(view);
      expect(written(again)).toEqual(written(message));
    }
  });

  it("chat-thread-id: the id threads' tags", () => {
    const { threads } = load("chat-thread-id");
    const ids = threads.filter((t) => t.metadata?.[KIND_KEY] === "chat-thread-id");
    expect(ids).toHaveLength(2);
    for (const thread of ids) {
      const { lc_owner: owner, lc_target: target } = thread.metadata!;
      expect(chatThreadIdMetadata(owner!, target!)).toEqual(thread.metadata);
      expect(threads.some((t) => t.id === target)).toBe(true);
    }
  });

  it("session-layout: the account's record", () => {
    // Written by sessions outside a dataset; the server's checkpointer has one (it must). The
    // format 2 snapshots' fixture ran no graph: no session at all.
    const without = ["chat-thread-id", "chat-thread-view-format-2"];
    for (const name of names.filter((n) => !without.includes(n))) {
      const layout = load(name).threads.filter((t) => t.datasetId === LAYOUT_DATASET);
      expect(layout).toHaveLength(1);
      const { title, metadata, datasetId } = layout[0]!;
      expect(layoutThread()).toEqual({ title, metadata, datasetId });
    }
  });

  it("history-codec: each message encoded again", () => {
    const { messages } = load("history-codec");
    expect(messages).toHaveLength(6);
    for (const message of messages) {
      const clientId = String(message.metadata![CODEC_KEYS.clientId]);
      const again = encodeMessage(decodeMessage(message), clientId);
      expect({ role: again.role, content: again.content, metadata: again.metadata }).toEqual({
        role: message.role,
        content: message.content,
        metadata: message.metadata,
      });
    }
  });
});
