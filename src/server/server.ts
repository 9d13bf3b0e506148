/**
 * `createAgentServer`: the Agent Server routes `useStream` and agent-chat-ui call, as one
 * web-standard `(request) => Promise<Response>`. LangGraph runs the graphs; the checkpointer
 * and store passed in keep their state; the thread list is kept in the service
 * (`thread-records.ts`); runs live in this process (`runs.ts`).
 */
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import type { StudioClient } from "../client";
import type { StudioClientOptions } from "../client/options";
import { resolveClient } from "../client/resolve";
import { StudioRateLimitError } from "../errors";
import { executeRun } from "./execute";
import { bindGraph, type GraphLike, type RunnableGraph } from "./graphs";
import {
  DEFAULT_MAX_BODY_BYTES,
  HttpProblem,
  json,
  noContent,
  notFound,
  problem,
  readJson,
  unknownRoute,
} from "./http";
import {
  HistorySchema,
  parseBody,
  type RunCreate,
  RunCreateSchema,
  ThreadCreateSchema,
  ThreadPatchSchema,
  ThreadSearchSchema,
} from "./requests";
import { matchRoute, type RouteEntry, route } from "./router";
import { RunRecord, RunRegistry } from "./runs";
import { runEventsResponse } from "./sse";
import { emptyThreadState, toThreadState } from "./state";
import { type StoredThread, ThreadRecords } from "./thread-records";
import { afterRun, searchThreads, type ThreadView, titleOf } from "./thread-view";
import { trackWrites } from "./write-tracker";

/** Who is calling: a user id, or null (then 401). */
export type AgentServerAuth = (
  request: Request,
) => string | null | undefined | Promise<string | null | undefined>;

export interface AgentServerOptions extends StudioClientOptions {
  /** Graph id (the SDK's `assistant_id`) to a compiled graph or a `createAgent` result. */
  graphs: Record<string, GraphLike>;
  /** Where the graphs' checkpoints are kept (a `StudioCheckpointSaver`, usually). */
  checkpointer: BaseCheckpointSaver;
  /** The graphs' long-term store, if they use one. */
  store?: BaseStore | undefined;
  /**
   * Who is calling. Every thread belongs to the user who created it; another user's thread is a
   * 404 on every route. Without `auth`, every caller is the same user: one user per server.
   */
  auth?: AgentServerAuth | undefined;
  /** The client keeping the thread list (else one is built from the client options). */
  client?: StudioClient | undefined;
  /** Path prefix the handler is mounted under (e.g. "/api"), stripped before routing. */
  basePath?: string | undefined;
  /**
   * Told of every error the handler did not expect (a 500, a 503 for the service's rate limit,
   * a run whose thread list update failed), with the request. The browser gets only a generic
   * message: service errors name hosts, paths and accounts. Default: `console.error`.
   */
  onError?: ((error: unknown, request: Request) => void) | undefined;
  /** The largest request body accepted, in bytes; a larger one is a 413. Default 10 MiB. */
  maxBodyBytes?: number | undefined;
}

export type AgentServerHandler = (request: Request) => Promise<Response>;

const SERVER_STARTED = new Date().toISOString();

