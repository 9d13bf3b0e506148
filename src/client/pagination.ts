/**
 * The two paging styles of the interface, each walked in one place:
 * - `/v1` lists: `hasMore` + `after = lastId` (OpenAI-assistants style);
 * - remote-call lists: a Page object whose `nextPageToken` names the next page.
 * Both stop on a repeated cursor instead of looping forever on a misbehaving server.
 */
import type { ListResponse, Page, PageRequest } from "../api-types";
import { StudioResponseError, StudioValidationError } from "../errors";

/** Safety net: no listing in this interface legitimately needs more pages than this. */
const MAX_PAGES = 100_000;

/** The cursor for the next `/v1` page: `lastId`, else the id of the last item. */
function nextCursor<T>(page: ListResponse<T>): string | undefined {
  if (page.lastId) return page.lastId;
  const last = page.data[page.data.length - 1] as { id?: unknown } | undefined;
  return typeof last?.id === "string" ? last.id : undefined;
}

/** Every item of a `/v1` list, following `hasMore` with `after`. */
export async function* paginateList<T>(
  fetchPage: (after: string | undefined) => Promise<ListResponse<T>>,
  firstAfter: string | undefined,
  where: string,
): AsyncGenerator<T, void, undefined> {
  let after = firstAfter;
  const seen = new Set<string>();
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await fetchPage(after);
    yield* page.data;
    if (!page.hasMore || page.data.length === 0) return;
    const cursor = nextCursor(page);
    if (cursor === undefined) {
      throw new StudioResponseError("GET", where, "hasMore is true but the page has no lastId");
    }
    if (seen.has(cursor)) {
      throw new StudioResponseError("GET", where, `the cursor ${cursor} came back twice`);
    }
    seen.add(cursor);
    after = cursor;
  }
}

/** A complete Page object for a request (the spec requires all four fields). */
export function pageRequest(page: Partial<PageRequest> | undefined, limit = 20): PageRequest {
  return {
    limit: page?.limit ?? limit,
    prevPageToken: page?.prevPageToken ?? "",
    nextPageToken: page?.nextPageToken ?? "",
    totalPage: page?.totalPage ?? 0,
  };
}

/** Every item of a page-token list; stops when the answer has no page or an empty token. */
export async function* paginateTokens<T>(
  fetchPage: (token: string) => Promise<{ items: T[]; page?: Page | undefined }>,
  where: string,
): AsyncGenerator<T, void, undefined> {
  let token = "";
  const seen = new Set<string>();
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const { items, page } = await fetchPage(token);
    yield* items;
    const next = page?.nextPageToken;
    if (!next) return;
    if (seen.has(next)) {
      throw new StudioResponseError("POST", where, `the page token ${next} came back twice`);
    }
    seen.add(next);
    token = next;
  }
}

/** `limit` of the `/v1` lists: 1 to 100 (spec, list threads). */
export function checkLimit(field: string, limit: number | undefined): void {
  if (limit === undefined) return;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new StudioValidationError(field, `must be an integer from 1 to 100 (got ${limit})`);
  }
}

/** Page size of the page-token lists: a positive integer. */
export function checkPageSize(field: string, limit: number | undefined): void {
  if (limit === undefined) return;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new StudioValidationError(field, `must be a positive integer (got ${limit})`);
  }
}
