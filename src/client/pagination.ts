/**
 * The two paging styles of the interface, each walked in one place:
 * - `/v1` lists: `hasMore` + `after = lastId` (OpenAI-assistants style);
 * - remote-call lists: a Page object whose `nextPageToken` names the next page.
 *
 * A misbehaving server must not make a listing loop: a cursor that comes back (any cursor seen
 * before, not only the last one), `EMPTY_PAGES_LIMIT` empty pages in a row that still say there
 * is more, or more than `MAX_PAGES` pages raise a `StudioResponseError` naming the call and what
 * repeated. Nothing is cut short without a word.
 */
import type { ListResponse, Page, PageRequest } from "../api-types";
import { StudioResponseError, StudioValidationError } from "../errors";

/** Safety net: no listing in this interface legitimately needs more pages than this. */
const MAX_PAGES = 100_000;
/** Empty pages in a row that may still promise more (a filtering server can send a few). */
export const EMPTY_PAGES_LIMIT = 3;

/** Which listing is being walked, for the errors. */
export interface PagedCall {
  /** The client method, e.g. `iterateThreads`. */
  readonly name: string;
  readonly method: "GET" | "POST";
  readonly path: string;
}

/** Cursors are server text; a long one is cut so the message stays readable. */
function shown(cursor: string): string {
  return JSON.stringify(cursor.length > 80 ? `${cursor.slice(0, 80)}...` : cursor);
}

/** Counts pages and empty pages in a row, and remembers cursors; raises when a listing loops. */
class LoopGuard {
  readonly #call: PagedCall;
  readonly #kind: string;
  readonly #seen = new Set<string>();
  #pages = 0;
  #emptyInARow = 0;

  constructor(call: PagedCall, kind: string, first: string | undefined) {
    this.#call = call;
    this.#kind = kind;
    if (first) this.#seen.add(first);
  }

  #fail(detail: string): StudioResponseError {
    return new StudioResponseError(
      this.#call.method,
      this.#call.path,
      `${this.#call.name} stopped after ${this.#pages} page(s): ${detail}. The server's paging ` +
        "is broken; the items so far were returned.",
    );
  }

  /** Called with each page that promises more, before following `cursor`. */
  next(itemCount: number, cursor: string): void {
    this.#pages++;
    this.#emptyInARow = itemCount === 0 ? this.#emptyInARow + 1 : 0;
    if (this.#emptyInARow >= EMPTY_PAGES_LIMIT) {
      throw this.#fail(
        `${this.#emptyInARow} empty pages in a row still said there was more (last ` +
          `${this.#kind} ${shown(cursor)})`,
      );
    }
    if (this.#seen.has(cursor)) {
      throw this.#fail(`the ${this.#kind} ${shown(cursor)} came back twice`);
    }
    if (this.#pages >= MAX_PAGES) throw this.#fail(`more than ${MAX_PAGES} pages`);
    this.#seen.add(cursor);
  }

  /** A page that promises more but names no way to get it. */
  noCursor(detail: string): StudioResponseError {
    this.#pages++;
    return this.#fail(detail);
  }
}

/** The cursor for the next `/v1` page: `lastId`, else the id of the last item. */
function nextCursor<T>(page: ListResponse<T>): string | undefined {
  if (page.lastId) return page.lastId;
  const last = page.data[page.data.length - 1] as { id?: unknown } | undefined;
  return typeof last?.id === "string" && last.id !== "" ? last.id : undefined;
}

/** Every item of a `/v1` list, following `hasMore` with `after`. */
export async function* paginateList<T>(
  fetchPage: (after: string | undefined) => Promise<ListResponse<T>>,
  firstAfter: string | undefined,
  call: PagedCall,
): AsyncGenerator<T, void, undefined> {
  const guard = new LoopGuard(call, "cursor (lastId)", firstAfter);
  let after = firstAfter;
  for (;;) {
    const page = await fetchPage(after);
    yield* page.data;
    if (!page.hasMore) return;
    const cursor = nextCursor(page);
    if (cursor === undefined) {
      throw guard.noCursor(
        `hasMore is true but the ${page.data.length === 0 ? "empty " : ""}page has no lastId ` +
          "(nor an item id) to continue from",
      );
    }
    guard.next(page.data.length, cursor);
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
  call: PagedCall,
): AsyncGenerator<T, void, undefined> {
  const guard = new LoopGuard(call, "page token (nextPageToken)", undefined);
  let token = "";
  for (;;) {
    const { items, page } = await fetchPage(token);
    yield* items;
    const next = page?.nextPageToken;
    if (!next) return;
    guard.next(items.length, next);
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
