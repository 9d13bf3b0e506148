/**
 * `createAgentServer`: the Agent Server routes `useStream` and agent-chat-ui call, as one
 * web-standard `(request) => Promise<Response>`. This file only composes: LangGraph runs the
 * graphs; the checkpointer and store passed in keep their state; the thread list is kept in the
 * service (`thread-records.ts`); runs live in this process (`runs.ts`) and their rules in
 * `run-lifecycle.ts`; the routes, by resource, in `routes/`.
 */
import { resolveClient } from "../client/resolve";
import { StudioRateLimitError } from "../errors";
import { checkServerCheckpointer } from "./checkpointer-check";
import type { ServerContext } from "./context";
import { DEFAULT_MAX_BODY_BYTES, HttpProblem, json, problem, unknownRoute } from "./http";
import type { AgentServerHandler, AgentServerOptions } from "./options";
import { matchRoute } from "./router";
import { assistantRoutes } from "./routes/assistants";
import { runRoutes } from "./routes/runs";
import { threadRoutes } from "./routes/threads";
import { DEFAULT_MAX_INPUT_BYTES } from "./run-admission";
import { RunLifecycle } from "./run-lifecycle";
import { RunRegistry } from "./runs";
import { ThreadRecords } from "./thread-records";
import { userGraphs } from "./user-graphs";
import { guardWrites } from "./write-guard";

export type { AgentServerAuth, AgentServerHandler, AgentServerOptions } from "./options";

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
    maxInputBytes,
    keyRing,
    ...rest
  } = options;
  checkServerCheckpointer(checkpointer);
  const records = new ThreadRecords(resolveClient({ ...rest, client }));
  const runs = new RunRegistry();
  const guard = guardWrites(checkpointer);
  const { shared, forUser } = userGraphs({
    graphs,
    checkpointer,
    store,
    keyRing,
    guard: guard.wrap,
  });
  const ctx: ServerContext = {
    records,
    runs,
    lifecycle: new RunLifecycle({
      records,
      runs,
      guard,
      sealed: keyRing !== undefined,
      deleteCheckpoints: async (threadId, owner) =>
        (await forUser(owner)).checkpointer.deleteThread(threadId),
    }),
    graphs: shared.graphs,
    userGraphs: forUser,
    auth: auth !== undefined,
    prefix: (basePath ?? "").replace(/\/+$/, ""),
    maxBodyBytes: maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    maxInputBytes: maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES,
    report: (error, request) => report(onError, error, request),
  };
  const routes = [...assistantRoutes(ctx), ...threadRoutes(ctx), ...runRoutes(ctx)];

  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    let path = url.pathname;
    if (ctx.prefix !== "" && path.startsWith(ctx.prefix)) {
      path = path.slice(ctx.prefix.length) || "/";
    }
    const method = request.method.toUpperCase();
    const matched = matchRoute(routes, method, path);
    if (!matched) return unknownRoute(method, path);
    const owner = await callerOf(auth, request);
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

/** The caller's user id: "" without `auth`, undefined (a 401) when the hook names nobody. */
async function callerOf(
  auth: AgentServerOptions["auth"],
  request: Request,
): Promise<string | undefined> {
  if (!auth) return "";
  try {
    const user = await auth(request);
    return typeof user === "string" && user !== "" ? user : undefined;
  } catch {
    return undefined;
  }
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
