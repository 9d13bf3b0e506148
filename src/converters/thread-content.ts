/**
 * Two-way conversion between LangChain message content and thread content items.
 *
 * Thread content items are what people read in the service's dashboard, and unlike metadata they
 * have no size limit. So the readable parts of a message (text, image urls) are moved into items,
 * and the rest of the content stays in the message's metadata record with a `null` left where
 * each moved value was. `refs` says, in item order, which value each item fills back in, so the
 * content comes back exactly, key order included.
 */
import type { ContentItem, ContentItemInput } from "../api-types";
import { contentItemText } from "../api-types";

/** Where a value moved into a content item sits inside its content block. */
export type ContentRefPath = "text" | "image_url" | "image_url.url" | "url";

/** `[blockIndex, path]`: the n-th content item fills `content[blockIndex]` at `path`. */
export type ContentRef = [number, ContentRefPath];

export interface SplitContent {
  /** What is sent as the thread message's content (may be empty; see `placeholder`). */
  items: ContentItemInput[];
  /**
   * What the metadata record keeps. `undefined` means the content is a string equal to the text
   * of the items, so it is not stored twice.
   */
  stored: string | unknown[] | undefined;
  refs: ContentRef[];
}

type Block = Record<string, unknown>;

function isBlock(value: unknown): value is Block {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

/**
 * Splits message content into readable items and the remainder to keep in metadata.
 * Empty strings are never moved: a service may drop or reject an empty text item, and a missing
 * item would shift every later ref.
 */
export function splitContent(content: unknown): SplitContent {
  if (typeof content === "string") {
    return content.length > 0
      ? { items: [{ type: "text", text: content }], stored: undefined, refs: [] }
      : { items: [], stored: "", refs: [] };
  }
  if (!Array.isArray(content)) return { items: [], stored: "", refs: [] };

  const items: ContentItemInput[] = [];
  const refs: ContentRef[] = [];
  const stored = content.map((block: unknown, index) => {
    if (!isBlock(block)) return block;
    if (block.type === "text" && nonEmptyString(block.text)) {
      items.push({ type: "text", text: block.text });
      refs.push([index, "text"]);
      return { ...block, text: null };
    }
    if (block.type === "image_url") {
      const imageUrl = block.image_url;
      if (nonEmptyString(imageUrl)) {
        items.push({ type: "image_url", imageUrl: { url: imageUrl } });
        refs.push([index, "image_url"]);
        return { ...block, image_url: null };
      }
      if (isBlock(imageUrl) && nonEmptyString(imageUrl.url)) {
        const detail = typeof imageUrl.detail === "string" ? imageUrl.detail : undefined;
        items.push({
          type: "image_url",
          imageUrl: detail === undefined ? { url: imageUrl.url } : { url: imageUrl.url, detail },
        });
        refs.push([index, "image_url.url"]);
        return { ...block, image_url: { ...imageUrl, url: null } };
      }
    }
    if (block.type === "image" && nonEmptyString(block.url)) {
      items.push({ type: "image_url", imageUrl: { url: block.url } });
      refs.push([index, "url"]);
      return { ...block, url: null };
    }
    return block;
  });
  return { items, stored, refs };
}

/** Why restoring failed; the caller adds where (which thread message). */
export class ContentRestoreError extends Error {}

function itemValue(item: ContentItem | undefined, path: ContentRefPath): string {
  if (item === undefined) throw new ContentRestoreError("a content item is missing");
  if (path === "text") {
    const text = contentItemText(item);
    if (item.type !== "text" || text === undefined) {
      throw new ContentRestoreError(`expected a text item, found "${item.type}"`);
    }
    return text;
  }
  const url = item.imageUrl?.url;
  if (url === undefined) {
    throw new ContentRestoreError(`expected an image_url item, found "${item.type}"`);
  }
  return url;
}

/** Inverse of `splitContent`, given what the server returned as the message's items. */
export function restoreContent(
  stored: unknown,
  refs: readonly ContentRef[],
  items: readonly ContentItem[],
): string | unknown[] {
  if (stored === undefined) {
    return items
      .map((item) => (item.type === "text" ? (contentItemText(item) ?? "") : ""))
      .join("");
  }
  if (typeof stored === "string") return stored;
  if (!Array.isArray(stored)) throw new ContentRestoreError("stored content is not an array");
  const blocks = [...stored];
  refs.forEach(([index, path], n) => {
    const value = itemValue(items[n], path);
    const block = blocks[index];
    if (!isBlock(block)) throw new ContentRestoreError(`content block ${index} is missing`);
    if (path === "image_url.url") {
      const inner = block.image_url;
      if (!isBlock(inner)) throw new ContentRestoreError(`content block ${index} lost image_url`);
      blocks[index] = { ...block, image_url: { ...inner, url: value } };
    } else {
      blocks[index] = { ...block, [path]: value };
    }
  });
  return blocks;
}

/**
 * Content of a message written by someone else (no codec metadata): a single text item reads as a
 * string, anything else as content blocks.
 */
export function foreignContent(items: readonly ContentItem[]): string | unknown[] {
  if (items.length === 0) return "";
  const only = items[0];
  if (items.length === 1 && only?.type === "text") return contentItemText(only) ?? "";
  return items.map((item): unknown => {
    if (item.type === "text") return { type: "text", text: contentItemText(item) ?? "" };
    if (item.type === "image_url" && item.imageUrl) {
      const { url, detail } = item.imageUrl;
      return { type: "image_url", image_url: detail === undefined ? { url } : { url, detail } };
    }
    if (item.type === "image_file" && item.imageFile) {
      return { type: "image", fileId: item.imageFile.fileId };
    }
    // Kept whole so nothing the service sent is lost; LangChain's own escape hatch for it.
    return { type: "non_standard", value: item };
  });
}

/**
 * Lone surrogates (half of a UTF-16 pair, without the other half) are not Unicode: a service that
 * stores text as UTF-8 turns each into U+FFFD. Metadata survives (its JSON escapes them), but
 * content items do not, so the codec writes such a text item escaped and lists it in the record's
 * `esc`: every `\` becomes `\\` and every lone surrogate `\uXXXX`, which reads back exactly.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const TO_ESCAPE = new RegExp(`\\\\|${LONE_SURROGATE.source}`, "g");
const ESCAPED = /\\(\\|u[0-9a-f]{4})/g;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

export function escapeLoneSurrogates(text: string): string {
  return text.replace(TO_ESCAPE, (match) =>
    match === "\\" ? "\\\\" : `\\u${match.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

export function unescapeLoneSurrogates(text: string): string {
  return text.replace(ESCAPED, (_, code: string) =>
    code === "\\" ? "\\" : String.fromCharCode(Number.parseInt(code.slice(1), 16)),
  );
}
