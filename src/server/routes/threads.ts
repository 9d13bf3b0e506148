/**
 * Thread routes: create, search, get, patch, delete, and the graph's state and history. A
 * thread's record changes and its delete go through the run lifecycle (`run-lifecycle.ts`),
 * which orders them against the thread's runs.
 */
import {
  graphOf,
  ownThread,
  readBody,
  type ServerContext,
  shown,
  shownAll,
  threadIdOf,
} from "../context";
import { HttpProblem, json, noContent } from "../http";
import {
  HistorySchema,
  parseBody,
  parseQuery,
  StateQuerySchema,
  stateSelectQuery,
  ThreadCreateSchema,
  ThreadPatchSchema,
  ThreadSearchSchema,
} from "../requests";
import { checkThreadMetadata } from "../reserved-metadata";
import { type RouteEntry, route } from "../router";
import { emptyThreadState, selectState, toThreadState } from "../state";
import { listedThread } from "../thread-list";
import { searchThreads, titleOf } from "../thread-view";
import { createChosen } from "../v2/thread-create";
import { extractPaths, refuseValuesFilter } from "./thread-search";

export function threadRoutes(ctx: ServerContext): RouteEntry[] {
  return [
    route("POST", "/threads", async (request, owner) => {
      const body = parseBody(ThreadCreateSchema, await readBody(ctx, request));
      if (body.graph_id && !ctx.graphs.has(body.graph_id)) {
        throw new HttpProblem(
          422,
          "Unprocessable Entity",
          `graph_id: names no graph of this server; use one of ` +
            `${[...ctx.graphs.keys()].join(", ")}`,
        );
      }
      checkThreadMetadata(body.metadata, { owner: ctx.auth ? owner : undefined }, ctx.graphs);
      const now = new Date().toISOString();
      const metadata: Record<string, unknown> = { ...(body.metadata ?? {}) };
      if (ctx.auth) metadata.owner = owner;
      if (body.graph_id) metadata.graph_id = body.graph_id;
      const view = {
        created_at: now,
        updated_at: now,
        metadata,
        status: "idle" as const,
        values: {},
        interrupts: {},
        title: typeof metadata.title === "string" && metadata.title !== "" ? metadata.title : null,
        preview: null,
      };
      if (!body.thread_id) return json(shown(ctx, (await ctx.records.create(owner, view)).view));
      const chosen = await createChosen(ctx, owner, body.thread_id, view);
      if (chosen.created || body.if_exists === "do_nothing") {
        return json(shown(ctx, chosen.stored.view));
      }
      throw new HttpProblem(
        409,
        "Conflict",
        `Thread ${body.thread_id} already exists; send if_exists "do_nothing" to get it`,
      );
    }),
    route("POST", "/threads/search", async (request, owner) => {
      const body = parseBody(ThreadSearchSchema, await readBody(ctx, request));
      refuseValuesFilter(body.values);
      const extract = extractPaths(body.extract);
      const all = await shownAll(ctx, await ctx.records.list(owner));
      const { page, total } = searchThreads(all, {
        ids: body.ids ?? undefined,
        metadata: body.metadata ?? undefined,
        status: body.status ?? undefined,
        limit: body.limit ?? 10,
        offset: body.offset ?? 0,
        sortBy: body.sort_by ?? "updated_at",
        sortOrder: body.sort_order ?? "desc",
      });
      const shape = { select: body.select ?? undefined, extract };
      return json(
        page.map((view) => listedThread(view, shape)),
        200,
        { "X-Pagination-Total": String(total) },
      );
    }),
    route("GET", "/threads/:thread_id", async (_r, owner, p) =>
      json((await shownAll(ctx, [(await ownThread(ctx, owner, p.thread_id ?? "")).view]))[0]),
    ),
    route("PATCH", "/threads/:thread_id", async (request, owner, p) => {
      const body = parseBody(ThreadPatchSchema, await readBody(ctx, request));
      // The update's own read is the owner check: another user's thread is a 404 there too.
      const id = await ctx.threadIds.serviceIdOf(owner, threadIdOf(p.thread_id ?? ""));
      const saved = await ctx.lifecycle.update(owner, id, (view) => {
        // Checked against the record read in turn: what the server holds now.
        checkThreadMetadata(body.metadata, view.metadata);
        const metadata = { ...view.metadata, ...(body.metadata ?? {}) };
        // The owner is the server's to say.
        if (ctx.auth) metadata.owner = owner;
        const patched = { ...view, metadata, updated_at: new Date().toISOString() };
        return { ...patched, title: titleOf(patched) };
      });
      return json(shown(ctx, saved.view));
    }),
    route("DELETE", "/threads/:thread_id", async (_r, owner, p) => {
      const stored = await ownThread(ctx, owner, p.thread_id ?? "");
      await ctx.lifecycle.delete(stored.view.thread_id, owner);
      ctx.events.drop(stored.view.thread_id);
      const chosen = stored.view.client_thread_id;
      if (chosen !== undefined) await ctx.threadIds.forget(owner, chosen);
      return noContent();
    }),
    route("GET", "/threads/:thread_id/state", async (_r, owner, p, url) => {
      const { view } = await ownThread(ctx, owner, p.thread_id ?? "");
      const graph = await graphOf(ctx, owner, view);
      const { subgraphs } = parseQuery(StateQuerySchema, url);
      const select = stateSelectQuery(url);
      if (!graph) return json(selectState(emptyThreadState(), select));
      const state = await graph.getState(
        { configurable: { thread_id: view.thread_id } },
        { subgraphs },
      );
      return json(selectState(toThreadState(state), select));
    }),
    route("POST", "/threads/:thread_id/history", async (request, owner, p) => {
      const body = parseBody(HistorySchema, await readBody(ctx, request));
      const { view } = await ownThread(ctx, owner, p.thread_id ?? "");
      const graph = await graphOf(ctx, owner, view);
      if (!graph) return json([]);
      const before =
        typeof body.before === "string"
          ? { configurable: { checkpoint_id: body.before } }
          : body.before;
      const history: Record<string, unknown>[] = [];
      for await (const state of graph.getStateHistory(
        { configurable: { ...(body.checkpoint ?? {}), thread_id: view.thread_id } },
        {
          limit: body.limit ?? 10,
          ...(before ? { before } : {}),
          ...(body.metadata ? { filter: body.metadata } : {}),
        },
      )) {
        history.push(selectState(toThreadState(state), body.select));
      }
      return json(history);
    }),
  ];
}
