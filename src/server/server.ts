/**
 * `createAgentServer`: the Agent Server routes `useStream` and agent-chat-ui call, as one
 * web-standard `(request) => Promise<Response>`. This file only composes: LangGraph runs the
 * graphs; the checkpointer and store passed in keep their state; the thread list is kept in the
 * service (`thread-records.ts`); runs live in this process (`runs.ts`) and their rules in
 * `run-lifecycle.ts`; the routes, by resource, in `routes/`.
 */
import { resolveClient } from "../client/resolve";
import { StudioRateLimitError, StudioValidationError } from "../errors";
import type { ServerContext } from "./context";
import { bindGraph, type RunnableGraph } from "./graphs";
import { HttpProblem, json, outsideBasePath, problem, unknownRoute } from "./http";
import { type AgentServerHandler, type AgentServerOptions, serverSettings } from "./options";
import { matchRoute } from "./router";
import { assistantRoutes } from "./routes/assistants";
import { runRoutes } from "./routes/runs";
import { threadRoutes } from "./routes/threads";
import { RunLifecycle } from "./run-lifecycle";
import { RunRegistry } from "./runs";
import { ThreadRecords } from "./thread-records";
import { guardWrites } from "./write-guard";

export type { AgentServerAuth, AgentServerHandler, AgentServerOptions } from "./options";

/**
 * The handler for `options`, checked first: a bad option is a `StudioValidationError` naming it,
 * thrown here rather than on the first request.
 */
export function createAgentServer(options: AgentServerOptions): AgentServerHandler {
  const settings = serverSettings(options);
  const { graphs, checkpointer, store, basePath } = settings;
  // Checked as functions by the schema; typed as the caller gave them.
  const { auth, onError } = options;
  const records = new ThreadRecords(resolveClient(settings.clientFields), settings.tenant);
  const runs = new RunRegistry();
  const guard = guardWrites(checkpointer);
  const bound = new Map<string, RunnableGraph>();
  for (const [id, graph] of Object.entries(graphs)) {
    bound.set(id, bindGraph(graph, id, guard.saver, store));
  }
  const ctx: ServerContext = {
    records,
    runs,
    lifecycle: new RunLifecycle({
      records,
      runs,
      guard,
      deleteCheckpoints: (threadId) => checkpointer.deleteThread(threadId),
    }),
    graphs: bound,
    auth: auth !== undefined,
    prefix: basePath ?? "",
    maxBodyBytes: settings.maxBodyBytes,
    maxJsonDepth: settings.maxJsonDepth,
    report: (error, request) => report(onError, error, request),
  };
  const routes = [...assistantRoutes(ctx), ...threadRoutes(ctx), ...runRoutes(ctx)];

  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const path = routedPath(url.pathname, ctx.prefix);
    if (path === undefined) return outsideBasePath(method, url.pathname, ctx.prefix);
    const matched = matchRoute(routes, method, path);
    if (!matched) return unknownRoute(method, path, mountedAt(routes, method, path));
    const owner = matched.entry.open ? "" : await callerOf(auth, request, ctx.report);
    if (owner === undefined) {
      return problem(401, "Unauthorized", "sign in: the server's auth hook did not name a user");
    }
    try {
      return await matched.entry.run(request, owner, matched.params, url);
    } catch (error) {
      if (error instanceof HttpProblem) return error.toResponse();
      ctx.report(error, request);
      return unexpected(error);
    }
  };
}

/** The path the routes see: `pathname` within `prefix`, or undefined when it is outside. */
function routedPath(pathname: string, prefix: string): string | undefined {
  if (prefix === "") return pathname;
  if (pathname === prefix) return "/";
  return pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : undefined;
}

/** The prefix before the part of `path` a route matches (`/api` of `/api/ok`), if any. */
function mountedAt(
  routes: Parameters<typeof matchRoute>[0],
  method: string,
  path: string,
): string | undefined {
  for (let at = path.indexOf("/", 1); at > 0; at = path.indexOf("/", at + 1)) {
    if (matchRoute(routes, method, path.slice(at))) return path.slice(0, at);
  }
  return undefined;
}

/**
 * The caller's user id: "" without `auth`, undefined (a 401) when the hook names nobody. A hook
 * that throws or answers something other than a string or null is a bug (or an expired key): it
 * is told to `onError`, and the browser gets the same plain 401. A blank id is nobody.
 */
async function callerOf(
  auth: AgentServerOptions["auth"],
  request: Request,
  tell: ServerContext["report"],
): Promise<string | undefined> {
  if (!auth) return "";
  let user: unknown;
  try {
    user = await auth(request);
  } catch (error) {
    tell(error, request);
    return undefined;
  }
  if (user === null || user === undefined) return undefined;
  if (typeof user !== "string") {
    // Its type only: the value may hold a credential.
    const kind = typeof user;
    const got = `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`;
    tell(
      new StudioValidationError(
        "auth",
        `returned ${got}, not a user id (a string) or null; the request was refused (401)`,
      ),
      request,
    );
    return undefined;
  }
  return user.trim() === "" ? undefined : user;
}

/** Tells the operator; never lets a faulty hook turn the answer into a crash. */
function report(onError: AgentServerOptions["onError"], error: unknown, request: Request): void {
  try {
    if (onError) onError(error, request);
    else console.error(`Agent Server: ${request.method} ${request.url} failed:`, error);
  } catch {
    // The hook's own failure must not change what the caller gets.
  }
}

/** A 503 for the service's rate limit (with its `Retry-After`), else a 500 with no detail. */
function unexpected(error: unknown): Response {
  if (!(error instanceof StudioRateLimitError)) {
    return problem(500, "Internal Server Error", "internal error");
  }
  const seconds =
    error.retryAfter !== undefined ? Math.max(1, Math.ceil(error.retryAfter / 1000)) : 0;
  return json(
    { error: "Service Unavailable", message: "the server is busy; try again shortly" },
    503,
    seconds > 0 ? { "Retry-After": String(seconds) } : undefined,
  );
}
