/**
 * Node's `http` in front of a web-standard handler: `createServer(toNodeListener(handler))`.
 *
 * Written against the shapes of Node's request and response rather than imports of `node:http`
 * or `node:stream`, so the server entry stays loadable where Node's modules are not (a Worker,
 * Deno, a browser bundle) and its declarations need no Node types.
 */

/** What the listener reads of Node's `IncomingMessage`. */
export interface NodeRequestLike extends AsyncIterable<Uint8Array | string> {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** What the listener uses of Node's `ServerResponse`. */
export interface NodeResponseLike {
  readonly headersSent: boolean;
  readonly writableFinished: boolean;
  writeHead(status: number, headers: Record<string, string | string[]>): unknown;
  write(chunk: Uint8Array): boolean;
  end(): unknown;
  once(event: "close" | "drain", listener: () => void): unknown;
  removeListener(event: "close" | "drain", listener: () => void): unknown;
  destroy(): unknown;
}

export interface NodeListenerOptions {
  /** Told of an error the handler threw (the client gets a 500). Default: `console.error`. */
  onError?: ((error: unknown, request: Request) => void) | undefined;
}

/** A web-standard handler, such as `createAgentServer`'s. */
export type WebHandler = (request: Request) => Response | Promise<Response>;

const encoder = new TextEncoder();

/**
 * A listener for `http.createServer` that answers each request with `handler`. The request body
 * is streamed, not buffered; the response body is written as it comes, at the pace the client
 * reads it, and cancelled when the client goes away (so a run sees the disconnect). A request
 * the web `Request` cannot represent (a `Host` such as `bad host:1`, which Node's parser lets
 * through) is a 400, and a throwing handler a 500: the listener never rejects, so no request can
 * end the process with an unhandled rejection.
 */
export function toNodeListener(
  handler: WebHandler,
  options: NodeListenerOptions = {},
): (req: NodeRequestLike, res: NodeResponseLike) => void {
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  return (req, res) => {
    // Listened for from the start: a client can leave while the handler is still deciding.
    const exchange: Exchange = { left: false, cancel: undefined };
    res.once("close", () => {
      if (res.writableFinished) return;
      exchange.left = true;
      exchange.cancel?.();
    });
    let request: Request;
    try {
      request = toWebRequest(req);
    } catch {
      sendJson(res, 400, {
        error: "Bad Request",
        message: "the request's URL or headers are invalid",
      });
      return;
    }
    void answer(handler, request, res, exchange).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, { error: "Internal Server Error", message: "internal error" });
      try {
        onError(error, request);
      } catch {
        // A failing logger must not turn one bad request into the end of the process.
      }
    });
  };
}

/** One request's link to its client: whether it left, and how to stop the body it was sent. */
interface Exchange {
  left: boolean;
  cancel: (() => void) | undefined;
}

/** Node's request as a web `Request`; throws when its URL or a header is not valid there. */
export function toWebRequest(req: NodeRequestLike): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  // An absolute-form target (`GET http://host/path`) keeps its own origin.
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(url, {
    method,
    headers,
    ...(hasBody ? { body: bodyStream(req), duplex: "half" } : {}),
  } as RequestInit);
}

/** The request body as a web stream, read from Node's stream only as fast as it is consumed. */
function bodyStream(req: NodeRequestLike): ReadableStream<Uint8Array> {
  const chunks = req[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(typeof value === "string" ? encoder.encode(value) : value);
    },
    async cancel() {
      await chunks.return?.();
    },
  });
}

async function answer(
  handler: WebHandler,
  request: Request,
  res: NodeResponseLike,
  exchange: Exchange,
): Promise<void> {
  const response = await handler(request);
  if (!response.body) {
    res.writeHead(response.status, nodeHeaders(response.headers));
    res.end();
    return;
  }
  const reader = response.body.getReader();
  // Cancelling the body is how the handler learns that the client went away (a run is stopped).
  exchange.cancel = () => void reader.cancel().catch(() => {});
  if (exchange.left) {
    exchange.cancel();
    return;
  }
  res.writeHead(response.status, nodeHeaders(response.headers));
  for (;;) {
    const { done, value } = await reader.read();
    // Once the client has left, a chunk read before the cancel has nowhere to go.
    if (done || exchange.left) break;
    if (!res.write(value)) await drained(res);
  }
  if (!exchange.left) res.end();
}

/** Resolves when the response can take more, or is closed (the next read then ends). */
function drained(res: NodeResponseLike): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.removeListener("drain", done);
      res.removeListener("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

/** A `Headers` as Node writes them; each `Set-Cookie` stays its own header line. */
function nodeHeaders(headers: Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  headers.forEach((value, name) => {
    if (name !== "set-cookie") out[name] = value;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  return out;
}

function sendJson(res: NodeResponseLike, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(encoder.encode(text).length),
  });
  res.write(encoder.encode(text));
  res.end();
}
