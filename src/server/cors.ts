/**
 * The `cors` option: which browser origins may call the handler from another origin, answered
 * around the handler (`server.ts`) so a preflight never reaches `auth` (a browser sends it with
 * no credentials). Without the option the handler sends no CORS header at all; an origin that is
 * not allowed gets no `Access-Control-Allow-Origin`, so the browser keeps the response from the
 * page.
 */
import * as z from "zod/v4/mini";
import { integerAtLeast, knownKeysOnly } from "../validation";
import { useEnglishMessages } from "../zod-locale";

useEnglishMessages();

export interface AgentServerCors {
  /**
   * The origins allowed (`"https://chat.example.com"`: scheme, host and port, no path), `"*"`
   * for any (not with `credentials`), or a function of the request's `Origin` answering whether
   * it is allowed.
   */
  origins: readonly string[] | ((origin: string) => boolean | Promise<boolean>);
  /** Lets the browser send cookies and `Authorization` cross-origin. Default false. */
  credentials?: boolean | undefined;
  /** How long a browser may reuse a preflight's answer, in seconds. Default 600. */
  maxAge?: number | undefined;
  /** Request headers allowed beyond those the SDK sends (a custom auth header). */
  allowHeaders?: readonly string[] | undefined;
}

/** What a preflight allows: the methods of the routes. */
const METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";

/**
 * The headers the SDK's `Client` sends: JSON bodies, its API key, a join's `Last-Event-ID`, and
 * the `Authorization` an app adds through `defaultHeaders`.
 */
const SDK_HEADERS = ["Content-Type", "Authorization", "X-Api-Key", "Last-Event-ID"];

/**
 * The response headers the SDK reads: the run id of a stream (`Content-Location`), a created
 * run's `Location`, and the thread list's pages.
 */
const EXPOSED = "Content-Location, Location, X-Pagination-Total, X-Pagination-Next";

const DEFAULT_MAX_AGE = 600;

/** An origin as a browser sends it: what `new URL(text).origin` gives back unchanged. */
function isOrigin(text: string): boolean {
  try {
    return new URL(text).origin === text;
  } catch {
    return false;
  }
}

const ORIGIN_RULE =
  'must be an origin such as "https://chat.example.com" (scheme, host and port; no path or ' +
  'trailing "/") or "*"';

type Origins = AgentServerCors["origins"];

/** A list of origins or a function; each listed origin checked and named by its index. */
const originsSchema = z.custom<Origins>().check(
  z.superRefine((value, ctx) => {
    if (typeof value === "function") return;
    if (!Array.isArray(value)) {
      ctx.issues.push({
        code: "custom",
        input: value,
        message:
          'must be a list of origins (["https://chat.example.com"]) or a function ' +
          "(origin) => boolean",
      });
      return;
    }
    if (value.length === 0) {
      ctx.issues.push({
        code: "custom",
        input: value,
        message: 'must list at least one origin, e.g. ["https://chat.example.com"]',
      });
    }
    value.forEach((origin: unknown, index) => {
      if (typeof origin === "string" && (origin === "*" || isOrigin(origin))) return;
      ctx.issues.push({ code: "custom", input: origin, path: [index], message: ORIGIN_RULE });
    });
  }),
);

const corsShape = z
  .object(
    {
      origins: originsSchema,
      credentials: z.optional(z.boolean({ error: "must be true or false" })),
      maxAge: z.optional(integerAtLeast(0, "must be an integer of at least 0 (seconds)")),
      allowHeaders: z.optional(
        z.array(
          z.string().check(
            z.regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, {
              error: 'must be a header name such as "X-Session"',
            }),
          ),
        ),
      ),
    },
    { error: 'must be an object such as { origins: ["https://chat.example.com"] }' },
  )
  .check(
    z.superRefine((cors, ctx) => {
      if (!cors.credentials || !Array.isArray(cors.origins) || !cors.origins.includes("*")) {
        return;
      }
      ctx.issues.push({
        code: "custom",
        input: cors.origins,
        path: ["origins"],
        message: 'cannot be "*" with credentials: browsers refuse it; list the origins',
      });
    }),
  );

export const corsSchema = knownKeysOnly(corsShape, {
  owner: "cors",
  known: Object.keys(corsShape.shape),
});

export type CorsSettings = z.output<typeof corsShape>;

type Handler = (request: Request) => Promise<Response>;

type Report = (error: unknown, request: Request) => void;

/**
 * Whether the request's `origin` is allowed. An `origins` function that throws is a bug in it:
 * told to `onError`, and the origin is not allowed.
 */
export async function allows(
  cors: CorsSettings,
  origin: string,
  request: Request,
  report: Report,
): Promise<boolean> {
  const { origins } = cors;
  if (typeof origins !== "function") return origins.includes("*") || origins.includes(origin);
  try {
    return (await origins(origin)) === true;
  } catch (error) {
    report(error, request);
    return false;
  }
}

/** The allow headers of an allowed origin's response (preflight or not). */
function allowHeaders(cors: CorsSettings, origin: string): Headers {
  const headers = new Headers();
  const any = Array.isArray(cors.origins) && cors.origins.includes("*") && !cors.credentials;
  headers.set("Access-Control-Allow-Origin", any ? "*" : origin);
  if (cors.credentials) headers.set("Access-Control-Allow-Credentials", "true");
  return headers;
}

function preflight(cors: CorsSettings, origin: string, allowed: boolean): Response {
  // Caches keep answers per origin: the allow header depends on it.
  const headers = allowed ? allowHeaders(cors, origin) : new Headers();
  headers.set("Vary", "Origin");
  if (allowed) {
    headers.set("Access-Control-Allow-Methods", METHODS);
    headers.set(
      "Access-Control-Allow-Headers",
      [...SDK_HEADERS, ...(cors.allowHeaders ?? [])].join(", "),
    );
    headers.set("Access-Control-Max-Age", String(cors.maxAge ?? DEFAULT_MAX_AGE));
  }
  return new Response(null, { status: 204, headers });
}

/** `response` with the allow headers added (a copy: a response's own headers may be frozen). */
function withAllowHeaders(cors: CorsSettings, origin: string, response: Response): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of allowHeaders(cors, origin)) headers.set(name, value);
  headers.set("Access-Control-Expose-Headers", EXPOSED);
  headers.append("Vary", "Origin");
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** `handler` answering preflights and marking allowed origins' responses; as is without `cors`. */
export function withCors(
  cors: CorsSettings | undefined,
  handler: Handler,
  report: Report,
): Handler {
  if (cors === undefined) return handler;
  return async (request) => {
    const origin = request.headers.get("Origin");
    if (origin === null) return handler(request);
    const allowed = await allows(cors, origin, request, report);
    const isPreflight =
      request.method.toUpperCase() === "OPTIONS" &&
      request.headers.has("Access-Control-Request-Method");
    if (isPreflight) return preflight(cors, origin, allowed);
    const response = await handler(request);
    return allowed ? withAllowHeaders(cors, origin, response) : response;
  };
}
