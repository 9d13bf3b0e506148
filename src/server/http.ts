/**
 * Responses as the Agent Server API spells them: JSON bodies (messages serialised the way the
 * SDK reads them), errors as `{ error, message }`, and server-sent events.
 */
import { fieldPath } from "../validation";
import { DEFAULT_MAX_JSON_DEPTH, tooDeepAt } from "./json-depth";
import { toWire } from "./wire";

export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(toWire(body)), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

export function noContent(): Response {
  return new Response(null, { status: 204 });
}

/** An error as `{ error, message }`; `error` names the kind, `message` says what to do. */
export function problem(status: number, error: string, message: string): Response {
  return json({ error, message }, status);
}

export function notFound(what: string): Response {
  return problem(404, "Not Found", `${what} not found`);
}

/**
 * The answer to a path no route matches. `mountedAt`, when given, is the prefix before a path
 * that a route does match (`/api` of `/api/threads/search`): the handler is likely mounted there
 * without `basePath`, so the message says to pass it.
 */
export function unknownRoute(method: string, path: string, mountedAt?: string): Response {
  const hint =
    mountedAt === undefined
      ? "check the method and path"
      : `if the handler is mounted under "${mountedAt}", pass basePath: "${mountedAt}"`;
  return problem(404, "Not Found", `no route matches ${method} ${path}; ${hint}`);
}

/** The answer to a path outside the handler's `basePath`. */
export function outsideBasePath(method: string, path: string, prefix: string): Response {
  return problem(
    404,
    "Not Found",
    `no route matches ${method} ${path}: it is outside the server's basePath "${prefix}"`,
  );
}

/** Thrown by route code: becomes its response at the top of the handler. */
export class HttpProblem extends Error {
  readonly status: number;
  readonly kind: string;
  constructor(status: number, kind: string, message: string) {
    super(message);
    this.name = "HttpProblem";
    this.status = status;
    this.kind = kind;
  }
  toResponse(): Response {
    return problem(this.status, this.kind, this.message);
  }
}

/** One server-sent event as text (`data` is already JSON). */
export function sseFrame(event: string, data: string, id?: string): string {
  return `event: ${event}\ndata: ${data}\n${id === undefined ? "" : `id: ${id}\n`}\n`;
}

/** The request body size `createAgentServer` accepts unless told otherwise (10 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

function tooLarge(limit: number): HttpProblem {
  return new HttpProblem(
    413,
    "Payload Too Large",
    `the request body is over ${limit} bytes (the server's maxBodyBytes); send less`,
  );
}

/** The body as text, refusing (413) past `limit` bytes without reading the rest. */
async function readText(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get("Content-Length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** A 422 naming where `text` nests deeper than `depth` levels, if it does. */
function checkDepth(text: string, depth: number): void {
  const path = tooDeepAt(text, depth);
  if (path === undefined) return;
  const field = path.length > 0 ? fieldPath(path.slice(0, 1)) : "body";
  throw new HttpProblem(
    422,
    "Unprocessable Entity",
    `${field}: nested more than ${depth} levels deep (the server's maxJsonDepth, counting the ` +
      "body as one); send flatter JSON",
  );
}

/**
 * Reads a JSON body of at most `limit` bytes and `depth` levels of nesting, tolerating an empty
 * one. Both are checked before the body is parsed.
 */
export async function readJson(
  request: Request,
  limit = DEFAULT_MAX_BODY_BYTES,
  depth = DEFAULT_MAX_JSON_DEPTH,
): Promise<Record<string, unknown>> {
  const text = await readText(request, limit);
  if (text.trim() === "") return {};
  checkDepth(text, depth);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpProblem(422, "Unprocessable Entity", "the request body is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpProblem(422, "Unprocessable Entity", "the request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}
