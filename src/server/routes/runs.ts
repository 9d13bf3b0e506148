/**
 * Run routes: start a run and stream it, list, get, join and cancel. What a run does from
 * admission to its end is the run lifecycle's (`run-lifecycle.ts`); these routes only read
 * requests and answer.
 */
import { ownThread, readBody, runEvents, runnableAssistant, type ServerContext } from "../context";
import { HttpProblem, json, noContent, notFound } from "../http";
import {
  CancelQuerySchema,
  parseBody,
  parseQuery,
  RunCreateSchema,
  RunListQuerySchema,
} from "../requests";
import { checkRunMetadata } from "../reserved-metadata";
import { type RouteEntry, route } from "../router";
import { checkInputSize, requireStartCheckpoint } from "../run-admission";

export function runRoutes(ctx: ServerContext): RouteEntry[] {
  return [
    route("POST", "/threads/:thread_id/runs/stream", async (request, owner, p) => {
      const body = parseBody(RunCreateSchema, await readBody(ctx, request));
      checkRunMetadata(body.metadata, body.assistant_id);
      checkInputSize(body, ctx.maxInputBytes);
      const stored = await ownThread(ctx, owner, p.thread_id ?? "");
      const mine = await runnableAssistant(ctx, owner, body.assistant_id);
      if (!mine) {
        throw new HttpProblem(404, "Not Found", `Assistant ${body.assistant_id} not found`);
      }
      const { graph } = mine;
      const threadId = stored.view.thread_id;
      await requireStartCheckpoint(mine.checkpointer, threadId, body);
      const run = ctx.lifecycle.submit({
        owner,
        threadId,
        graph,
        body,
        userId: ctx.auth ? owner : undefined,
        checkpointer: mine.checkpointer,
        report: (error) => ctx.report(error, request),
      });
      const continues = body.on_disconnect ? body.on_disconnect === "continue" : run.resumable;
      return runEvents(ctx, run, undefined, continues ? undefined : () => run.controller.abort());
    }),
    route("GET", "/threads/:thread_id/runs", async (_r, owner, p, url) => {
      const query = parseQuery(RunListQuerySchema, url);
      const stored = await ownThread(ctx, owner, p.thread_id ?? "");
      const offset = query.offset ?? 0;
      const found = ctx.runs.list(stored.view.thread_id, query.status);
      return json(found.slice(offset, offset + (query.limit ?? 10)));
    }),
    route("GET", "/threads/:thread_id/runs/:run_id", async (_r, owner, p) => {
      const stored = await ownThread(ctx, owner, p.thread_id ?? "");
      const run = ctx.runs.get(stored.view.thread_id, p.run_id ?? "");
      return run ? json(run) : notFound(`Run ${p.run_id}`);
    }),
    route("GET", "/threads/:thread_id/runs/:run_id/stream", async (request, owner, p) => {
      const stored = await ownThread(ctx, owner, p.thread_id ?? "");
      const run = ctx.runs.get(stored.view.thread_id, p.run_id ?? "");
      // A finished run whose events were dropped for the memory budget: nothing left to join.
      if (!run || run.eventsDropped) return notFound(`Run ${p.run_id}`);
      const lastEventId = request.headers.get("Last-Event-ID") ?? undefined;
      return runEvents(ctx, run, lastEventId || undefined);
    }),
    route("POST", "/threads/:thread_id/runs/:run_id/cancel", async (_r, owner, p, url) => {
      const { wait } = parseQuery(CancelQuerySchema, url);
      const stored = await ownThread(ctx, owner, p.thread_id ?? "");
      const run = ctx.runs.get(stored.view.thread_id, p.run_id ?? "");
      if (!run) return notFound(`Run ${p.run_id}`);
      run.controller.abort();
      if (wait) await run.done;
      return noContent();
    }),
  ];
}
