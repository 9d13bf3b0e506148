import { describe, expect, it } from "vitest";
import type { ThreadMessage } from "../../../src/api-types";
import { StudioStoredFormatError } from "../../../src/errors";
import { NamespaceThreads } from "../../../src/store/namespace-threads";
import {
  decodeVector,
  type Entry,
  EXPIRED_TOMBSTONE_GRACE_MS,
  encodeVector,
  INCOMPLETE_RECORD_GRACE_MS,
  NamespaceLog,
  namespaceSessionId,
  namespaceTitle,
  type PutEntry,
  RECORD_OVERHEAD_CHARS,
  readRecord,
  recordMessages,
  STORE_RECORD_KEY,
  StampClock,
} from "../../../src/store/records";

function put(key: string, s: number, w = "w1", extra: Partial<PutEntry> = {}): PutEntry {
  return { op: "put", key, s, w, c: s, p: { value: { s } }, ...extra } as PutEntry;
}

function message(
  id: string,
  content: string,
  metadata: Record<string, string>,
  createdAt: string | number = "2026-01-01T00:00:00Z",
): ThreadMessage {
  return {
    id,
    object: "thread.message",
    createdAt,
    threadId: "t",
    role: "assistant",
    content: [{ type: "text", text: content }],
    metadata,
  } as ThreadMessage;
}

