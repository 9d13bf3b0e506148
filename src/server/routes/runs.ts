/**
 * Run routes: start a run and stream it, list, get, join and cancel (background and stateless
 * runs: `background-runs.ts`, `stateless-runs.ts`). What a run does from
 * admission to its end is the run lifecycle's (`run-lifecycle.ts`); these routes only read
 * requests and answer.
 */
import { ownThread, runEvents, type ServerContext } from "../context";
import { HttpProblem, json, noContent, notFound } from "../http";
import {
  CancelActionQuerySchema,
  CancelQuerySchema,
  parseListQuery,
  parseQuery,
  RunListQuerySchema,
  RunListSelectQuerySchema,
  RunStreamQuerySchema,
} from "../requests";
import { type RouteEntry, route } from "../router";
import { eventFilter } from "../run-fields";
import { selectRunFields } from "../run-select";
import { continuesWithoutReader, readRunAsk, startRun } from "../run-start";

export function runRoutes(ctx: ServerContext): RouteEntry[] {
  return [
    route("POST", "/threads/:thread_id/runs/stream", async (request, owner, p, url) => {
      const ask = await readRunAsk(ctx, request, url, false);
      const run = await startRun(ctx, request, owner, ask, { param: p.thread_id ?? "" });
      const continues = continuesWithoutReader(run, ask.body);
      return runEvents(ctx, run, undefined, continues ? undefined : () => run.cancel(), {
        keep: eventFilter({ namespace: ask.namespace }),
      });
    }),
    route("GET", "/threads/:thread_id/runs", async (_r, owner, p, url) => {
      const query = parseQuery(RunListQuerySchema, url);
      const { select } = parseListQuery(RunListSelectQuerySchema, url);
      const stored = await ownThread(ctx, owner, p.thread_id ?? "");
      const offset = query.offset ?? 0;
      const end = offset + (query.limit ?? 10);
      const found = await ctx.directory.list(stored.view.thread_id, query.status, end);
      return json(selectRunFields(found.slice(offset, end), select));
    }),
    route("GET", "/threads/:thread_id/runs/:run_id", async (_r, owner, p) => {
      const stored = await ownThread(ctx, owner, p.thread_id ?? "");
      const run = await ctx.directory.get(stored.view.thread_id, p.run_id ?? "");
      return run ? json(run) : notFound(`Run ${p.run_id}`);
    }),
    route("GET", "/threads/:thread_id/runs/:run_id/stream", async (request, owner, p, url) => {
      const query = parseListQuery(RunStreamQuerySchema, url);
      const keep = eventFilter(query);
      const stored = await ownThread(ctx, owner, p.thread_id ?? "");
      const run = await ctx.directory.get(stored.view.thread_id, p.run_id ?? "");
      // A finished run whose events were dropped for the memory budget: nothing left to join.
      if (!run || run.eventsDropped) return notFound(`Run ${p.run_id}`);
      const lastEventId = request.headers.get("Last-Event-ID") || undefined;
      // The SDK's contract: a checkpoint the reader shows counts unless it resumes mid-stream.
      const fromCheckpoint =
        query.checkpoint_id && (lastEventId === undefined || lastEventId === "-1")
          ? run.afterCheckpoint(query.checkpoint_id)
          : undefined;
      const cancel = query.cancel_on_disconnect ? () => run.cancel() : undefined;
      return runEvents(ctx, run, fromCheckpoint ?? lastEventId, cancel, { keep });
    }),
    route("POST", "/threads/:thread_id/runs/:run_id/cancel", async (_r, owner, p, url) => {
      const { wait } = parseQuery(CancelQuerySchema, url);
      const { action, reason } = parseQuery(CancelActionQuerySchema, url);
      if (reason !== undefined) {
        throw new HttpProblem(
          422,
          "Unprocessable Entity",
          "reason: this server keeps no cancel reasons; leave it out",
        );
      }
      const stored = await ownThread(ctx, owner, p.thread_id ?? "");
      const run = await ctx.directory.get(stored.view.thread_id, p.run_id ?? "");
      if (!run) return notFound(`Run ${p.run_id}`);
      if (action === "rollback") {
        // A pending run has written nothing: rolling it back is forgetting it. A running one's
        // writes would have to be undone, which this server does not do.
        if (run.status !== "pending") {
          throw new HttpProblem(
            422,
            "Unprocessable Entity",
            `action: run ${run.run_id} is ${run.status}; only a pending run can be rolled back ` +
              '(send action "interrupt")',
          );
        }
        run.cancel();
        // Ends at once here; elsewhere once its instance hears of the cancel.
        await run.done;
        await ctx.directory.delete(run);
        return noContent();
      }
      run.cancel();
      if (wait) await run.done;
      return noContent();
    }),
  ];
}
