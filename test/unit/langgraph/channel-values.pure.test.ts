import { compareChannelVersions, maxChannelVersion } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import {
  appendedItems,
  chainedItems,
  mayAppend,
  nextVersion,
  READ_WINDOW,
  splicedItems,
  withItems,
  withinReadWindow,
} from "../../../src/langgraph/channel-values";

describe("nextVersion", () => {
  it("counts up from numbers and from its own strings, in an order LangGraph compares right", () => {
    const first = nextVersion(undefined);
    expect(first).toMatch(/^0{15}1\.[0-9a-f]{12}$/);
    const second = nextVersion(first);
    expect(second.startsWith("0000000000000002.")).toBe(true);
    expect(nextVersion(41).startsWith("0000000000000042.")).toBe(true);
    let version = first;
    for (let i = 0; i < 12; i++) version = nextVersion(version);
    // 10 > 9 as LangGraph compares string versions (localeCompare), thanks to the padding.
    expect(compareChannelVersions(version, nextVersion(9))).toBe(1);
    expect(maxChannelVersion(first, version, second)).toBe(version);
  });

  it("gives two branches that continue from one version two different versions", () => {
    const versions = new Set(
      Array.from({ length: 1_000 }, () => nextVersion("0000000000000003.aa")),
    );
    expect(versions.size).toBe(1_000);
  });
});

describe("appendedItems / withItems", () => {
  it("finds the items appended at the end of a JSON list, and puts them back", () => {
    const base = JSON.stringify([{ a: 1 }, "b"]);
    const next = JSON.stringify([{ a: 1 }, "b", [3], { d: "e,]" }]);
    const items = appendedItems(base, next);
    expect(items).toBe(JSON.stringify([[3], { d: "e,]" }]));
    expect(withItems(base, [items!])).toBe(next);
    expect(withItems(base, ['["x"]', "[1,2]"])).toBe(JSON.stringify([{ a: 1 }, "b", "x", 1, 2]));
  });

  it("refuses anything that is not the same list with items added at the end", () => {
    expect(appendedItems("[1,2]", "[1,2]")).toBeUndefined();
    expect(appendedItems("[1,2]", "[1,20]")).toBeUndefined();
    expect(appendedItems("[1,2]", "[0,1,2]")).toBeUndefined();
    expect(appendedItems('["ab"]', '["abc"]')).toBeUndefined();
    expect(appendedItems("[1,2]", "[1]")).toBeUndefined();
    expect(appendedItems("[]", "[1]")).toBeUndefined();
    expect(appendedItems('{"a":1}', '{"a":1,"b":2}')).toBeUndefined();
  });
});

describe("the read window", () => {
  const chain = (position: number, offset: number, rootChars = 1_000, sinceRootChars = 0) => ({
    root: { position, offset },
    rootChars,
    sinceRootChars,
  });

  it("holds a whole copy few enough messages and characters back", () => {
    const now = { position: 500, offset: 200_000 };
    expect(withinReadWindow(chain(500 - READ_WINDOW.messages + 1, 150_000), now, 10_000)).toBe(
      true,
    );
    expect(withinReadWindow(chain(500 - READ_WINDOW.messages, 150_000), now, 10_000)).toBe(false);
    // Characters written after the copy count, the copy itself does not.
    const big = 100_000;
    expect(withinReadWindow(chain(490, now.offset - big - 1_000, big), now, 10_000)).toBe(true);
    expect(withinReadWindow(chain(490, 0, 1_000), now, 10_000)).toBe(false);
    // A large checkpoint may be that far back: a reader reads it whole anyway.
    expect(withinReadWindow(chain(490, 0, 1_000), now, 300_000)).toBe(true);
  });

  it("lets appended parts grow to the size of their whole copy, then asks for a new copy", () => {
    const now = { position: 10, offset: 5_000 };
    expect(mayAppend(chain(5, 0, 1_000, 900), 100, now, 2_000)).toBe(true);
    expect(mayAppend(chain(5, 0, 1_000, 900), 101, now, 2_000)).toBe(false);
    expect(mayAppend(chain(10 - READ_WINDOW.messages, 0, 1_000, 0), 1, now, 2_000)).toBe(false);
  });
});

describe("splicedItems / chainedItems", () => {
  it("keeps the first items that did not change and stores the rest (a tool turn's rewritten message)", () => {
    const tool = { type: "tool", artifact: { lc: 2, type: "undefined" }, content: "sunny" };
    const base = JSON.stringify(["question", { calls: [1] }, tool]);
    const rewritten = { type: "tool", content: "sunny", metadata: { v: 1 } };
    const next = JSON.stringify(["question", { calls: [1] }, rewritten, "answer"]);
    expect(appendedItems(base, next)).toBeUndefined();
    const spliced = splicedItems(base, next);
    expect(spliced).toEqual({
      keepChars: JSON.stringify(["question", { calls: [1] }]).length - 1,
      items: JSON.stringify([rewritten, "answer"]),
    });
    expect(chainedItems(base, [spliced!])).toBe(next);
    // Nothing kept, or nothing added after the kept items: not a splice (stored whole).
    expect(splicedItems(base, JSON.stringify(["other", "answer"]))).toBeUndefined();
    expect(splicedItems(base, JSON.stringify(["question"]))).toBeUndefined();
  });

  it("rebuilds a chain of appends and splices as applying them one by one does", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 50; round++) {
      let list: unknown[] = [{ id: 0, text: "root" }];
      const root = JSON.stringify(list);
      const links: { items: string; keepChars?: number }[] = [];
      for (let step = 0; step < 12; step++) {
        const before = JSON.stringify(list);
        const keep = random() < 0.5 ? list.length : 1 + Math.floor(random() * list.length);
        const added = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, i) => ({
          id: `${step}-${i}`,
          text: "x,]".repeat(Math.floor(random() * 4)),
        }));
        list = [...list.slice(0, keep), ...added];
        const after = JSON.stringify(list);
        const link =
          keep === list.length - added.length && appendedItems(before, after) !== undefined
            ? { items: appendedItems(before, after)! }
            : splicedItems(before, after)!;
        expect(link).toBeDefined();
        links.push(link);
        expect(chainedItems(root, links)).toBe(after);
      }
    }
  });
});
