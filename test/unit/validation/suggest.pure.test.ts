/**
 * The kit's pure parts: the nested field names every error uses, and which known name a
 * misspelt one is taken for (close ones only: a suggestion that is wrong is worse than none).
 */
import { describe, expect, it } from "vitest";
import { closestName, editDistance, fieldPath, unknownKeyMessage } from "../../../src/validation";

describe("fieldPath", () => {
  it.each([
    [["ttl", "defaultTTL"], "ttl.defaultTTL"],
    [["messages", 2, "content"], "messages[2].content"],
    [[0, "key"], "[0].key"],
    [["keys", "k1"], "keys.k1"],
  ] as const)("%j -> %s", (path, field) => {
    expect(fieldPath(path)).toBe(field);
  });

  it("puts a path under a prefix", () => {
    expect(fieldPath(["limit"], "operations[3]")).toBe("operations[3].limit");
  });
});

describe("editDistance", () => {
  it.each([
    ["maxToken", "maxTokens", 1],
    ["tll", "ttl", 1],
    ["kitten", "sitting", 3],
    ["", "abc", 3],
    ["same", "same", 0],
  ] as const)("%s / %s: %i", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });
});

describe("closestName", () => {
  const known = ["maxTokens", "temperature", "topP", "model", "modelKwargs", "maxAgeMs", "ttl"];

  it.each([
    ["maxToken", "maxTokens"],
    ["MAXTOKENS", "maxTokens"],
    ["temprature", "temperature"],
    ["tll", "ttl"],
    ["maxAge", "maxAgeMs"],
    ["modelName", "model"],
    ["topp", "topP"],
  ])("%s -> %s", (name, close) => {
    expect(closestName(name, known)).toBe(close);
  });

  it.each(["colour", "foo", "x", "stream", "signal"])("%s: no known name is close", (name) => {
    expect(closestName(name, known)).toBeUndefined();
  });

  it("without prefixes, a longer name is not taken for its start", () => {
    expect(closestName("modelName", known, { prefixes: false })).toBeUndefined();
  });
});

describe("unknownKeyMessage", () => {
  const spec = { owner: "Thing", known: ["alpha", "beta"], hints: { gamma: "use beta" } };

  it("suggests, hints or lists", () => {
    expect(unknownKeyMessage("alpah", spec)).toBe('is not a Thing option; did you mean "alpha"?');
    expect(unknownKeyMessage("gamma", spec)).toBe("is not a Thing option; use beta");
    expect(unknownKeyMessage("zzz", spec)).toBe("is not a Thing option (known: alpha, beta)");
    expect(unknownKeyMessage("zzz", { ...spec, owner: "Item" })).toBe(
      "is not an Item option (known: alpha, beta)",
    );
  });
});
