/**
 * Every route of the server, by resource (as langgraph-api's embed server registers them), in
 * the order they are matched.
 */
import type { ServerContext } from "../context";
import type { RouteEntry } from "../router";
import { type AgentServerStoreNamespaces, storeAccess } from "../store-access";
import { protocolRoutes } from "../v2/routes";
import { assistantRoutes } from "./assistants";
import { backgroundRunRoutes } from "./background-runs";
import { runRoutes } from "./runs";
import { statelessRunRoutes } from "./stateless-runs";
import { storeRoutes } from "./store";
import { threadCopyRoutes } from "./thread-copies";
import { threadCountRoutes } from "./thread-search";
import { threadStateRoutes } from "./thread-state";
import { threadRoutes } from "./threads";

export function allRoutes(
  ctx: ServerContext,
  storeNamespaces: AgentServerStoreNamespaces | undefined,
): RouteEntry[] {
  return [
    ...assistantRoutes(ctx),
    ...threadRoutes(ctx),
    ...runRoutes(ctx),
    ...storeRoutes(ctx, storeAccess(storeNamespaces, ctx.auth)),
    ...threadCountRoutes(ctx),
    ...threadCopyRoutes(ctx),
    ...threadStateRoutes(ctx),
    ...backgroundRunRoutes(ctx),
    ...statelessRunRoutes(ctx),
    ...protocolRoutes(ctx),
  ];
}
