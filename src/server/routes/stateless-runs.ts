/**
 * Stateless runs (`client.runs.stream(null, ...)`, `wait(null, ...)`, `create(null, ...)`): a run
 * on a thread of its own, made for it and deleted when it ends (rule 8 of `run-lifecycle.ts`),
 * unless it asks `on_completion: "keep"`; then the thread stays the caller's, like any other.
 * Costs: the thread's create (two service calls), and its delete or the thread's save.
 */
import { runEvents, type ServerContext } from "../context";
import { json } from "../http";
import type { RunCreate } from "../requests";
import { type RouteEntry, route } from "../router";
import { eventFilter } from "../run-fields";
import {
  continuesWithoutReader,
  type RunAsk,
  readRunAsk,
  requireAssistant,
  startRun,
} from "../run-start";
import { waitResponse } from "../run-wait";
import type { RunRecord } from "../runs";

export function statelessRunRoutes(ctx: ServerContext): RouteEntry[] {
  /** The Agent Server names a stateless run by its id alone. */
  const location = (run: RunRecord) => `${ctx.prefix}/runs/${run.run_id}`;

  /** The run's own thread, filed under the owner as a thread of the run's graph. */
  async function threadFor(owner: string, body: RunCreate): Promise<string> {
    const now = new Date().toISOString();
    const metadata: Record<string, unknown> = { graph_id: body.assistant_id };
    if (ctx.auth) metadata.owner = owner;
    const created = await ctx.records.create(owner, {
      created_at: now,
      updated_at: now,
      metadata,
      status: "idle",
      values: {},
      interrupts: {},
      title: null,
      preview: null,
    });
    return created.view.thread_id;
  }

  /** `background`: no client streams the run from here (`/runs`, `/runs/wait`). */
  async function start(
    request: Request,
    owner: string,
    url: URL,
    background: boolean,
  ): Promise<[RunAsk, RunRecord]> {
    const ask = await readRunAsk(ctx, request, url, true);
    await requireAssistant(ctx, owner, ask.body);
    const id = await threadFor(owner, ask.body);
    const temporary = ask.body.on_completion !== "keep";
    return [ask, await startRun(ctx, request, owner, ask, { id, temporary }, background)];
  }

  return [
    route("POST", "/runs/stream", async (request, owner, _p, url) => {
      const [ask, run] = await start(request, owner, url, false);
      const continues = continuesWithoutReader(run, ask.body);
      return runEvents(ctx, run, undefined, continues ? undefined : () => run.cancel(), {
        keep: eventFilter({ namespace: ask.namespace }),
        location: location(run),
      });
    }),
    route("POST", "/runs/wait", async (request, owner, _p, url) => {
      const [ask, run] = await start(request, owner, url, true);
      const kept = ask.body.on_completion === "keep";
      return waitResponse(run, {
        location: location(run),
        heartbeatMs: ctx.heartbeatMs,
        settled: (handle) => ctx.directory.settled(handle),
        // A deleted thread has no state to read: a run that sent no values answers null.
        stateValues: kept
          ? async () => {
              const graph = (await ctx.userGraphs(owner)).graphs.get(run.assistant_id);
              const state = await graph?.getState({ configurable: { thread_id: run.thread_id } });
              return state?.values ?? null;
            }
          : undefined,
        onDisconnect:
          ask.body.on_disconnect === "cancel" ? () => ctx.directory.cancel(run) : undefined,
        report: (error) => ctx.report(error, request),
      });
    }),
    route("POST", "/runs", async (request, owner, _p, url) => {
      const [, run] = await start(request, owner, url, true);
      return json(run, 200, { "Content-Location": location(run) });
    }),
  ];
}
