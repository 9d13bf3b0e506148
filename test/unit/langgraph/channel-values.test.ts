import { compareChannelVersions, maxChannelVersion } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import {
  appendedItems,
  mayAppend,
  nextVersion,
  READ_WINDOW,
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
