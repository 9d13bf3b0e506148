/**
 * What every route gets: the thread list, the runs, the run lifecycle, the graphs, and the
 * server's options; the caller (the auth hook's user) comes with each request. Built once by
 * `server.ts`; the routes (`routes/`) hold no state of their own.
 */

import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import type { RunHandle } from "./coordination";
import type { RunnableGraph } from "./graphs";
import { HttpProblem, readJson } from "./http";
import type { RunDirectory } from "./run-directory";
import type { RunLifecycle } from "./run-lifecycle";
import type { RunRegistry } from "./runs";
import type { ServiceAssistants } from "./service-assistants";
import { type RunEventsOptions, runEventsResponse } from "./sse";
import type { StoredThread, ThreadRecords } from "./thread-records";
import type { ThreadView } from "./thread-view";
import type { EventLogs } from "./v2/event-log";
import type { ClientThreadIds } from "./v2/thread-ids";

export interface ServerContext {
  records: ThreadRecords;
  runs: RunRegistry;
  /** Runs by id and by thread, this process's or (with `coordination`) any instance's. */
  directory: RunDirectory;
  lifecycle: RunLifecycle;
  /** Graph id to the graph over the server's own checkpointer (runs use `userGraphs`). */
  graphs: ReadonlyMap<string, RunnableGraph>;
  /** The user's graphs and checkpointer (with `keyRing`, sealed with the user's keys). */
  userGraphs(owner: string): Promise<{
    graphs: ReadonlyMap<string, RunnableGraph>;
    checkpointer: BaseCheckpointSaver;
    store: BaseStore | undefined;
  }>;
  /** The service's assistants, with the `assistants` option. */
  assistants?: ServiceAssistants | undefined;
  /** True when the server has an `auth` hook (then each thread is its owner's). */
  auth: boolean;
  /** The path prefix the handler is mounted under, without a trailing slash. */
  prefix: string;
  /** The largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** The deepest JSON nesting a body may have (the body itself is level 1). */
  maxJsonDepth: number;
  /** The largest run input accepted, in bytes (`run-admission.ts`). */
  maxInputBytes: number;
  /** Tells the operator of an error the caller does not see in full. */
  report(error: unknown, request: Request): void;
  /** Milliseconds between SSE heartbeats on an idle stream (`heartbeatIntervalMs`); 0: none. */
  heartbeatMs: number;
  /** Client-chosen thread ids and the service threads they name (`v2/thread-ids.ts`). */
  threadIds: ClientThreadIds;
  /** Each thread's protocol v2 events in this process (`v2/event-log.ts`). */
  events: EventLogs;
}

export function readBody(ctx: ServerContext, request: Request): Promise<Record<string, unknown>> {
  return readJson(request, ctx.maxBodyBytes, ctx.maxJsonDepth);
}

/** The thread id a route's `:thread_id` names, or a 404 for one that cannot be decoded. */
export function threadIdOf(param: string): string {
  try {
    return decodeURIComponent(param);
  } catch {
    throw new HttpProblem(404, "Not Found", `Thread ${param} not found`);
  }
}

/** The owner's thread, or a 404 (another user's thread is not found either). */
export async function ownThread(
  ctx: ServerContext,
  owner: string,
  threadId: string,
): Promise<StoredThread> {
  const id = threadIdOf(threadId);
  const stored = await ctx.threadIds.find(owner, id);
  if (!stored) throw new HttpProblem(404, "Not Found", `Thread ${threadId} not found`);
  return stored;
}

/**
 * The service id of the owner's thread `threadId` (a service id or a client-chosen one), or a
 * 404, for a route that needs no more of its record (a run): no service call once this process
 * knows the thread (`ClientThreadIds#locate`).
 */
export async function ownThreadId(
  ctx: ServerContext,
  owner: string,
  threadId: string,
): Promise<string> {
  const found = await ctx.threadIds.locate(owner, threadIdOf(threadId));
  if (found) return found.serviceId;
  throw new HttpProblem(404, "Not Found", `Thread ${threadId} not found`);
}

/**
 * The thread as its owner sees it: under the id the client chose, if it chose one; "busy" while a
 * run of this process (or of `busy`'s threads, read from every instance) is on it.
 */
export function shown(ctx: ServerContext, view: ThreadView, busy?: Set<string>): ThreadView {
  const { client_thread_id, ...rest } = view;
  const named = client_thread_id === undefined ? rest : { ...rest, thread_id: client_thread_id };
  const running = busy ? busy.has(view.thread_id) : ctx.lifecycle.isBusy(view.thread_id);
  return running ? { ...named, status: "busy" } : named;
}

/** The threads as `shown`, "busy" read from every instance (one backend call for them all). */
export async function shownAll(ctx: ServerContext, views: ThreadView[]): Promise<ThreadView[]> {
  const busy = await ctx.directory.busy(views.map((view) => view.thread_id));
  return views.map((view) => shown(ctx, view, busy));
}

/**
 * The graph of the thread's run under way (on any instance), else the graph that last ran on it,
 * as its owner runs it, if the server still has it. The record names a run's graph only once the
 * run ends: read with the previous run's graph, a run of another graph under way has no `next`,
 * and a UI reloaded then takes the thread for idle and never rejoins it.
 */
export async function graphOf(
  ctx: ServerContext,
  owner: string,
  view: ThreadView,
): Promise<RunnableGraph | undefined> {
  const [newest] = await ctx.directory.list(view.thread_id, undefined, 1);
  const id = newest?.status === "running" ? newest.assistant_id : view.metadata.graph_id;
  if (typeof id !== "string") return undefined;
  return (await runnableAssistant(ctx, owner, id))?.graph;
}

/**
 * The graph a run of `assistantId` runs, with the user's checkpointer: a graph given in code, or
 * the user's service assistant as an agent (with the `assistants` option).
 */
export async function runnableAssistant(
  ctx: ServerContext,
  owner: string,
  assistantId: string,
): Promise<{ graph: RunnableGraph; checkpointer: BaseCheckpointSaver } | undefined> {
  const mine = await ctx.userGraphs(owner);
  const code = mine.graphs.get(assistantId);
  if (code) return { graph: code, checkpointer: mine.checkpointer };
  const service = await ctx.assistants?.graph(owner, assistantId, mine);
  return service ? { graph: service, checkpointer: mine.checkpointer } : undefined;
}

/** The run's events from `lastEventId` on; a disconnect calls `onDisconnect`. */
export function runEvents(
  ctx: ServerContext,
  run: RunHandle,
  lastEventId: string | undefined,
  onDisconnect?: () => void,
  more: Pick<RunEventsOptions, "keep"> & { location?: string } = {},
): Response {
  const location = more.location ?? `${ctx.prefix}/threads/${run.thread_id}/runs/${run.run_id}`;
  return runEventsResponse(ctx.directory.follow(run, lastEventId), location, {
    lastEventId,
    onDisconnect,
    keep: more.keep,
    heartbeatMs: ctx.heartbeatMs,
  });
}
