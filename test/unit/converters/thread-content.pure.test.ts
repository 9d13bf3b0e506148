import { describe, expect, it } from "vitest";
import type { ContentItem } from "../../../src/api-types";
import {
  foreignContent,
  restoreContent,
  splitContent,
} from "../../../src/converters/thread-content";

/** What a server sends back for the items it was given; `valueForm` uses `{ value }` texts. */
function served(items: ReturnType<typeof splitContent>["items"], valueForm = false): ContentItem[] {
  return items.map((item) =>
    valueForm && item.text !== undefined ? { ...item, text: { value: item.text } } : { ...item },
  );
}

describe("splitContent", () => {
  it("moves a string into one text item and stores nothing", () => {
    expect(splitContent("hello")).toEqual({
      items: [{ type: "text", text: "hello" }],
      stored: undefined,
      refs: [],
    });
  });

  it("keeps an empty string in the record, not as an empty item", () => {
    expect(splitContent("")).toEqual({ items: [], stored: "", refs: [] });
  });

  it("moves text and image urls of blocks into items, leaving null in their place", () => {
    const content = [
      { type: "text", text: "look", cache_control: { type: "ephemeral" } },
      { type: "image_url", image_url: { url: "https://x/cat.png", detail: "high" } },
      { type: "image_url", image_url: "https://x/dog.png" },
      { type: "image", url: "https://x/cow.png", mimeType: "image/png" },
      { type: "reasoning", reasoning: "hmm" },
      { type: "text", text: "" },
    ];
    const split = splitContent(content);
    expect(split.items).toEqual([
      { type: "text", text: "look" },
      { type: "image_url", imageUrl: { url: "https://x/cat.png", detail: "high" } },
      { type: "image_url", imageUrl: { url: "https://x/dog.png" } },
      { type: "image_url", imageUrl: { url: "https://x/cow.png" } },
    ]);
    expect(split.refs).toEqual([
      [0, "text"],
      [1, "image_url.url"],
      [2, "image_url"],
      [3, "url"],
    ]);
    expect(JSON.stringify(split.stored)).not.toContain("look");
    expect(JSON.stringify(split.stored)).not.toContain("cat.png");
    expect(restoreContent(split.stored, split.refs, served(split.items, true))).toEqual(content);
  });
});

describe("restoreContent", () => {
  it("joins the text items when the content was a plain string", () => {
    expect(restoreContent(undefined, [], [{ type: "text", text: { value: "hi" } }])).toBe("hi");
  });

  it("fails clearly when an item the refs need is missing or of the wrong kind", () => {
    expect(() => restoreContent([{ type: "text", text: null }], [[0, "text"]], [])).toThrow(
      /content item is missing/,
    );
    expect(() =>
      restoreContent(
        [{ type: "text", text: null }],
        [[0, "text"]],
        [{ type: "image_url", imageUrl: { url: "u" } }],
      ),
    ).toThrow(/expected a text item/);
  });
});

describe("foreignContent", () => {
  it("reads a single text item, in either form, as a string", () => {
    expect(foreignContent([{ type: "text", text: "plain" }])).toBe("plain");
    expect(foreignContent([{ type: "text", text: { value: "boxed" } }])).toBe("boxed");
    expect(foreignContent([])).toBe("");
  });

  it("reads several items as blocks, images included", () => {
    expect(
      foreignContent([
        { type: "text", text: { value: "see" } },
        { type: "image_url", imageUrl: { url: "https://x/a.png", detail: "low" } },
        { type: "image_file", imageFile: { fileId: "file_1" } },
        { type: "audio", audio: "?" } as ContentItem,
      ]),
    ).toEqual([
      { type: "text", text: "see" },
      { type: "image_url", image_url: { url: "https://x/a.png", detail: "low" } },
      { type: "image", fileId: "file_1" },
      { type: "non_standard", value: { type: "audio", audio: "?" } },
    ]);
  });
});
