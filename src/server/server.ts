/**
 * `createAgentServer`: the Agent Server routes `useStream` and agent-chat-ui call, as one
 * web-standard `(request) => Promise<Response>`. This file only composes: LangGraph runs the
 * graphs; the checkpointer and store passed in keep their state; the thread list is kept in the
 * service (`thread-records.ts`); runs live in this process (`runs.ts`) and their rules in
 * `run-lifecycle.ts`; the routes, by resource, in `routes/`; each user's graphs (and keys) in
 * `user-graphs.ts`.
 */
import { resolveClient } from "../client/resolve";
import { checkServerCheckpointer } from "./checkpointer-check";
import type { ServerContext } from "./context";
import { withCors } from "./cors";
import { dispatcher } from "./dispatch";
import { report } from "./failures";
import { type AgentServerHandler, type AgentServerOptions, serverSettings } from "./options";
import { allRoutes } from "./routes";
import { RunDirectory } from "./run-directory";
import { RunLifecycle } from "./run-lifecycle";
import { takenOverRequest } from "./run-takeover";
import { RunRegistry } from "./runs";
import { ServiceAssistants } from "./service-assistants";
import { ThreadRecords } from "./thread-records";
import { userGraphs } from "./user-graphs";
import { EventLogs } from "./v2/event-log";
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
  const handler = dispatcher(ctx, allRoutes(ctx, settings.storeNamespaces), auth);
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
