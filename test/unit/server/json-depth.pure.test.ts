/** The JSON depth check read from the text: where it stops, and what it does not count. */
import { describe, expect, it } from "vitest";
import { tooDeepAt } from "../../../src/server/json-depth";

describe("tooDeepAt", () => {
  it("passes JSON within the limit, the top level counting as one", () => {
    expect(tooDeepAt('{"a":{"b":[1,2]}}', 3)).toBeUndefined();
    expect(tooDeepAt("[]", 1)).toBeUndefined();
    expect(tooDeepAt('"[[[[["', 1)).toBeUndefined();
  });

  it("names the path to the first container past the limit", () => {
    expect(tooDeepAt('{"a":{"b":[1,2]}}', 2)).toEqual(["a", "b"]);
    expect(tooDeepAt('{"x":1,"list":[0,{"k":[[]]}]}', 3)).toEqual(["list", 1, "k"]);
    expect(tooDeepAt('{"m":{"a\\"b":{}}}', 2)).toEqual(["m", 'a"b']);
  });

  it("does not count brackets or quotes inside strings", () => {
    expect(tooDeepAt('{"a":"[[{{\\"[[","b":{}}', 2)).toBeUndefined();
    expect(tooDeepAt('{"a\\\\":"x","b":{"c":[]}}', 2)).toEqual(["b", "c"]);
  });

  it("reads 100,000 levels without recursing", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(tooDeepAt(deep, 64)).toHaveLength(64);
    expect(tooDeepAt(deep, 100_001)).toBeUndefined();
  });
});
