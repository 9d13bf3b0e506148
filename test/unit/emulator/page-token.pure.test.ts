import { describe, expect, it } from "vitest";
import {
  decodePageToken,
  encodePageToken,
  pageSlice,
  readPage,
} from "../../../src/emulator/page-token";

describe("page tokens", () => {
  it("round-trip offsets; empty means the first page", () => {
    for (const offset of [0, 1, 20, 12345])
      expect(decodePageToken(encodePageToken(offset), "p")).toBe(offset);
    expect(decodePageToken("", "p")).toBe(0);
    expect(() => decodePageToken("pt_garbage", "page.nextPageToken")).toThrow(
      /page.nextPageToken is not a page token/,
    );
  });

  it("slices pages with prev/next tokens and the page count", () => {
    const items = [1, 2, 3, 4, 5];
    const first = pageSlice(items, { limit: 2, offset: 0 });
    expect(first.items).toEqual([1, 2]);
    expect(first.page).toMatchObject({ limit: 2, prevPageToken: "", totalPage: 3 });
    const last = pageSlice(items, {
      limit: 2,
      offset: decodePageToken(first.page.nextPageToken, "p") + 2,
    });
    expect(last.items).toEqual([5]);
    expect(last.page.nextPageToken).toBe("");
    expect(decodePageToken(last.page.prevPageToken, "p")).toBe(2);
  });

  it("reads the Page object, requiring all four fields when asked", () => {
    expect(
      readPage({ page: { limit: 5, prevPageToken: "", nextPageToken: "", totalPage: 0 } }, true),
    ).toEqual({ limit: 5, offset: 0 });
    expect(() =>
      readPage({ page: { limit: 5, prevPageToken: "", nextPageToken: "" } }, true),
    ).toThrow(/page.totalPage is required/);
    expect(readPage({}, false)).toEqual({ limit: 20, offset: 0 });
    expect(() => readPage({ page: { limit: 5, totalPage: -1 } }, false)).toThrow(/page.totalPage/);
  });
});
