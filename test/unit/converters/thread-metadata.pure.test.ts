import { describe, expect, it } from "vitest";
import { CODEC_KEYS, dataEntries, readDataEntries } from "../../../src/records/history-message";
import { splitText } from "../../../src/records/parts";

describe("splitText", () => {
  it("cuts into pieces of at most the given size and joins back", () => {
    const text = "x".repeat(1030);
    const pieces = splitText(text, 512);
    expect(pieces.map((p) => p.length)).toEqual([512, 512, 6]);
    expect(pieces.join("")).toBe(text);
  });

  it("never separates the two halves of a surrogate pair", () => {
    const text = `${"a".repeat(511)}😀${"b".repeat(10)}`;
    const pieces = splitText(text, 512);
    expect(pieces[0]).toBe("a".repeat(511));
    expect(pieces[1]?.startsWith("😀")).toBe(true);
    expect(pieces.join("")).toBe(text);
  });

  it("returns nothing for an empty text", () => {
    expect(splitText("")).toEqual([]);
  });
});

describe("dataEntries / readDataEntries", () => {
  it("numbers the pieces from 0 and reads them back", () => {
    const text = "y".repeat(1200);
    const entries = dataEntries(text);
    expect(Object.keys(entries)).toEqual([
      `${CODEC_KEYS.dataPrefix}0`,
      `${CODEC_KEYS.dataPrefix}1`,
      `${CODEC_KEYS.dataPrefix}2`,
    ]);
    expect(readDataEntries({ other: "z", ...entries })).toBe(text);
  });

  it("reads undefined when there are no pieces", () => {
    expect(readDataEntries({ lc_type: "human" })).toBeUndefined();
  });

  it("refuses a record with a missing piece", () => {
    const entries = dataEntries("y".repeat(1200));
    delete entries[`${CODEC_KEYS.dataPrefix}1`];
    expect(() => readDataEntries(entries)).toThrow(/lc_data_1 is missing/);
  });
});
