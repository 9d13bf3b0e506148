/**
 * Page tokens of the remote-call style endpoints (models, dataset messages). Convention of
 * src/api-types.ts: a request's `nextPageToken` names the page to fetch ("" = the first page); a
 * response's `nextPageToken` names the following page ("" = this was the last).
 */
import { invalid } from "./http-error";
import { describe, isObject, type Json } from "./validate";

const PREFIX = "pt_";

export function encodePageToken(offset: number): string {
  return PREFIX + Buffer.from(`offset:${offset}`).toString("base64url");
}

export function decodePageToken(token: string, param: string): number {
  if (token === "") return 0;
  const decoded = token.startsWith(PREFIX)
    ? Buffer.from(token.slice(PREFIX.length), "base64url").toString()
    : "";
  const match = /^offset:(\d+)$/.exec(decoded);
  if (!match) {
    throw invalid(
      param,
      `is not a page token returned by this call (got ${describe(token)})`,
      "invalid_page_token",
    );
  }
  return Number(match[1]);
}

export interface PageRequestFields {
  limit: number;
  offset: number;
}

/**
 * Reads the Page object of a request. `requireAll` is the list-public-models rule: the spec marks
 * all four fields as required there.
 */
export function readPage(body: Json, requireAll: boolean, defaultLimit = 20): PageRequestFields {
  const page = body.page;
  if (page === undefined || page === null) {
    if (requireAll)
      throw invalid(
        "page",
        "is required (with limit, prevPageToken, nextPageToken, totalPage)",
        "missing_field",
      );
    return { limit: defaultLimit, offset: 0 };
  }
  if (!isObject(page)) throw invalid("page", `must be an object (got ${describe(page)})`);
  if (requireAll) {
    for (const field of ["limit", "prevPageToken", "nextPageToken", "totalPage"]) {
      if (page[field] === undefined || page[field] === null) {
        throw invalid(`page.${field}`, "is required", "missing_field");
      }
    }
  }
  const limit = page.limit ?? defaultLimit;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw invalid("page.limit", `must be an integer between 1 and 100 (got ${describe(limit)})`);
  }
  for (const field of ["prevPageToken", "nextPageToken"]) {
    const v = page[field];
    if (v !== undefined && v !== null && typeof v !== "string") {
      throw invalid(`page.${field}`, `must be a string (got ${describe(v)})`);
    }
  }
  const total = page.totalPage;
  if (
    total !== undefined &&
    total !== null &&
    (typeof total !== "number" || !Number.isInteger(total) || total < 0)
  ) {
    throw invalid("page.totalPage", `must be an integer >= 0 (got ${describe(total)})`);
  }
  const token = typeof page.nextPageToken === "string" ? page.nextPageToken : "";
  return { limit, offset: decodePageToken(token, "page.nextPageToken") };
}

/** The slice of `items` for a page request, and the response's Page object. */
export function pageSlice<T>(items: readonly T[], request: PageRequestFields) {
  const { limit, offset } = request;
  const end = Math.min(items.length, offset + limit);
  return {
    items: items.slice(offset, end),
    page: {
      limit,
      prevPageToken: offset > 0 ? encodePageToken(Math.max(0, offset - limit)) : "",
      nextPageToken: end < items.length ? encodePageToken(end) : "",
      totalPage: Math.ceil(items.length / limit),
    },
  };
}
