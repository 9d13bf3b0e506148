/**
 * The server's own routes and its assistants: one per graph given in code, named by the graph id
 * (read-only), and, with the `assistants` option, the service's own assistants beside them
 * (`service-assistants.ts` says how their ids, owners and tools work).
 */

import type { Assistant } from "../../api-types";
import {
  AssistantCreateSchema,
  AssistantPatchSchema,
  AssistantSearchSchema,
} from "../assistant-requests";
import {
  codeGraphSchemas,
  codeGraphView,
  SERVICE_ASSISTANT_GRAPH,
  serviceAssistantSchemas,
  serviceAssistantView,
} from "../assistant-view";
import { readBody, type ServerContext } from "../context";
import { HttpProblem, json, noContent, notFound } from "../http";
import { parseBody } from "../requests";
import { openRoute, type RouteEntry, route } from "../router";
import type { ServiceAssistants } from "../service-assistants";

const SERVER_STARTED = new Date().toISOString();

type View = Record<string, unknown>;

function idOf(param: string | undefined): string {
  try {
    return decodeURIComponent(param ?? "");
  } catch {
    throw new HttpProblem(404, "Not Found", `Assistant ${param} not found`);
  }
}

function readOnly(id: string): HttpProblem {
  return new HttpProblem(
    409,
    "Conflict",
    `Assistant ${id} is a graph given in code (createAgentServer's graphs): it cannot be ` +
      "changed or deleted here; change the code",
  );
}

function noServiceAssistants(): HttpProblem {
  return new HttpProblem(
    501,
    "Not Implemented",
    "this server lists only the graphs given in code: pass createAgentServer({ assistants: " +
      "{ load: loadAssistantAgent, tools } }) to create and run the service's assistants",
  );
}

type SearchBody = ReturnType<typeof AssistantSearchSchema.parse>;

function matches(view: View, body: SearchBody): boolean {
  if (body.graph_id && view.graph_id !== body.graph_id) return false;
  if (body.name && !String(view.name).toLowerCase().includes(body.name.toLowerCase())) {
    return false;
  }
  const metadata = view.metadata as Record<string, unknown>;
  return Object.entries(body.metadata ?? {}).every(
    ([key, value]) => JSON.stringify(metadata[key]) === JSON.stringify(value),
  );
}

function sorted(views: View[], by: string | null | undefined, order: string | null | undefined) {
  if (!by) return views;
  const sign = order === "asc" ? 1 : -1;
  return [...views].sort((a, b) => sign * String(a[by]).localeCompare(String(b[by])));
}

export function assistantRoutes(ctx: ServerContext): RouteEntry[] {
  const service = (): ServiceAssistants => {
    if (!ctx.assistants) throw noServiceAssistants();
    return ctx.assistants;
  };
  const view = (record: Assistant) => serviceAssistantView(record, SERVER_STARTED);
  /** The code graph or the user's service assistant `id`, as a view; a 404 otherwise. */
  const found = async (owner: string, id: string): Promise<View> => {
    if (ctx.graphs.has(id)) return codeGraphView(id, SERVER_STARTED);
    const record = await ctx.assistants?.find(owner, id);
    if (!record) throw new HttpProblem(404, "Not Found", `Assistant ${id} not found`);
    return view(record);
  };

  /** The code graphs and the user's service assistants a search body matches. */
  const matching = async (owner: string, body: SearchBody): Promise<View[]> => {
    const code = [...ctx.graphs.keys()].map((id) => codeGraphView(id, SERVER_STARTED));
    // Only asked of the service when the search can match one of its assistants.
    const wantsService =
      ctx.assistants !== undefined && (!body.graph_id || body.graph_id === SERVICE_ASSISTANT_GRAPH);
    const services = wantsService ? (await service().list(owner)).map(view) : [];
    const shadowed = services.filter((v) => !ctx.graphs.has(String(v.assistant_id)));
    return [...code, ...shadowed].filter((v) => matches(v, body));
  };

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
    route("POST", "/assistants/search", async (request, owner) => {
      const body = parseBody(AssistantSearchSchema, await readBody(ctx, request));
      const all = sorted(await matching(owner, body), body.sort_by, body.sort_order);
      const offset = body.offset ?? 0;
      return json(all.slice(offset, offset + (body.limit ?? 10)), 200, {
        "X-Pagination-Total": String(all.length),
      });
    }),
    route("POST", "/assistants/count", async (request, owner) => {
      const body = parseBody(AssistantSearchSchema, await readBody(ctx, request));
      return json((await matching(owner, body)).length);
    }),
    route("POST", "/assistants", async (request, owner) => {
      const body = parseBody(AssistantCreateSchema, await readBody(ctx, request));
      const created = await service().create(owner, body, ctx.graphs);
      return json(view(created));
    }),
    route("GET", "/assistants/:assistant_id", async (_r, owner, p) =>
      json(await found(owner, idOf(p.assistant_id))),
    ),
    route("GET", "/assistants/:assistant_id/schemas", async (_r, owner, p) => {
      const id = idOf(p.assistant_id);
      if (ctx.graphs.has(id)) return json(codeGraphSchemas(id));
      await found(owner, id);
      return json(serviceAssistantSchemas(service().toolNames));
    }),
    route("PATCH", "/assistants/:assistant_id", async (request, owner, p) => {
      const id = idOf(p.assistant_id);
      if (ctx.graphs.has(id)) throw readOnly(id);
      const body = parseBody(AssistantPatchSchema, await readBody(ctx, request));
      return json(view(await service().patch(owner, id, body, ctx.graphs)));
    }),
    route("DELETE", "/assistants/:assistant_id", async (_r, owner, p) => {
      const id = idOf(p.assistant_id);
      if (ctx.graphs.has(id)) throw readOnly(id);
      if (!ctx.assistants) return notFound(`Assistant ${id}`);
      await ctx.assistants.delete(owner, id);
      return noContent();
    }),
  ];
}
