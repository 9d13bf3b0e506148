import type { ListParams } from "./collection";
import { invalid } from "./http-error";
import { describe } from "./validate";

/**
 * Reads `limit` (1-100, default 20), `order` (asc/desc), `after` and `before` from a query string.
 * Message lists default to `desc`, as services of this family often do, so a client that forgets
 * to send `order` (the notes say: always send it) is caught by its own tests.
 */
export function readListQuery(
  query: Record<string, string>,
  defaultOrder: "asc" | "desc",
): ListParams {
  let limit = 20;
  if (query.limit !== undefined) {
    const n = Number(query.limit);
    if (query.limit.trim() === "" || !Number.isInteger(n) || n < 1 || n > 100) {
      throw invalid("limit", `must be an integer between 1 and 100 (got ${describe(query.limit)})`);
    }
    limit = n;
  }
  const order = query.order ?? defaultOrder;
  if (order !== "asc" && order !== "desc") {
    throw invalid("order", `must be "asc" or "desc" (got ${describe(order)})`);
  }
  return { limit, order, after: nonEmpty(query.after), before: nonEmpty(query.before) };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
