/**
 * One request to its route: the path under `basePath`, the route it matches (or a 404 that says
 * which methods the path has), the caller (a 401 when the auth hook names none), and the route's
 * answer; an error no route answered for is reported and answered with a 500 that holds nothing
 * of it.
 */
import { callerOf } from "./caller";
import type { ServerContext } from "./context";
import { unexpected } from "./failures";
import { HttpProblem, outsideBasePath, problem, unknownRoute } from "./http";
import type { AgentServerOptions } from "./options";
import { matchRoute, mountedAt, type RouteEntry, routedPath } from "./router";

export function dispatcher(
  ctx: ServerContext,
  routes: RouteEntry[],
  auth: AgentServerOptions["auth"],
): (request: Request) => Promise<Response> {
  return async (request) => {
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
