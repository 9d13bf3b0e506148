/**
 * The search's checks that need more than the schema, and `POST /threads/count` (the search's
 * filters, answered with how many threads match).
 */
import { readBody, type ServerContext, shownAll } from "../context";
import { HttpProblem, json } from "../http";
import { parseBody, ThreadCountSchema } from "../requests";
import { type RouteEntry, route } from "../router";
import { parseExtractPath } from "../thread-list";
import { searchThreads } from "../thread-view";

/**
 * A `values` filter is refused: the thread list keeps each thread's label values, not its state,
 * and reading every thread's state to filter would cost the checkpointer's reads per thread.
 */
export function refuseValuesFilter(values: Record<string, unknown> | null | undefined): void {
  if (!values || Object.keys(values).length === 0) return;
  throw new HttpProblem(
    422,
    "Unprocessable Entity",
    "values: the thread list keeps no state to filter on; filter by metadata instead " +
      "(set it with threads.update)",
  );
}

/** Each alias's path as steps, or a 422 naming the alias. */
export function extractPaths(
  extract: Record<string, string> | null | undefined,
): Record<string, (string | number)[]> | undefined {
  if (!extract) return undefined;
  const out: Record<string, (string | number)[]> = {};
  for (const [alias, path] of Object.entries(extract)) {
    const steps = parseExtractPath(path);
    if (typeof steps === "string") {
      throw new HttpProblem(422, "Unprocessable Entity", `extract.${alias}: ${steps}`);
    }
    out[alias] = steps;
  }
  return out;
}

export function threadCountRoutes(ctx: ServerContext): RouteEntry[] {
  return [
    route("POST", "/threads/count", async (request, owner) => {
      const body = parseBody(ThreadCountSchema, await readBody(ctx, request));
      refuseValuesFilter(body.values);
      const all = await shownAll(ctx, await ctx.records.list(owner));
      const { total } = searchThreads(all, {
        metadata: body.metadata ?? undefined,
        status: body.status ?? undefined,
        limit: 0,
        offset: 0,
        sortBy: "thread_id",
        sortOrder: "asc",
      });
      return json(total);
    }),
  ];
}
