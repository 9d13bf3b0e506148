/**
 * Search planning, pure: which namespaces a search answers from and in which order, and the page
 * it returns of the items that passed its filter, as InMemoryStore pages and ranks them.
 */
import type { Item } from "@langchain/langgraph-checkpoint";
import { rankBySimilarity, type Scored } from "./queries";
import {
  compareStamps,
  decodeVector,
  type NamespaceLog,
  type Payload,
  type PutEntry,
} from "./records";

export const DEFAULT_SEARCH_LIMIT = 10;

/** An item as read: where it is, the put that holds it, and what that put stores. */
export interface ReadItem {
  namespace: string[];
  entry: PutEntry;
  payload: Payload;
}

/**
 * The namespaces that hold items, in InMemoryStore's order: as they got their first item (items
 * within each are then in the order they were created, `NamespaceLog.liveItems`).
 */
export function searchOrder<T extends { log: NamespaceLog }>(nodes: readonly T[]): T[] {
  return nodes
    .filter((node) => node.log.opened !== undefined)
    .sort((a, b) => compareStamps(a.log.opened!, b.log.opened!));
}

/**
 * The page a search returns of `candidates` (the items that passed its filter, in search order):
 * from `offset`, at most `limit`, ranked by similarity when the search has a query vector.
 */
export function searchPage(
  candidates: readonly ReadItem[],
  page: { offset?: number | undefined; limit?: number | undefined },
  query: readonly number[] | undefined,
): Scored<ReadItem>[] {
  const offset = page.offset ?? 0;
  const limit = page.limit ?? DEFAULT_SEARCH_LIMIT;
  if (query === undefined) {
    return candidates.slice(offset, offset + limit).map((item) => ({ item, score: undefined }));
  }
  const withVectors = candidates.map((item) => ({
    item,
    vectors: Object.values(item.payload.vectors ?? {}).map(decodeVector),
  }));
  return rankBySimilarity(withVectors, query, offset, limit);
}

/** The item LangGraph returns (dates from the stamps, which are microseconds). */
export function toItem({ namespace, entry, payload }: ReadItem): Item {
  return {
    namespace: [...namespace],
    key: entry.key,
    value: payload.value,
    createdAt: new Date(Math.floor(entry.c / 1000)),
    updatedAt: new Date(Math.floor(entry.s / 1000)),
  };
}
