/**
 * A tiny method + path router: static segments and `:param` segments, nothing more. A path that
 * exists with another method is a 405 (with `Allow`), an unknown path a 404.
 */
import type { IncomingHttpHeaders } from "node:http";
import { HttpError } from "./http-error";
import type { ProxyResult } from "./upstream";

/** `control`: the `/_emulator` routes, which take the key either way (header of either room). */
export type RouteAuth = "none" | "studio" | "inference" | "control";

export interface RequestContext {
  method: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The request's test scope (`x-emulator-scope`); undefined without one. */
  scope: string | undefined;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
  raw: Buffer;
}

/** What a handler produced; the server writes it (or, with an "after" fault, replaces it). */
export type HandlerResult =
  | { kind: "json"; status?: number; body: unknown }
  | { kind: "sse"; produce: (out: SseOut) => Promise<void> }
  | ProxyResult;

export interface SseOut {
  /**
   * Queues one `data: <json>` event (already serialized); a promise only when the caller must wait.
   */
  send(json: string): Promise<void> | undefined;
  /** Writes `data: [DONE]` and ends the response. */
  done(): Promise<void>;
  /** True once the client went away or the stream was cut. */
  readonly closed: boolean;
}

export type Handler = (ctx: RequestContext) => HandlerResult | Promise<HandlerResult>;

export interface Route {
  method: string;
  path: string;
  auth: RouteAuth;
  handler: Handler;
}

interface CompiledRoute extends Route {
  segments: string[];
}

export interface Match {
  route: Route;
  params: Record<string, string>;
}

export class Router {
  private readonly exact = new Map<string, Map<string, Route>>();
  private readonly patterns: CompiledRoute[] = [];

  add(route: Route): this {
    if (route.path.includes(":")) {
      this.patterns.push({ ...route, segments: route.path.split("/") });
    } else {
      const byMethod = this.exact.get(route.path) ?? new Map<string, Route>();
      byMethod.set(route.method, route);
      this.exact.set(route.path, byMethod);
    }
    return this;
  }

  /** The route for the request; throws 404 or 405 as an HttpError. */
  match(method: string, path: string): Match {
    const byMethod = this.exact.get(path);
    if (byMethod) {
      const route = byMethod.get(method);
      if (route) return { route, params: {} };
      throw methodNotAllowed(method, path, [...byMethod.keys()]);
    }
    const segments = path.split("/");
    const allowed: string[] = [];
    for (const candidate of this.patterns) {
      const params = matchSegments(candidate.segments, segments);
      if (!params) continue;
      if (candidate.method === method) return { route: candidate, params };
      allowed.push(candidate.method);
    }
    if (allowed.length > 0) throw methodNotAllowed(method, path, allowed);
    throw new HttpError(
      404,
      `No route for ${method} ${path}. Check the address (baseUrl / proxyUrl) and the path.`,
      {
        code: "route_not_found",
      },
    );
  }
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const a = actual[i]!;
    if (p.startsWith(":")) {
      if (a === "") return undefined;
      try {
        params[p.slice(1)] = decodeURIComponent(a);
      } catch {
        return undefined;
      }
    } else if (p !== a) {
      return undefined;
    }
  }
  return params;
}

function methodNotAllowed(method: string, path: string, allowed: string[]): HttpError {
  return new HttpError(
    405,
    `Method ${method} is not allowed on ${path}; use ${allowed.join(" or ")}.`,
    {
      headers: { allow: allowed.join(", ") },
    },
  );
}
