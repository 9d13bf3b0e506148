/**
 * `GET /threads/:id/stream/events` with `Upgrade: websocket`: the thread's protocol v2 commands
 * and events over one socket (`websocket.ts`), where the runtime offers an upgrade
 * (`socket-upgrade.ts`). Answered in front of the routes and of `cors`: a response to an upgrade
 * must reach the runtime as it was made (Deno's and workerd's carry the socket).
 *
 * Browsers send no preflight for a WebSocket and do not apply CORS to it, so the `Origin` is
 * checked here: the handler's own host, or an origin the `cors` option allows; any other page is
 * a 403 before anything else. The caller is then asked of `auth` like every route's; a socket for
 * nobody is accepted and closed with 4401: the SDK reads 4000 plus a status as that HTTP status,
 * and a 4xx ends its stream rather than reconnecting.
 */
import { callerOf } from "../caller";
import type { ServerContext } from "../context";
import { allows, type CorsSettings } from "../cors";
import { unexpected } from "../failures";
import { HttpProblem, problem } from "../http";
import type { AgentServerAuth } from "../options";
import { routedPath } from "../router";
import { acceptSocket, type OpenSocket } from "./socket-upgrade";
import { ProtocolSocketSession } from "./websocket";

const STREAM_PATH = /^\/threads\/([^/]+)\/stream\/events\/?$/;

/** A close reason is at most 123 bytes: these stay short. */
const SIGN_IN = "sign in: the server's auth hook did not name a user";

export interface WebSocketRouteOptions {
  auth: AgentServerAuth | undefined;
  cors: CorsSettings | undefined;
}

export function isWebSocketHandshake(request: Request): boolean {
  return (
    request.method.toUpperCase() === "GET" &&
    request.headers.get("upgrade")?.toLowerCase() === "websocket"
  );
}

function sameHost(origin: string, url: URL): boolean {
  try {
    return new URL(origin).host === url.host;
  } catch {
    return false;
  }
}

/** A socket accepted only to be closed: `code` is what the client is told. */
function refusal(code: number, reason: string): OpenSocket {
  return (socket) => {
    socket.close(code, reason);
    return { message: () => {}, closed: () => {} };
  };
}

function noUpgrade(): Response {
  return problem(
    501,
    "Not Implemented",
    "this runtime offers the handler no WebSocket upgrade: on Node add " +
      'server.on("upgrade", toNodeUpgradeListener(handler)); on Bun pass websocket: bunWebSocket ' +
      "to Bun.serve; or use the SSE transport (POST)",
  );
}

/** `http` with protocol v2's WebSocket answered first; every other request goes to `http`. */
export function withWebSockets(
  ctx: ServerContext,
  options: WebSocketRouteOptions,
  http: (request: Request) => Promise<Response>,
): (request: Request, runtime?: unknown) => Promise<Response> {
  const upgrade = async (request: Request, runtime: unknown, param: string, url: URL) => {
    const origin = request.headers.get("Origin");
    if (
      origin !== null &&
      !sameHost(origin, url) &&
      !(options.cors && (await allows(options.cors, origin, request, ctx.report)))
    ) {
      return problem(
        403,
        "Forbidden",
        `origin ${origin} may not open a WebSocket here; list it in the server's cors.origins`,
      );
    }
    const owner = await callerOf(options.auth, request, ctx.report);
    if (owner === undefined) return acceptSocket(request, runtime, refusal(4401, SIGN_IN));
    let threadId: string;
    try {
      threadId = decodeURIComponent(param);
    } catch {
      return acceptSocket(request, runtime, refusal(4404, `Thread ${param} not found`));
    }
    // Not found is no refusal: `run.start` on this socket creates a client-chosen thread.
    const stored = await ctx.threadIds.find(owner, threadId);
    const scope = { ctx, owner, threadId, request };
    return acceptSocket(
      request,
      runtime,
      (socket) => new ProtocolSocketSession(scope, socket, stored),
    );
  };

  return async (request: Request, runtime?: unknown) => {
    if (!isWebSocketHandshake(request)) return http(request);
    const url = new URL(request.url);
    const path = routedPath(url.pathname, ctx.prefix);
    const param = path === undefined ? undefined : STREAM_PATH.exec(path)?.[1];
    if (param === undefined) return http(request);
    try {
      return (await upgrade(request, runtime, param, url)) ?? noUpgrade();
    } catch (error) {
      if (error instanceof HttpProblem) return error.toResponse();
      ctx.report(error, request);
      // Before the handshake is answered, so as a response.
      return unexpected(error);
    }
  };
}