export function createAgentServer(options: AgentServerOptions): AgentServerHandler {
  const {
    graphs,
    checkpointer,
    store,
    auth,
    basePath,
    client,
    onError,
    maxBodyBytes,
    ...clientOptions
  } = options;
  const bodyLimit = maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const readBody = (request: Request) => readJson(request, bodyLimit);
  const studio = resolveClient({ ...clientOptions, client });
  const records = new ThreadRecords(studio);
  const runs = new RunRegistry();
  const writes = trackWrites(checkpointer);
  const bound = new Map<string, RunnableGraph>();
  for (const [id, graph] of Object.entries(graphs)) {
    bound.set(id, bindGraph(graph, id, writes.saver, store));
  }
  const prefix = (basePath ?? "").replace(/\/+$/, "");

  /** The thread as its owner sees it ("busy" while a run of this process is on it). */
  function shown(view: ThreadView): ThreadView {
    return runs.isBusy(view.thread_id) ? { ...view, status: "busy" } : view;
  }

  async function ownThread(owner: string, threadId: string): Promise<StoredThread> {
    let id: string;
    try {
      id = decodeURIComponent(threadId);
    } catch {
      throw new HttpProblem(404, "Not Found", `Thread ${threadId} not found`);
    }
    const stored = await records.get(owner, id);
    if (!stored) throw new HttpProblem(404, "Not Found", `Thread ${threadId} not found`);
    return stored;
  }

  function graphOf(view: ThreadView): RunnableGraph | undefined {
    const id = view.metadata.graph_id;
    return typeof id === "string" ? bound.get(id) : undefined;
  }

  function assistant(id: string): Record<string, unknown> {
    return {
      assistant_id: id,
      graph_id: id,
      name: id,
      config: {},
      context: {},
      metadata: {},
      version: 1,
      created_at: SERVER_STARTED,
      updated_at: SERVER_STARTED,
    };
  }

  async function threadState(view: ThreadView, url: URL): Promise<Record<string, unknown>> {
    const graph = graphOf(view);
    if (!graph) return emptyThreadState();
    const subgraphs = url.searchParams.get("subgraphs") === "true";
    const state = await graph.getState(
      { configurable: { thread_id: view.thread_id } },
      { subgraphs },
    );
    return toThreadState(state);
  }

  /** The run's events from `lastEventId` on; a disconnect calls `onDisconnect`. */
  function sse(run: RunRecord, lastEventId: string | undefined, onDisconnect?: () => void) {
    const location = `${prefix}/threads/${run.thread_id}/runs/${run.run_id}`;
    return runEventsResponse(run, location, lastEventId, onDisconnect);
  }

  async function startRun(request: Request, owner: string, threadId: string, body: RunCreate) {
    const stored = await ownThread(owner, threadId);
    const graph = bound.get(body.assistant_id);
    if (!graph) throw new HttpProblem(404, "Not Found", `Assistant ${body.assistant_id} not found`);
    const id = stored.view.thread_id;
    const strategy = body.multitask_strategy ?? "reject";
    // Waits out (or cancels) the thread's active run as the strategy says. Runs waiting on the
    // same run all wake together: each checks again, and the first to find the thread free starts
    // its run in the same synchronous step (no await between the last check and `runs.start`),
    // so the others find it active and wait for it in turn. One run per thread.
    for (let active = runs.activeOn(id); active; active = runs.activeOn(id)) {
      if (strategy === "reject") {
        throw new HttpProblem(
          409,
          "Conflict",
          `Thread ${id} is busy with run ${active.run_id}; wait for it, cancel it, or send multitask_strategy "interrupt" or "enqueue"`,
        );
      }
      if (strategy === "interrupt" || strategy === "rollback") active.controller.abort();
      await active.done;
    }
    const run = new RunRecord({
      threadId: id,
      assistantId: body.assistant_id,
      metadata: body.metadata ?? {},
      multitaskStrategy: strategy,
      resumable: body.stream_resumable === true,
    });
    runs.start(run);
    void (async () => {
      let status = await executeRun(graph, run, body, auth ? owner : undefined);
      try {
        // The thread as a user sees it, refreshed from the run's final state. The state is read
        // first and the thread record last, right before the save, so a PATCH that lands while
        // the state is read is in the record the save builds on.
        const state = await graph.getState({ configurable: { thread_id: run.thread_id } });
        const latest = (await records.get(owner, run.thread_id)) ?? stored;
        const view = afterRun(
          {
            ...latest.view,
            metadata: {
              ...latest.view.metadata,
              graph_id: body.assistant_id,
              assistant_id: body.assistant_id,
            },
          },
          state,
          status === "error" ? "error" : "success",
          new Date(),
        );
        await records.save(latest, view);
      } catch (error) {
        report(error, request);
        if (status === "success") {
          status = "error";
          run.push(
            "error",
            JSON.stringify({
              error: "ThreadSaveError",
              message:
                "The run finished and its state is saved, but the thread list was not updated; the server's log has the cause",
            }),
          );
        }
      } finally {
        run.end(status);
      }
    })();
    const continues = body.on_disconnect ? body.on_disconnect === "continue" : run.resumable;
    return sse(run, undefined, continues ? undefined : () => run.controller.abort());
  }

  const routes: RouteEntry[] = [
    route("GET", "/info", async () =>
      json({
        version: "langchain-studio",
        flags: { assistants: true, crons: false, langsmith: false },
      }),
    ),
    route("GET", "/ok", async () => json({ ok: true })),
    route("POST", "/assistants/search", async () => json([...bound.keys()].map(assistant))),
    route("GET", "/assistants/:assistant_id", async (_r, _o, p) => {
      const id = decodeURIComponent(p.assistant_id ?? "");
      return bound.has(id) ? json(assistant(id)) : notFound(`Assistant ${id}`);
    }),
    route("POST", "/threads", async (request, owner) => {
      const body = parseBody(ThreadCreateSchema, await readBody(request));
      if (body.thread_id) {
        throw new HttpProblem(
          422,
          "Unprocessable Entity",
          "thread_id: the server picks thread ids (the service's); leave it out",
        );
      }
      const now = new Date().toISOString();
      const metadata: Record<string, unknown> = { ...(body.metadata ?? {}) };
      if (auth) metadata.owner = owner;
      if (body.graph_id) metadata.graph_id = body.graph_id;
      const created = await records.create(owner, {
        created_at: now,
        updated_at: now,
        metadata,
        status: "idle",
        values: {},
        interrupts: {},
        title: typeof metadata.title === "string" && metadata.title !== "" ? metadata.title : null,
        preview: null,
      });
      return json(created.view);
    }),
    route("POST", "/threads/search", async (request, owner) => {
      const body = parseBody(ThreadSearchSchema, await readBody(request));
      const all = (await records.list(owner)).map(shown);
      const { page, total } = searchThreads(all, {
        metadata: body.metadata ?? undefined,
        status: body.status ?? undefined,
        limit: body.limit ?? 10,
        offset: body.offset ?? 0,
        sortBy: body.sort_by ?? "updated_at",
        sortOrder: body.sort_order ?? "desc",
      });
      return json(page, 200, { "X-Pagination-Total": String(total) });
    }),
    route("GET", "/threads/:thread_id", async (_r, owner, p) =>
      json(shown((await ownThread(owner, p.thread_id ?? "")).view)),
    ),
    route("PATCH", "/threads/:thread_id", async (request, owner, p) => {
      const body = parseBody(ThreadPatchSchema, await readBody(request));
      const stored = await ownThread(owner, p.thread_id ?? "");
      const metadata = { ...stored.view.metadata, ...(body.metadata ?? {}) };
      // The owner is the server's to say.
      if (auth) metadata.owner = owner;
      const patched = { ...stored.view, metadata, updated_at: new Date().toISOString() };
      const view = { ...patched, title: titleOf(patched) };
      return json(shown((await records.save(stored, view)).view));
    }),
    route("DELETE", "/threads/:thread_id", async (_r, owner, p) => {
      const stored = await ownThread(owner, p.thread_id ?? "");
      const id = stored.view.thread_id;
      const active = runs.activeOn(id);
      runs.dropThread(id);
      // The cancelled run ends before its last checkpoint writes do: drop its writes from now
      // on, and wait for the run and the writes already under way, so the delete leaves nothing
      // of the conversation behind.
      writes.forbid(id);
      try {
        if (active) await active.done;
        await writes.settled(id);
        await checkpointer.deleteThread(id);
        await records.delete(id);
      } catch (error) {
        // Not deleted: the thread's next runs must be able to save again.
        writes.allow(id);
        throw error;
      }
      return noContent();
    }),
    route("GET", "/threads/:thread_id/state", async (_r, owner, p, url) => {
      const stored = await ownThread(owner, p.thread_id ?? "");
      return json(await threadState(stored.view, url));
    }),
    route("POST", "/threads/:thread_id/history", async (request, owner, p) => {
      const body = parseBody(HistorySchema, await readBody(request));
      const stored = await ownThread(owner, p.thread_id ?? "");
      const graph = graphOf(stored.view);
      if (!graph) return json([]);
      const before =
        typeof body.before === "string"
          ? { configurable: { checkpoint_id: body.before } }
          : body.before;
      const history: Record<string, unknown>[] = [];
      for await (const state of graph.getStateHistory(
        { configurable: { ...(body.checkpoint ?? {}), thread_id: stored.view.thread_id } },
        {
          limit: body.limit ?? 10,
          ...(before ? { before } : {}),
          ...(body.metadata ? { filter: body.metadata } : {}),
        },
      )) {
        history.push(toThreadState(state));
      }
      return json(history);
    }),
    route("POST", "/threads/:thread_id/runs/stream", async (request, owner, p) => {
      const body = parseBody(RunCreateSchema, await readBody(request));
      return startRun(request, owner, p.thread_id ?? "", body);
    }),
    route("GET", "/threads/:thread_id/runs", async (_r, owner, p, url) => {
      const stored = await ownThread(owner, p.thread_id ?? "");
      const status = url.searchParams.get("status") || undefined;
      const limit = Math.max(0, Number.parseInt(url.searchParams.get("limit") ?? "10", 10) || 10);
      const offset = Math.max(0, Number.parseInt(url.searchParams.get("offset") ?? "0", 10) || 0);
      const found = runs.list(stored.view.thread_id, status);
      return json(found.slice(offset, offset + limit));
    }),
    route("GET", "/threads/:thread_id/runs/:run_id", async (_r, owner, p) => {
      const stored = await ownThread(owner, p.thread_id ?? "");
      const run = runs.get(stored.view.thread_id, p.run_id ?? "");
      return run ? json(run) : notFound(`Run ${p.run_id}`);
    }),
    route("GET", "/threads/:thread_id/runs/:run_id/stream", async (request, owner, p) => {
      const stored = await ownThread(owner, p.thread_id ?? "");
      const run = runs.get(stored.view.thread_id, p.run_id ?? "");
      // A finished run whose events were dropped for the memory budget: nothing left to join.
      if (!run || run.eventsDropped) return notFound(`Run ${p.run_id}`);
      const lastEventId = request.headers.get("Last-Event-ID") ?? undefined;
      return sse(run, lastEventId || undefined);
    }),
    route("POST", "/threads/:thread_id/runs/:run_id/cancel", async (_r, owner, p, url) => {
      const stored = await ownThread(owner, p.thread_id ?? "");
      const run = runs.get(stored.view.thread_id, p.run_id ?? "");
      if (!run) return notFound(`Run ${p.run_id}`);
      run.controller.abort();
      if (url.searchParams.get("wait") === "true" || url.searchParams.get("wait") === "1") {
        await run.done;
      }
      return noContent();
    }),
  ];

  async function callerOf(request: Request): Promise<string | undefined> {
    if (!auth) return "";
    try {
      const user = await auth(request);
      return typeof user === "string" && user !== "" ? user : undefined;
    } catch {
      return undefined;
    }
  }

  /** Tells the operator; never lets a faulty hook turn the answer into a crash. */
  function report(error: unknown, request: Request): void {
    try {
      if (onError) onError(error, request);
      else console.error(`Agent Server: ${request.method} ${request.url} failed:`, error);
    } catch {
      // The hook's own failure must not change what the caller gets.
    }
  }

  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    let path = url.pathname;
    if (prefix !== "" && path.startsWith(prefix)) path = path.slice(prefix.length) || "/";
    const method = request.method.toUpperCase();
    const matched = matchRoute(routes, method, path);
    if (!matched) return unknownRoute(method, path);
    const owner = await callerOf(request);
    if (owner === undefined)
      return problem(401, "Unauthorized", "sign in: the server's auth hook did not name a user");
    try {
      return await matched.entry.run(request, owner, matched.params, url);
    } catch (error) {
      if (error instanceof HttpProblem) return error.toResponse();
      report(error, request);
      if (error instanceof StudioRateLimitError) {
        const seconds =
          error.retryAfter !== undefined ? Math.max(1, Math.ceil(error.retryAfter / 1000)) : 0;
        return json(
          { error: "Service Unavailable", message: "the server is busy; try again shortly" },
          503,
          seconds > 0 ? { "Retry-After": String(seconds) } : undefined,
        );
      }
      return problem(500, "Internal Server Error", "internal error");
    }
  };
}
