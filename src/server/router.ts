/** The route table: `METHOD /path/:param` patterns matched against a request's path. */

export type Params = Record<string, string>;
export type Route = (
  request: Request,
  owner: string,
  params: Params,
  url: URL,
) => Promise<Response>;

export interface RouteEntry {
  method: string;
  pattern: RegExp;
  names: string[];
  run: Route;
  /** Answered without asking `auth` for a user (health checks). */
  open?: boolean;
}

/** A route that needs no user: a load balancer's health check, the UI's server probe. */
export function openRoute(method: string, path: string, run: Route): RouteEntry {
  return { ...route(method, path, run), open: true };
}

export function route(method: string, path: string, run: Route): RouteEntry {
  const names: string[] = [];
  const source = path.replace(/:([a-z_]+)/g, (_, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { method, pattern: new RegExp(`^${source}/?$`), names, run };
}

/** The route for `method` and `path` with its parameters, or undefined. */
export function matchRoute(
  routes: readonly RouteEntry[],
  method: string,
  path: string,
): { entry: RouteEntry; params: Params } | undefined {
  for (const entry of routes) {
    if (entry.method !== method) continue;
    const match = entry.pattern.exec(path);
    if (!match) continue;
    const params: Params = {};
    entry.names.forEach((name, i) => {
      params[name] = match[i + 1] ?? "";
    });
    return { entry, params };
  }
  return undefined;
}
/** The path the routes see: `pathname` within `prefix`, or undefined when it is outside. */
export function routedPath(pathname: string, prefix: string): string | undefined {
  if (prefix === "") return pathname;
  if (pathname === prefix) return "/";
  return pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : undefined;
}

/** The prefix before the part of `path` a route matches (`/api` of `/api/ok`), if any. */
export function mountedAt(
  routes: Parameters<typeof matchRoute>[0],
  method: string,
  path: string,
): string | undefined {
  for (let at = path.indexOf("/", 1); at > 0; at = path.indexOf("/", at + 1)) {
    if (matchRoute(routes, method, path.slice(at))) return path.slice(0, at);
  }
  return undefined;
}
