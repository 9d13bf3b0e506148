/**
 * Background runs, as the SDK's `client.runs.create`, `wait`, `join` and `delete` call them, and
 * its submission queue (`multitask_strategy: "enqueue"`: a run created while another runs waits
 * `pending` in line, listed by `GET .../runs?status=pending`, cancelled by `POST .../cancel`).
 * A run goes on whoever reads it; its rules are the run lifecycle's (`run-lifecycle.ts`).
 */
import { ownThread, type ServerContext } from "../context";
import type { RunHandle } from "../coordination";
import { HttpProblem, json, noContent, notFound } from "../http";
import { parseQuery, RunStreamQuerySchema } from "../requests";
import { type RouteEntry, route } from "../router";
import { readRunAsk, startRun } from "../run-start";
import { waitResponse } from "../run-wait";

export function backgroundRunRoutes(ctx: ServerContext): RouteEntry[] {
  const location = (run: RunHandle) => `${ctx.prefix}/threads/${run.thread_id}/runs/${run.run_id}`;
  /** The values of the thread the run ran on, as its graph reads them for `owner`. */
  const stateValues = (owner: string, run: RunHandle) => async () => {
    const graph = (await ctx.userGraphs(owner)).graphs.get(run.assistant_id);
    if (!graph) return null;
    return (await graph.getState({ configurable: { thread_id: run.thread_id } })).values ?? null;
  };
  const wait = (request: Request, owner: string, run: RunHandle, cancel: boolean) =>
    waitResponse(run, {
      location: location(run),
      heartbeatMs: ctx.heartbeatMs,
      settled: (handle) => ctx.directory.settled(handle),
      stateValues: stateValues(owner, run),
      onDisconnect: cancel ? () => ctx.directory.cancel(run) : undefined,
      report: (error) => ctx.report(error, request),
    });

  return [
    route("POST", "/threads/:thread_id/runs", async (request, owner, p, url) => {
      const ask = await readRunAsk(ctx, request, url, false);
      const run = await startRun(ctx, request, owner, ask, { param: p.thread_id ?? "" }, true);
      return json(run, 200, { "Content-Location": location(run) });
    }),
    route("POST", "/threads/:thread_id/runs/wait", async (request, owner, p, url) => {
      const ask = await readRunAsk(ctx, request, url, false);
      const run = await startRun(ctx, request, owner, ask, { param: p.thread_id ?? "" }, true);
      return wait(request, owner, run, ask.body.on_disconnect === "cancel");
    }),
    route("GET", "/threads/:thread_id/runs/:run_id/join", async (request, owner, p, url) => {
      const { cancel_on_disconnect } = parseQuery(RunStreamQuerySchema, url);
      const stored = await ownThread(ctx, owner, p.thread_id ?? "");
      const run = await ctx.directory.get(stored.view.thread_id, p.run_id ?? "");
      if (!run) return notFound(`Run ${p.run_id}`);
      return wait(request, owner, run, cancel_on_disconnect);
    }),
    route("DELETE", "/threads/:thread_id/runs/:run_id", async (_r, owner, p) => {
      const stored = await ownThread(ctx, owner, p.thread_id ?? "");
      const run = await ctx.directory.get(stored.view.thread_id, p.run_id ?? "");
      if (!run) return notFound(`Run ${p.run_id}`);
      if (!(await ctx.directory.delete(run))) {
        throw new HttpProblem(
          409,
          "Conflict",
          `Run ${run.run_id} is ${run.status}; cancel it first ` +
            `(POST .../runs/${run.run_id}/cancel)`,
        );
      }
      return noContent();
    }),
  ];
}