describe("NamespaceLog", () => {
  it("takes a later expiry from a compaction's copy of a put it already holds (same stamp)", () => {
    const log = new NamespaceLog();
    log.add("m1", [put("k", 10, "w1", { ttl: 1, e: 1_000 })]);
    expect(log.live("k", 1_500)).toBeUndefined();
    // The copy folds a refresh (touch) this reader never saw; its messages are gone.
    log.add("m9", [put("k", 10, "w1", { ttl: 1, e: 2_000 })]);
    expect(log.live("k", 1_500)?.key).toBe("k");
    expect(log.live("k", 2_000)).toBeUndefined();
    // An older copy never moves the expiry back.
    log.add("m10", [put("k", 10, "w1", { ttl: 1, e: 1_200 })]);
    expect(log.live("k", 1_500)?.key).toBe("k");
  });

  it("keeps each key's newest put or delete by stamp, whatever order the messages come in", () => {
    const entries: Entry[][] = [
      [put("a", 10)],
      [put("a", 30), put("b", 5)],
      [{ op: "del", key: "b", s: 6, w: "w1" }],
      [put("a", 20)],
    ];
    for (const order of [
      [0, 1, 2, 3],
      [3, 2, 1, 0],
      [1, 3, 0, 2],
    ]) {
      const log = new NamespaceLog();
      for (const i of order) log.add(`m${i}`, entries[i]!);
      expect(log.live("a", 0)).toMatchObject({ s: 30 });
      expect(log.live("b", 0)).toBeUndefined();
      expect(log.maxStamp).toBe(30);
    }
  });

  it("breaks equal stamps by writer, and a delete outranks a put of the same stamp", () => {
    const log = new NamespaceLog();
    log.add("m1", [put("a", 10, "wb"), put("a", 10, "wa")]);
    expect(log.live("a", 0)?.w).toBe("wb");
    log.add("m2", [{ op: "del", key: "a", s: 10, w: "wb" }]);
    expect(log.live("a", 0)).toBeUndefined();
  });

  it("hides expired items, and moves expiry with touches of the put they name", () => {
    const log = new NamespaceLog();
    log.add("m1", [put("a", 10, "w1", { e: 1_000, ttl: 1 })]);
    expect(log.live("a", 999)).toBeDefined();
    expect(log.live("a", 1_000)).toBeUndefined();
    log.add("m2", [{ op: "touch", key: "a", of: { s: 9, w: "w1" }, e: 5_000 }]);
    expect(log.live("a", 1_000)).toBeUndefined();
    log.add("m3", [{ op: "touch", key: "a", of: { s: 10, w: "w1" }, e: 5_000 }]);
    expect(log.live("a", 4_999)).toBeDefined();
    // Compaction removes it only once expired for EXPIRED_TOMBSTONE_GRACE_MS.
    expect(log.expiredCount(5_000)).toBe(0);
    expect(log.expiredCount(5_000 + EXPIRED_TOMBSTONE_GRACE_MS - 1)).toBe(0);
    expect(log.expiredCount(5_000 + EXPIRED_TOMBSTONE_GRACE_MS)).toBe(1);
  });

  it("lists live items in the order they were created, and records children and opening", () => {
    const log = new NamespaceLog();
    log.add("m1", [
      { op: "open", s: 1, w: "w" },
      put("b", 2),
      put("a", 3),
      { op: "child", label: "x" },
    ]);
    log.add("m2", [
      put("b", 4, "w", { c: 2 }),
      { op: "child", label: "x" },
      { op: "open", s: 0, w: "v" },
    ]);
    expect(log.liveItems(0).map((e) => [e.key, e.s])).toEqual([
      ["b", 4],
      ["a", 3],
    ]);
    expect(log.children).toEqual(["x"]);
    expect(log.opened).toEqual({ op: "open", s: 0, w: "v" });
  });

  it("counts messages holding nothing that counts, and compacts to what counts", () => {
    const log = new NamespaceLog();
    log.add("m1", [{ op: "open", s: 1, w: "w" }, put("a", 2), put("gone", 3)]);
    log.add("m2", [put("a", 4), put("ttl", 5, "w", { e: 100, ttl: 1 })]);
    log.add("m3", [{ op: "del", key: "gone", s: 6, w: "w" }]);
    log.add("m4", [{ op: "touch", key: "ttl", of: { s: 5, w: "w" }, e: 200 }]);
    log.add("m5", [put("a", 7)]);
    // m1 holds the opening, m2 the ttl item, m3 the tombstone, m5 the newest a; m4 a touch only.
    expect(log.deadMessageCount()).toBe(1);
    expect(log.compactedEntries(150)).toEqual([
      { op: "open", s: 1, w: "w" },
      expect.objectContaining({ op: "put", key: "a", s: 7 }),
      { op: "del", key: "gone", s: 6, w: "w" },
      expect.objectContaining({ op: "put", key: "ttl", s: 5, e: 200 }),
    ]);
    // Once expired for EXPIRED_TOMBSTONE_GRACE_MS, the item is kept as a tombstone with its own
    // stamp (nothing newer loses).
    expect(log.compactedEntries(200 + EXPIRED_TOMBSTONE_GRACE_MS)).toContainEqual({
      op: "del",
      key: "ttl",
      s: 5,
      w: "w",
    });
  });

  it("copies an item expired within the grace period as it is: a refresh landing meanwhile still counts", () => {
    const log = new NamespaceLog();
    log.add("m1", [put("ttl", 5, "w", { e: 100, ttl: 1 })]);
    // Expired 30 s ago, within the grace period (a minute).
    const now = 100 + 30_000;
    const copied = log.compactedEntries(now);
    expect(copied).toEqual([expect.objectContaining({ op: "put", key: "ttl", s: 5, e: 100 })]);
    expect(copied).not.toContainEqual(expect.objectContaining({ op: "del" }));
    // Another process refreshed the put between the compaction's read and its copy: a reader
    // holding the copy and the refresh sees the item live (a tombstone would have hidden it).
    const reader = new NamespaceLog();
    reader.add("copy", copied);
    reader.add("m2", [{ op: "touch", key: "ttl", of: { s: 5, w: "w" }, e: now + 60_000 }]);
    expect(reader.live("ttl", now)).toBeDefined();
  });
});

