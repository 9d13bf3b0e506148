/**
 * StudioStore's planners, with no I/O: its fields' checks and defaults, which puts of a batch are
 * written and the entries each namespace gets, the TTL a put gets and the touches a read writes,
 * and the order and page a search answers with.
 */
import { describe, expect, it } from "vitest";
import { storeSettings } from "../../../src/store/fields";
import type { StudioPutOperation } from "../../../src/store/operations";
import { classifyAll } from "../../../src/store/operations";
import { NamespaceLog, type PutEntry } from "../../../src/store/records";
import { searchOrder, searchPage, toItem } from "../../../src/store/search-plan";
import { expiryFields, MINUTE_MS, planRefresh, putTtl } from "../../../src/store/ttl";
import { describeWrites, latestPuts, planWrites } from "../../../src/store/write-plan";

function put(key: string, s: number, extra: Partial<PutEntry> = {}): PutEntry {
  return { op: "put", key, s, w: "w1", c: s, p: { value: { s } }, ...extra } as PutEntry;
}

/** A stamp source that counts up from what was read, as StampClock does. */
function counter() {
  let last = 0;
  return (seen: number) => {
    last = Math.max(last + 1, seen + 1);
    return { s: last, w: "me" };
  };
}

describe("fields", () => {
  it("default what is unset and name the field at fault", () => {
    const settings = storeSettings({});
    expect(settings).toMatchObject({
      ttl: {},
      maxMessageChars: 100_000,
      maxCachedNamespaces: 1_000,
      maxConcurrentReads: 32,
      index: undefined,
    });
    const embeddings = { embedQuery: async () => [], embedDocuments: async () => [] };
    expect(storeSettings({ index: { embeddings, dims: 2 } }).index?.fields).toEqual(["$"]);
    const refused: [object, string, string][] = [
      [{ datasetId: "" }, "datasetId", "must be a non-empty string"],
      [
        { maxMessageChars: 999 },
        "maxMessageChars",
        "must be an integer of at least 1000 (got 999)",
      ],
      [{ maxCachedNamespaces: 0.5 }, "maxCachedNamespaces", "at least 1 (got 0.5)"],
      [{ maxConcurrentReads: 0 }, "maxConcurrentReads", "at least 1 (got 0)"],
      [{ index: { dims: 2 } }, "index.embeddings", "must be LangChain embeddings"],
      [{ index: { embeddings } }, "index.dims", "is required"],
      [{ index: { embeddings, dims: 2, fields: "text" } }, "index.fields", "array of field paths"],
      [{ ttl: { sweepIntervalMinutes: -1 } }, "ttl.sweepIntervalMinutes", "minutes above 0"],
      [{ ttl: { refreshOnRead: "yes" } }, "ttl.refreshOnRead", "must be a boolean"],
    ];
    for (const [fields, field, text] of refused) {
      expect(() => storeSettings(fields as never), field).toThrow(
        expect.objectContaining({ name: "StudioValidationError", field }),
      );
      expect(() => storeSettings(fields as never), field).toThrow(text);
    }
  });
});

describe("write planning", () => {
  it("writes the last op of each key, in the place of the key's first", () => {
    const ops: StudioPutOperation[] = [
      { namespace: ["a"], key: "x", value: { v: 1 } },
      { namespace: ["b"], key: "y", value: { v: 2 } },
      { namespace: ["a"], key: "x", value: null },
    ];
    expect(latestPuts(ops)).toEqual([ops[2], ops[1]]);
  });

  it("opens a new namespace, stamps after what was read, keeps the created stamp", () => {
    const known = new NamespaceLog();
    known.add("m1", [{ op: "open", s: 5, w: "w1" }, put("kept", 40, { c: 7 })]);
    const logs = new Map([
      [JSON.stringify(["known"]), known],
      [JSON.stringify(["new"]), undefined],
    ]);
    const writes = planWrites(
      [
        {
          op: { namespace: ["known"], key: "kept", value: { v: 1 } },
          stored: { p: { value: { v: 1 } } },
          ttl: 2,
        },
        { op: { namespace: ["new"], key: "n", value: null }, stored: undefined, ttl: undefined },
        {
          op: { namespace: ["known"], key: "fresh", value: { v: 2 } },
          stored: { p: { value: { v: 2 } } },
          ttl: undefined,
        },
      ],
      logs,
      1_000,
      counter(),
    );
    expect(writes).toEqual([
      {
        namespace: ["known"],
        entries: [
          {
            op: "put",
            key: "kept",
            s: 41,
            w: "me",
            c: 7,
            e: 1_000 + 2 * MINUTE_MS,
            ttl: 2,
            p: { value: { v: 1 } },
          },
          { op: "put", key: "fresh", s: 43, w: "me", c: 43, p: { value: { v: 2 } } },
        ],
      },
      {
        namespace: ["new"],
        entries: [
          { op: "open", s: 42, w: "me" },
          { op: "del", key: "n", s: 42, w: "me" },
        ],
      },
    ]);
    expect(describeWrites(writes[0]!.entries)).toBe('2 writes (keys "kept", "fresh")');
    expect(describeWrites(writes[1]!.entries)).toBe('the write of key "n"');
  });
});

