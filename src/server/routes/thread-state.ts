/**
 * A thread's state beyond its latest: written (`POST /threads/:id/state`, through the graph's
 * `updateState`, as deep-agents-ui's file panel does), and read at a checkpoint (`GET
 * /threads/:id/state/:checkpoint_id`, `POST /threads/:id/state/checkpoint`).
 */
import { graphOf, ownThread, readBody, type ServerContext, threadIdOf } from "../context";
import type { RunnableGraph } from "../graphs";
import { HttpProblem, json } from "../http";
import {
  parseBody,
  parseQuery,
  StateAtCheckpointSchema,
  StateQuerySchema,
  StateUpdateSchema,
  stateSelectQuery,
} from "../requests";
import { type RouteEntry, route } from "../router";
import { checkpointOf, selectState, toThreadState } from "../state";

function checkpointMissing(threadId: string, checkpointId: string): HttpProblem {
  return new HttpProblem(
    404,
    "Not Found",
    `Checkpoint ${checkpointId} of thread ${threadId} not found; list them with threads.getHistory`,
  );
}

/** The config naming the checkpoint, after checking the owner's checkpointer holds it. */
async function checkpointConfig(
  ctx: ServerContext,
  owner: string,
  threadId: string,
  named: Record<string, unknown>,
): Promise<{ configurable: Record<string, unknown> }> {
  const configurable: Record<string, unknown> = { ...named, thread_id: threadId };
  const id = configurable.checkpoint_id;
  if (typeof id === "string" && id !== "") {
    const { checkpointer } = await ctx.userGraphs(owner);
    if (!(await checkpointer.getTuple({ configurable }))) throw checkpointMissing(threadId, id);
  }
  return { configurable };
}

/** The graph that last ran on the thread, or a 404 naming the checkpoint it cannot have. */
async function stateAt(
  ctx: ServerContext,
  owner: string,
  param: string,
  named: Record<string, unknown>,
  subgraphs: boolean,
): Promise<Record<string, unknown>> {
  const { view } = await ownThread(ctx, owner, param);
  const graph = await graphOf(ctx, owner, view);
  const id = typeof named.checkpoint_id === "string" ? named.checkpoint_id : "";
  // A thread no graph has run on has no checkpoints.
  if (!graph) throw checkpointMissing(view.thread_id, id);
  const config = await checkpointConfig(ctx, owner, view.thread_id, named);
  return toThreadState(await graph.getState(config, { subgraphs }));
}

export function threadStateRoutes(ctx: ServerContext): RouteEntry[] {
  return [
    route("POST", "/threads/:thread_id/state", async (request, owner, p) => {
      const body = parseBody(StateUpdateSchema, await readBody(ctx, request));
      const { view } = await ownThread(ctx, owner, p.thread_id ?? "");
      const threadId = view.thread_id;
      const graph: RunnableGraph | undefined = await graphOf(ctx, owner, view);
      if (!graph) {
        throw new HttpProblem(
          409,
          "Conflict",
          `Thread ${threadId} has no graph to update its state with; create it with graph_id ` +
            "or run it first",
        );
      }
      if ((await ctx.directory.busy([threadId])).has(threadId)) {
        throw new HttpProblem(
          409,
          "Conflict",
          `Thread ${threadId} is busy with a run; wait for it to end or cancel it`,
        );
      }
      const named = {
        ...(body.checkpoint ?? {}),
        ...(body.checkpoint_id ? { checkpoint_id: body.checkpoint_id } : {}),
      };
      const config = await checkpointConfig(ctx, owner, threadId, named);
      const written = (await graph.updateState(
        config,
        body.values ?? null,
        body.as_node ?? undefined,
      )) as { configurable?: Record<string, unknown> };
      // The list's title, preview and label values follow the state, as after a run.
      const state = await graph.getState({ configurable: { thread_id: threadId } });
      await ctx.lifecycle.recordState(owner, threadId, state);
      return json({ checkpoint: checkpointOf(written) });
    }),
    route("GET", "/threads/:thread_id/state/:checkpoint_id", async (_r, owner, p, url) => {
      const { subgraphs } = parseQuery(StateQuerySchema, url);
      const select = stateSelectQuery(url);
      const named = { checkpoint_id: threadIdOf(p.checkpoint_id ?? ""), checkpoint_ns: "" };
      const state = await stateAt(ctx, owner, p.thread_id ?? "", named, subgraphs);
      return json(selectState(state, select));
    }),
    route("POST", "/threads/:thread_id/state/checkpoint", async (request, owner, p) => {
      const body = parseBody(StateAtCheckpointSchema, await readBody(ctx, request));
      const named = body.checkpoint ?? {};
      const state = await stateAt(ctx, owner, p.thread_id ?? "", named, body.subgraphs === true);
      return json(selectState(state, body.select));
    }),
  ];
}
