import { describe, expect, it } from "vitest";
import { StudioValidationError } from "../../../src/errors";
import {
  fixedPrefix,
  matchesCondition,
  matchesFilter,
  pickNamespaces,
  rankBySimilarity,
  textsAtPath,
  tokenizeFieldPath,
} from "../../../src/store/queries";

describe("matchesFilter", () => {
  const value = { n: 5, tag: "red", flag: false, meta: { a: [1, 2] }, text: "10" };

  it("takes values and the comparison operators on top-level fields", () => {
    const passes = [
      undefined,
      {},
      { tag: "red" },
      { n: { $gt: 4, $lte: 5 } },
      { n: { $gte: 5 } },
      { n: { $lt: 6 } },
      { text: { $gt: 9 } },
      { tag: { $ne: "blue" } },
      { tag: { $in: ["red", "green"] } },
      { tag: { $nin: ["blue"] } },
      { missing: { $ne: 1 } },
      { flag: false },
      { meta: { a: [1, 2] } },
      { meta: { $eq: { a: [1, 2] } } },
    ];
    for (const filter of passes)
      expect(matchesFilter(value, filter), JSON.stringify(filter)).toBe(true);
    const fails = [
      { tag: "blue" },
      { n: { $gt: 5 } },
      { n: { $in: 5 } },
      { tag: { $eq: "red" }, n: 4 },
      { missing: 1 },
      { meta: { a: [2, 1] } },
    ];
    for (const filter of fails)
      expect(matchesFilter(value, filter), JSON.stringify(filter)).toBe(false);
  });
});

describe("namespace conditions", () => {
  it("match prefixes and suffixes label by label, * matching any one label", () => {
    const ns = ["users", "42", "memories"];
    expect(matchesCondition(ns, { matchType: "prefix", path: ["users"] })).toBe(true);
    expect(matchesCondition(ns, { matchType: "prefix", path: ["users", "*", "memories"] })).toBe(
      true,
    );
    expect(matchesCondition(ns, { matchType: "prefix", path: ["user"] })).toBe(false);
    expect(matchesCondition(ns, { matchType: "suffix", path: ["*", "memories"] })).toBe(true);
    expect(matchesCondition(ns, { matchType: "suffix", path: ["42"] })).toBe(false);
    expect(matchesCondition(ns, { matchType: "suffix", path: [...ns, "x"] })).toBe(false);
    expect(() => matchesCondition(ns, { matchType: "infix" as "prefix", path: [] })).toThrow(
      StudioValidationError,
    );
  });

  it("start a listing at the prefix's labels before its first wildcard", () => {
    expect(fixedPrefix(undefined)).toEqual([]);
    expect(fixedPrefix([{ matchType: "suffix", path: ["x"] }])).toEqual([]);
    expect(fixedPrefix([{ matchType: "prefix", path: ["a", "b", "*", "c"] }])).toEqual(["a", "b"]);
  });

  it("pick, cut to maxDepth, merge, sort and page namespaces", () => {
    const all = [["b"], ["a", "x", "1"], ["a", "x", "2"], ["a", "y"], ["c", "x"]];
    expect(pickNamespaces(all, { limit: 100, offset: 0 })).toEqual([
      ["a", "x", "1"],
      ["a", "x", "2"],
      ["a", "y"],
      ["b"],
      ["c", "x"],
    ]);
    expect(pickNamespaces(all, { maxDepth: 2, limit: 100, offset: 0 })).toEqual([
      ["a", "x"],
      ["a", "y"],
      ["b"],
      ["c", "x"],
    ]);
    const suffixX = [{ matchType: "suffix" as const, path: ["x"] }];
    expect(pickNamespaces(all, { matchConditions: suffixX, limit: 100, offset: 0 })).toEqual([
      ["c", "x"],
    ]);
    expect(pickNamespaces(all, { limit: 2, offset: 1 })).toEqual([
      ["a", "x", "2"],
      ["a", "y"],
    ]);
  });
});

describe("textsAtPath", () => {
  const value = {
    title: "Notes",
    n: 3,
    tags: ["a", "b", "c"],
    sections: [{ body: "one" }, { body: "two", extra: { k: 1 } }],
    meta: { author: "Ada", year: 1843 },
  };

  it("reads the texts InMemoryStore embeds", () => {
    expect(textsAtPath(value, "$")).toEqual([JSON.stringify(value, null, 2)]);
    expect(textsAtPath(value, "title")).toEqual(["Notes"]);
    expect(textsAtPath(value, "n")).toEqual(["3"]);
    expect(textsAtPath(value, "tags[*]")).toEqual(["a", "b", "c"]);
    expect(textsAtPath(value, "tags[-1]")).toEqual(["c"]);
    expect(textsAtPath(value, "tags[7]")).toEqual([]);
    expect(textsAtPath(value, "sections[*].body")).toEqual(["one", "two"]);
    expect(textsAtPath(value, "sections[1].extra")).toEqual([JSON.stringify({ k: 1 }, null, 2)]);
    expect(textsAtPath(value, "meta.*")).toEqual(["Ada", "1843"]);
    expect(textsAtPath(value, "meta.{author, year}")).toEqual(["Ada", "1843"]);
    expect(textsAtPath(value, "missing.field")).toEqual([]);
  });

  it("splits paths into fields, indexes and field groups", () => {
    expect(tokenizeFieldPath("a.b[0].{c,d.e}")).toEqual(["a", "b", "[0]", "{c,d.e}"]);
  });
});

describe("rankBySimilarity", () => {
  const candidates = [
    { item: "far", vectors: [[0, 1]] },
    { item: "none", vectors: [] },
    { item: "near", vectors: [[1, 0.1]] },
    {
      item: "two",
      vectors: [
        [0, 1],
        [1, 0],
      ],
    },
  ];

  it("ranks by each item's best vector, pages over distinct items, fills with unscored ones", () => {
    const page = rankBySimilarity(candidates, [1, 0], 0, 10);
    expect(page.map((p) => p.item)).toEqual(["two", "near", "far", "none"]);
    expect(page[0]!.score).toBe(1);
    expect(page[3]!.score).toBeUndefined();
    expect(rankBySimilarity(candidates, [1, 0], 1, 1).map((p) => p.item)).toEqual(["near"]);
    expect(rankBySimilarity(candidates, [0, 0], 0, 2).map((p) => p.score)).toEqual([0, 0]);
  });
});