describe("record messages", () => {
  it("pack entries into messages of at most maxChars, marked as store records", () => {
    const entries = Array.from({ length: 30 }, (_, i) => put(`key-${i}`, i + 1));
    const messages = recordMessages(entries, 600);
    expect(messages.length).toBeGreaterThan(1);
    for (const m of messages) {
      expect(m.content.length).toBeLessThanOrEqual(600);
      expect(m.metadata).toEqual({ [STORE_RECORD_KEY]: "1" });
    }
    const read = messages.flatMap((m, i) => readRecord(message(`m${i}`, m.content, m.metadata))!);
    expect(read).toEqual(entries);
    expect(RECORD_OVERHEAD_CHARS).toBe('{"entries":[]}'.length);
  });

  it("split an entry bigger than a message over parts, read back whole in any order", () => {
    const big = put("big", 7, "w1", { p: { value: { text: `${"é😀".repeat(1_000)}end` } } });
    const messages = recordMessages([put("a", 1), big, put("b", 9)], 1_000);
    const parts = messages.filter((m) => m.metadata.part !== undefined);
    expect(parts.length).toBeGreaterThan(2);
    for (const m of messages) expect(m.content.length).toBeLessThanOrEqual(1_000);
    // No part ends inside a surrogate pair.
    for (const m of parts) expect(() => encodeURIComponent(m.content)).not.toThrow();
    const log = new NamespaceLog();
    const read = messages.map((m, i) => message(`m${i}`, m.content, m.metadata));
    const [first, ...rest] = read;
    for (const m of [...rest.reverse(), first!]) log.addMessage(m);
    expect(log.live("big", 0)).toEqual(big);
    expect(log.liveItems(0).map((entry) => entry.key)).toEqual(["a", "big", "b"]);
    // Each part's message holds the item: none counts as dead.
    expect(log.deadMessageCount()).toBe(0);
    expect(log.messageIds).toHaveLength(messages.length);
  });

  it("of a split record missing a part are not read, nor counted as read (compaction keeps them)", () => {
    const big = put("big", 7, "w1", { p: { value: { text: "x".repeat(3_000) } } });
    const messages = recordMessages([big], 1_000);
    const log = new NamespaceLog();
    for (const [i, m] of messages.slice(1).entries()) {
      log.addMessage(message(`m${i}`, m.content, m.metadata));
    }
    expect(log.live("big", 0)).toBeUndefined();
    expect(log.messageIds).toEqual([]);
  });

  it("of a write cut short are stale (compaction deletes them) only once the newest is older than the grace period", () => {
    const big = put("big", 7, "w1", { p: { value: { text: "x".repeat(3_000) } } });
    const messages = recordMessages([big], 1_000);
    const stored = Date.parse("2026-01-01T00:00:00Z");
    const log = new NamespaceLog();
    log.addMessage(
      message("p1", messages[0]!.content, messages[0]!.metadata, "2026-01-01T00:00:00Z"),
    );
    log.addMessage(
      message("p2", messages[1]!.content, messages[1]!.metadata, "2026-01-01T00:00:05Z"),
    );
    // A write under way (its newest part recent): kept.
    expect(log.staleParts(stored + 5_000 + 1_000)).toEqual([]);
    expect(log.staleParts(stored + 5_000 + INCOMPLETE_RECORD_GRACE_MS)).toEqual([]);
    expect(log.staleParts(stored + 5_000 + INCOMPLETE_RECORD_GRACE_MS + 1)).toEqual(["p1", "p2"]);
    expect(log.staleParts(stored + 60_000, 10_000)).toEqual(["p1", "p2"]);
    // Not counted as read (compaction's deletes of what it copied) nor as an item.
    expect(log.messageIds).toEqual([]);
    expect(log.live("big", 0)).toBeUndefined();
    // A time in seconds is read too; a part with no readable time is never stale.
    const seconds = new NamespaceLog();
    seconds.addMessage(message("s1", messages[0]!.content, messages[0]!.metadata, stored / 1000));
    expect(seconds.staleParts(stored + INCOMPLETE_RECORD_GRACE_MS + 1)).toEqual(["s1"]);
    const undated = new NamespaceLog();
    undated.addMessage(message("u1", messages[0]!.content, messages[0]!.metadata, "not a time"));
    expect(undated.staleParts(Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it("duplicated after their record was whole start no record that lingers: the duplicate is stale", () => {
    const big = put("big", 7, "w1", { p: { value: { text: "x".repeat(1_500) } } });
    const messages = recordMessages([big], 1_000);
    expect(messages).toHaveLength(2);
    const stored = Date.parse("2026-01-01T00:00:00Z");
    const log = new NamespaceLog();
    log.addMessage(message("p1", messages[0]!.content, messages[0]!.metadata));
    log.addMessage(message("p2", messages[1]!.content, messages[1]!.metadata));
    // A retry stored part 1 again, late.
    log.addMessage(message("p1b", messages[0]!.content, messages[0]!.metadata));
    expect(log.live("big", 0)).toEqual(big);
    expect(log.messageIds).toEqual(["p1", "p2"]);
    expect(log.staleParts(stored + INCOMPLETE_RECORD_GRACE_MS + 1)).toEqual(["p1b"]);
  });

  it("duplicated before their record was whole are counted as read with it (compaction deletes both)", () => {
    const big = put("big", 7, "w1", { p: { value: { text: "x".repeat(1_500) } } });
    const messages = recordMessages([big], 1_000);
    const log = new NamespaceLog();
    log.addMessage(message("p1", messages[0]!.content, messages[0]!.metadata));
    log.addMessage(message("p1b", messages[0]!.content, messages[0]!.metadata));
    log.addMessage(message("p2", messages[1]!.content, messages[1]!.metadata));
    expect(log.live("big", 0)).toEqual(big);
    expect([...log.messageIds].sort()).toEqual(["p1", "p1b", "p2"]);
    expect(log.staleParts(Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it("are the only messages read: others, damaged ones and unknown entries are skipped", () => {
    const ours = { [STORE_RECORD_KEY]: "1" };
    expect(readRecord(message("1", '{"entries":[]}', {}))).toBeUndefined();
    // A newer format is the upgrade error, never skipped (reading on would roll the data back).
    expect(() => readRecord(message("2", '{"entries":[]}', { [STORE_RECORD_KEY]: "9" }))).toThrow(
      StudioStoredFormatError,
    );
    expect(readRecord(message("3", "{not json", ours))).toBeUndefined();
    const mixed = JSON.stringify({ entries: [put("a", 1), { op: "future" }, { op: "put" }] });
    expect(readRecord(message("4", mixed, ours))).toEqual([put("a", 1)]);
  });
});

describe("compaction's trigger", () => {
  it("counts the parts of writes cut short long ago as messages holding nothing, and sweeps them", () => {
    const threads = new NamespaceThreads({} as never, {
      datasetId: undefined,
      maxCachedNamespaces: 1,
      maxMessageChars: 1_000,
      maxConcurrentReads: 1,
    });
    const stored = Date.parse("2026-01-01T00:00:00Z");
    const log = new NamespaceLog();
    log.add("m0", [put("a", 1)]);
    // 50 writes cut short after their first part.
    for (let i = 0; i < 50; i++) {
      const [first] = recordMessages(
        [put(`big${i}`, 10 + i, "w", { p: { value: { t: "x".repeat(1_500) } } })],
        1_000,
      );
      log.addMessage(message(`p${i}`, first!.content, first!.metadata));
    }
    const old = stored + INCOMPLETE_RECORD_GRACE_MS + 1;
    expect(threads.needsCompaction(log, stored + 1_000)).toBe(false);
    expect(threads.needsSweep(log, stored + 1_000)).toBe(false);
    expect(threads.needsCompaction(log, old)).toBe(true);
    expect(threads.needsSweep(log, old)).toBe(true);
  });
});

describe("StampClock", () => {
  it("never goes back, and passes the largest stamp its writer read", () => {
    const clock = new StampClock("w");
    const a = clock.next(0, 1_000);
    const b = clock.next(0, 999);
    const c = clock.next(5_000_000, 1_000);
    expect(a).toEqual({ s: 1_000_000, w: "w" });
    expect(b.s).toBe(1_000_001);
    expect(c.s).toBe(5_000_001);
  });
});

describe("namespace ids and titles", () => {
  it("use the labels as JSON, hashed when longer than a metadata value", async () => {
    expect(await namespaceSessionId([])).toBe("[]");
    expect(await namespaceSessionId(["users", "42"])).toBe('["users","42"]');
    const long = await namespaceSessionId(["x".repeat(600)]);
    expect(long).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(namespaceTitle(["users", "42"])).toBe("LangGraph store: users/42");
    expect(namespaceTitle([])).toBe("LangGraph store: (namespaces)");
    expect(namespaceTitle(["y".repeat(300)]).length).toBe(200);
  });
});

describe("vectors", () => {
  it("are stored as float32 base64", () => {
    const text = encodeVector([0.5, -2, 3]);
    expect(text).toBe("AAAAPwAAAMAAAEBA");
    expect(decodeVector(text)).toEqual([0.5, -2, 3]);
  });
});
