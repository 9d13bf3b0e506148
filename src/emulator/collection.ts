/**
 * Items kept in creation order with cursor paging (`after`/`before` are item ids, as in OpenAI).
 *
 * Ids embed a zero-padded creation sequence, so id order is creation order and a cursor's position
 * is known from the id alone, even after that item was deleted between two page requests.
 */
import { invalid } from "./http-error";

export interface HasId {
  id: string;
}

export interface ListParams {
  limit: number;
  order: "asc" | "desc";
  after?: string | undefined;
  before?: string | undefined;
}

export interface ListPage<T> {
  object: "list";
  data: T[];
  firstId: string | null;
  lastId: string | null;
  hasMore: boolean;
}

export const SEQ_WIDTH = 10;

export function makeId(prefix: string, seq: number, random: string): string {
  return `${prefix}_${seq.toString(36).padStart(SEQ_WIDTH, "0")}${random}`;
}

export class Collection<T extends HasId> {
  private items: T[] = [];
  private readonly byId = new Map<string, T>();

  constructor(readonly idPrefix: string) {}

  get size(): number {
    return this.items.length;
  }

  get(id: string): T | undefined {
    return this.byId.get(id);
  }

  /** Ids grow monotonically, so appending keeps the array sorted; loads may arrive unsorted. */
  add(item: T): void {
    const last = this.items[this.items.length - 1];
    this.byId.set(item.id, item);
    if (last === undefined || last.id < item.id) {
      this.items.push(item);
    } else {
      this.items.splice(lowerBound(this.items, item.id), 0, item);
    }
  }

  remove(id: string): T | undefined {
    const item = this.byId.get(id);
    if (!item) return undefined;
    this.byId.delete(id);
    const at = lowerBound(this.items, id);
    if (this.items[at]?.id === id) this.items.splice(at, 1);
    return item;
  }

  all(): readonly T[] {
    return this.items;
  }

  clear(): void {
    this.items = [];
    this.byId.clear();
  }

  list(params: ListParams, filter?: (item: T) => boolean): ListPage<T> {
    this.checkCursor("after", params.after);
    this.checkCursor("before", params.before);
    return pageOf(filter ? this.items.filter(filter) : this.items, params);
  }

  private checkCursor(name: string, cursor: string | undefined): void {
    if (cursor === undefined) return;
    const prefix = `${this.idPrefix}_`;
    if (!cursor.startsWith(prefix) || cursor.length < prefix.length + SEQ_WIDTH) {
      throw invalid(
        name,
        `must be an id returned by this list (got ${JSON.stringify(cursor)})`,
        "invalid_cursor",
      );
    }
  }
}

/** One page of `sorted` (ascending by id) in the requested order. */
export function pageOf<T extends HasId>(sorted: readonly T[], params: ListParams): ListPage<T> {
  const { limit, order, after, before } = params;
  // [lo, hi) is the window between the cursors in ascending index terms.
  let lo = 0;
  let hi = sorted.length;
  if (order === "asc") {
    if (after !== undefined) lo = upperBound(sorted, after);
    if (before !== undefined) hi = lowerBound(sorted, before);
  } else {
    if (after !== undefined) hi = lowerBound(sorted, after);
    if (before !== undefined) lo = upperBound(sorted, before);
  }
  let data: T[];
  let hasMore: boolean;
  if (hi <= lo) {
    data = [];
    hasMore = false;
  } else {
    // A page starts next to `after` (or the list's start), or ends next to `before` when only
    // `before` is given; in descending order the list's start is its high end.
    const fromHigh = (order === "desc") !== (before !== undefined && after === undefined);
    const start = fromHigh ? Math.max(lo, hi - limit) : lo;
    const end = fromHigh ? hi : Math.min(hi, lo + limit);
    const slice = sorted.slice(start, end);
    data = order === "asc" ? slice : slice.reverse();
    hasMore = fromHigh ? start > lo : end < hi;
  }
  return {
    object: "list",
    data,
    firstId: data[0]?.id ?? null,
    lastId: data[data.length - 1]?.id ?? null,
    hasMore,
  };
}

function lowerBound<T extends HasId>(sorted: readonly T[], id: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]!.id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function upperBound<T extends HasId>(sorted: readonly T[], id: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]!.id <= id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
