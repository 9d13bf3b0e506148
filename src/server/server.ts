/**
 * `createAgentServer`: the Agent Server routes `useStream` and agent-chat-ui call, as one
 * web-standard `(request) => Promise<Response>`. This file only composes: LangGraph runs the
 * graphs; the checkpointer and store passed in keep their state; the thread list is kept in the
 * service (`thread-records.ts`); runs live in this process (`runs.ts`) and their rules in
 * `run-lifecycle.ts`; the routes, by resource, in `routes/`; each user's graphs (and keys) in
 * `user-graphs.ts`.
 */
import { resolveClient } from "../client/resolve";
import { StudioValidationError } from "../errors";
import { callerOf } from "./caller";
import { checkServerCheckpointer } from "./checkpointer-check";
import type { ServerContext } from "./context";
import { withCors } from "./cors";
import { report, unexpected } from "./failures";
import { HttpProblem, outsideBasePath, problem, unknownRoute } from "./http";
import { type AgentServerHandler, type AgentServerOptions, serverSettings } from "./options";
import { matchRoute, mountedAt, routedPath } from "./router";
import { assistantRoutes } from "./routes/assistants";
import { backgroundRunRoutes } from "./routes/background-runs";
import { runRoutes } from "./routes/runs";
import { statelessRunRoutes } from "./routes/stateless-runs";
import { storeRoutes } from "./routes/store";
import { threadCopyRoutes } from "./routes/thread-copies";
import { threadCountRoutes } from "./routes/thread-search";
import { threadStateRoutes } from "./routes/thread-state";
import { threadRoutes } from "./routes/threads";
import { RunDirectory } from "./run-directory";
import { RunLifecycle } from "./run-lifecycle";
import { takenOverRequest } from "./run-takeover";
import { RunRegistry } from "./runs";
import { ServiceAssistants } from "./service-assistants";
import { storeAccess } from "./store-access";
import { ThreadRecords } from "./thread-records";
import { userGraphs } from "./user-graphs";
import { EventLogs } from "./v2/event-log";
import { protocolRoutes } from "./v2/routes";
import { ClientThreadIds } from "./v2/thread-ids";
import { withWebSockets } from "./v2/websocket-route";
import { guardWrites } from "./write-guard";

export type { AgentServerAuth, AgentServerHandler, AgentServerOptions } from "./options";

/**
 * The handler for `options`, checked first: a bad option is a `StudioValidationError` naming it,
 * thrown here rather than on the first request.
 */
export function createAgentServer(options: AgentServerOptions): AgentServerHandler {
  const settings = serverSettings(options);
  const { graphs, checkpointer, store, basePath } = settings;
  checkServerCheckpointer(checkpointer);
  // Checked as functions by the schema; typed as the caller gave them.
  const { auth, onError, keyRing } = options;
  const coordination = settings.coordination;
  if (coordination && keyRing) {
    // Redis would hold each run's input and events (the conversation) in plaintext for as long
    // as a join may read them, beside a service that holds them sealed.
    throw new StudioValidationError(
      "coordination",
      "cannot be used with keyRing: Redis would keep the runs' events unencrypted; run one " +
        "instance, or leave keyRing out",
    );
  }
  const client = resolveClient(settings.clientFields);
  const records = new ThreadRecords(client, settings.tenant);
  const runs = new RunRegistry();
  const guard = guardWrites(checkpointer);
  const { shared, forUser } = userGraphs({
    graphs,
    checkpointer,
    store,
    keyRing,
    guard: guard.wrap,
  });
  // Failures no request sees (the backend's, a run taken over) name where they happened.
  const internal = (path: string) => new Request(`http://agent-server.internal${path}`);
  const ctx: ServerContext = {
    records,
    runs,
    directory: new RunDirectory(runs, coordination),
    lifecycle: new RunLifecycle({
      records,
      runs,
      guard,
      sealed: keyRing !== undefined,
      deleteCheckpoints: async (threadId, owner) =>
        (await forUser(owner)).checkpointer.deleteThread(threadId),
      coordination,
      report: (error) => report(onError, error, internal("/coordination")),
      requestFor: (shared) => takenOverRequest(ctx, shared, internal),
    }),
    graphs: shared.graphs,
    userGraphs: forUser,
    auth: auth !== undefined,
    assistants:
      options.assistants === undefined
        ? undefined
        : new ServiceAssistants(client, options.assistants, {
            tenant: settings.tenant,
            auth: auth !== undefined,
            graphs: shared.graphs,
          }),
    prefix: basePath ?? "",
    maxBodyBytes: settings.maxBodyBytes,
    maxJsonDepth: settings.maxJsonDepth,
    maxInputBytes: settings.maxInputBytes,
    report: (error, request) => report(onError, error, request),
    heartbeatMs: settings.heartbeatIntervalMs,
    threadIds: new ClientThreadIds(records),
    events: new EventLogs(coordination?.protocolLogs?.()),
  };
  const routes = [
    ...assistantRoutes(ctx),
    ...threadRoutes(ctx),
    ...runRoutes(ctx),
    ...storeRoutes(ctx, storeAccess(settings.storeNamespaces, ctx.auth)),
    ...threadCountRoutes(ctx),
    ...threadCopyRoutes(ctx),
    ...threadStateRoutes(ctx),
    ...backgroundRunRoutes(ctx),
    ...statelessRunRoutes(ctx),
    ...protocolRoutes(ctx),
  ];

  const handler = async (request: Request): Promise<Response> => {
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
  // The WebSocket upgrade first: its response must reach the runtime as made (not re-wrapped).
  const served = withWebSockets(
    ctx,
    { auth, cors: settings.cors },
    withCors(settings.cors, handler, ctx.report),
  );
  return Object.assign(served, {
    drain: () => ctx.lifecycle.drain(),
    close: () => ctx.lifecycle.close(),
  });
}
