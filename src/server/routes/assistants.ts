/**
 * The server's own routes and its assistants: one per graph, named by the graph id, with no
 * configuration of its own (the graphs are given in code).
 */
import type { ServerContext } from "../context";
import { json, notFound } from "../http";
import { openRoute, type RouteEntry, route } from "../router";

const SERVER_STARTED = new Date().toISOString();

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

export function assistantRoutes(ctx: ServerContext): RouteEntry[] {
  return [
    // Health and server probes need no user: a load balancer's check (`/ok`, as the Agent Server
    // names it) and agent-chat-ui's probe of the server (`/info`) carry no credentials.
    openRoute("GET", "/info", async () =>
      json({
        version: "langchain-studio",
        flags: { assistants: true, crons: false, langsmith: false },
      }),
    ),
    openRoute("GET", "/ok", async () => json({ ok: true })),
    route("POST", "/assistants/search", async () => json([...ctx.graphs.keys()].map(assistant))),
    route("GET", "/assistants/:assistant_id", async (_r, _o, p) => {
      const id = decodeURIComponent(p.assistant_id ?? "");
      return ctx.graphs.has(id) ? json(assistant(id)) : notFound(`Assistant ${id}`);
    }),
  ];
}