describe("TTL decisions", () => {
  it("a put's own TTL wins over the default, and null means none", () => {
    expect(putTtl(undefined, 10)).toBe(10);
    expect(putTtl(3, 10)).toBe(3);
    expect(putTtl(null, 10)).toBeUndefined();
    expect(expiryFields(undefined, 5)).toEqual({});
    expect(expiryFields(2, 5)).toEqual({ e: 5 + 2 * MINUTE_MS, ttl: 2 });
  });

  it("a read touches each returned item with a TTL once, one write per namespace", () => {
    const a = put("a", 1, { ttl: 1, e: 10 });
    const touches = planRefresh(
      [
        { namespace: ["n"], entry: a },
        { namespace: ["n"], entry: a },
        { namespace: ["n"], entry: put("forever", 2) },
        { namespace: ["m"], entry: put("b", 3, { ttl: 5, e: 10 }) },
      ],
      100,
    );
    expect(touches).toEqual([
      {
        namespace: ["n"],
        entries: [{ op: "touch", key: "a", of: { s: 1, w: "w1" }, e: 100 + MINUTE_MS }],
      },
      {
        namespace: ["m"],
        entries: [{ op: "touch", key: "b", of: { s: 3, w: "w1" }, e: 100 + 5 * MINUTE_MS }],
      },
    ]);
  });
});

describe("search planning", () => {
  it("answers from namespaces that hold items, in the order they got their first", () => {
    const late = new NamespaceLog();
    late.add("m", [{ op: "open", s: 9, w: "w" }]);
    const early = new NamespaceLog();
    early.add("m", [{ op: "open", s: 2, w: "w" }]);
    const unopened = new NamespaceLog();
    unopened.add("m", [{ op: "child", label: "x" }]);
    const order = searchOrder([
      { namespace: ["late"], log: late },
      { namespace: ["none"], log: unopened },
      { namespace: ["early"], log: early },
    ]);
    expect(order.map((node) => node.namespace)).toEqual([["early"], ["late"]]);
  });

  it("pages by offset and limit (10 by default), or ranks by the query's similarity", () => {
    const items = Array.from({ length: 12 }, (_, i) => ({
      namespace: ["n"],
      entry: put(`k${i}`, 1_000_000 * (i + 1)),
      payload: { value: { i } },
    }));
    expect(searchPage(items, {}, undefined)).toHaveLength(10);
    expect(
      searchPage(items, { offset: 10, limit: 5 }, undefined).map((s) => s.item.entry.key),
    ).toEqual(["k10", "k11"]);
    const [first] = searchPage(items, { limit: 1 }, [1, 0]);
    expect(first).toEqual({ item: items[0], score: undefined });
    expect(toItem(items[1]!)).toEqual({
      namespace: ["n"],
      key: "k1",
      value: { i: 1 },
      createdAt: new Date(2_000),
      updatedAt: new Date(2_000),
    });
  });
});

describe("operation checks", () => {
  it("classify a batch's operations and name the one at fault", () => {
    expect(
      classifyAll([
        { namespace: ["a"], key: "k" },
        { namespace: ["a"], key: "k", value: { v: 1 } },
        { namespacePrefix: ["a"] },
        { limit: 5 },
      ]).map((op) => op.kind),
    ).toEqual(["get", "put", "search", "list"]);
    expect(() => classifyAll("nope")).toThrow(expect.objectContaining({ field: "operations" }));
    expect(() => classifyAll([{ namespacePrefix: [], offset: -1 }])).toThrow(
      expect.objectContaining({ field: "operations[0].offset" }),
    );
  });
});
