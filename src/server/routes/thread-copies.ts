/**
 * `POST /threads/:id/copy` (a new thread of the same owner with the same record and
 * checkpoints) and `POST /threads/prune` (threads deleted, or their older checkpoints deleted
 * with the saver's `prune`).
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { ownThread, readBody, type ServerContext, shown, threadIdOf } from "../context";
import { HttpProblem, json } from "../http";
import { parseBody, ThreadPruneSchema } from "../requests";
import { type RouteEntry, route } from "../router";
import { copyCheckpoints } from "../thread-copy";

/** A saver with `StudioCheckpointSaver#prune` (the server does not load the saver's code). */
interface PruningSaver {
  prune(threadIds: readonly string[], options: { keepLast: number }): Promise<unknown>;
}

function canPrune(saver: BaseCheckpointSaver): saver is BaseCheckpointSaver & PruningSaver {
  return typeof (saver as Partial<PruningSaver>).prune === "function";
}

export function threadCopyRoutes(ctx: ServerContext): RouteEntry[] {
  return [
    route("POST", "/threads/:thread_id/copy", async (_r, owner, p) => {
      const { view } = await ownThread(ctx, owner, p.thread_id ?? "");
      const now = new Date().toISOString();
      const { thread_id: _source, ...rest } = view;
      const created = await ctx.records.create(owner, {
        ...rest,
        created_at: now,
        updated_at: now,
      });
      const { checkpointer } = await ctx.userGraphs(owner);
      try {
        await copyCheckpoints(checkpointer, view.thread_id, created.view.thread_id);
      } catch (error) {
        // No half copy left listed: the new thread goes with whatever was copied.
        await ctx.lifecycle.delete(created.view.thread_id, owner).catch(() => undefined);
        throw error;
      }
      return json(shown(ctx, created.view));
    }),
    route("POST", "/threads/prune", async (request, owner) => {
      const body = parseBody(ThreadPruneSchema, await readBody(ctx, request));
      const ids = [...new Set(body.thread_ids.map(threadIdOf))];
      // Every id is checked before anything is pruned: one not the caller's prunes nothing.
      for (const id of ids) {
        if (!(await ctx.records.owns(owner, id))) {
          throw new HttpProblem(404, "Not Found", `Thread ${id} not found; nothing was pruned`);
        }
      }
      if (body.strategy === "keep_latest") {
        const { checkpointer } = await ctx.userGraphs(owner);
        if (!canPrune(checkpointer)) {
          throw new HttpProblem(
            422,
            "Unprocessable Entity",
            'strategy: "keep_latest" needs a checkpointer with prune (StudioCheckpointSaver); ' +
              'use "delete", or prune with the saver itself',
          );
        }
        await checkpointer.prune(ids, { keepLast: 1 });
      } else {
        for (const id of ids) await ctx.lifecycle.delete(id, owner);
      }
      return json({ pruned_count: ids.length });
    }),
  ];
}
