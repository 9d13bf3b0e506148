/**
 * The browser pages' origin in the multi-instance tests: serves a chat page (the example's HTML
 * shell and a page bundle) and forwards `/api/*` to the round-robin proxy with `/api` taken off,
 * as a site whose front routes `/api` to the load balancer. The page calls its own origin, as in
 * the one-process browser tests, so no CORS is involved.
 *
 * Every forwarded request is recorded with the instance that served it (the proxy's response
 * header), and a test may steer a request to an instance (the proxy's request header), the way a
 * test says "the reload's join lands on another instance than the one running the run".
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HTML } from "../../examples/chat-ui/bundle";
import { INSTANCE_HEADER } from "./proxy";

/** One request the page made to the API, once its response's headers came back. */
export interface Forwarded {
  method: string;
  /** The path at the instances (without `/api`). */
  path: string;
  /** A JSON request body, parsed (undefined for none or not JSON). */
  body: Record<string, unknown> | undefined;
  status: number;
  /** The instance that served it (undefined: the proxy answered itself). */
  instance: number | undefined;
  /** The `seq` of each event of an event-stream answer, added as they pass to the page. */
  seqs: number[];
}

/** Picks the instance for a request; undefined leaves it to the proxy's rotation. */
export type Steer = (method: string, path: string) => number | undefined;

/** Holds a response back from the page until the promise settles; undefined passes it on. */
export type Delay = (method: string, path: string) => Promise<void> | undefined;

export interface PageOrigin {
  /** The page's address (`/`); the page calls `${origin}/api`. */
  readonly url: string;
  /** The page's API requests, in the order their responses began. */
  readonly forwarded: Forwarded[];
  steer: Steer | undefined;
  /**
   * Holds back a response (its headers and body) after the instance answered: the page reloads
   * before it learns, say, a run's id, as it can on a slow network.
   */
  delay: Delay | undefined;
  /** Resolves with the first request from now on that `matches`, once its response began. */
  next(matches: (request: Forwarded) => boolean): Promise<Forwarded>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function parsed(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString("utf8"));
    return typeof value === "object" && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the `seq` of each event's data line into `into`, chunk by chunk. */
function seqReader(into: number[]): (chunk: Buffer) => void {
  const decoder = new TextDecoder();
  let buffer = "";
  return (chunk) => {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) {
      const seq = /^data: .*"seq":(\d+)/.exec(line)?.[1];
      if (seq !== undefined) into.push(Number(seq));
    }
  };
}

export async function servePageOrigin(bundle: string, proxyUrl: string): Promise<PageOrigin> {
  const upstream = new URL(proxyUrl);
  const forwarded: Forwarded[] = [];
  const waiting = new Set<{
    matches: (r: Forwarded) => boolean;
    resolve: (r: Forwarded) => void;
  }>();
  const origin = {
    steer: undefined as Steer | undefined,
    delay: undefined as Delay | undefined,
  };

  const record = (entry: Forwarded): void => {
    forwarded.push(entry);
    for (const waiter of waiting) {
      if (!waiter.matches(entry)) continue;
      waiting.delete(waiter);
      waiter.resolve(entry);
    }
  };

  /** Forwards as is (the body is small JSON, read whole to record it), streaming the answer. */
  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").slice("/api".length) || "/";
    const bare = path.split("?")[0] ?? path;
    const body = await readBody(req);
    const pinned = origin.steer?.(method, bare);
    const headers: Record<string, string | string[] | undefined> = {
      ...req.headers,
      host: upstream.host,
    };
    if (pinned !== undefined) headers[INSTANCE_HEADER] = String(pinned);
    const out = request(
      { host: upstream.hostname, port: upstream.port, method, path, headers },
      async (answer) => {
        const served = answer.headers[INSTANCE_HEADER];
        const entry: Forwarded = {
          method,
          path: bare,
          body: parsed(body),
          status: answer.statusCode ?? 0,
          instance: typeof served === "string" ? Number(served) : undefined,
          seqs: [],
        };
        record(entry);
        const seqs = String(answer.headers["content-type"]).includes("text/event-stream")
          ? seqReader(entry.seqs)
          : () => {};
        // Unread meanwhile, the answer's body waits in its buffers.
        await origin.delay?.(method, bare);
        if (res.destroyed) return;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.on("data", (chunk: Buffer) => {
          seqs(chunk);
          res.write(chunk);
        });
        answer.on("end", () => res.end());
        answer.on("error", () => res.destroy());
        answer.on("aborted", () => res.destroy());
      },
    );
    out.on("error", (error) => {
      if (res.headersSent) res.destroy();
      else
        res.writeHead(502, { "content-type": "text/plain" }).end(`page origin: ${error.message}`);
    });
    // The page went away (a reload): the instance sees the disconnect, as behind a real front.
    res.on("close", () => {
      if (!res.writableFinished) out.destroy();
    });
    out.end(body);
  };

  const server = createServer((req, res) => {
    if (req.url?.startsWith("/api/")) {
      forward(req, res).catch(() => res.destroy());
      return;
    }
    if (req.url === "/page.js") {
      res.writeHead(200, { "Content-Type": "text/javascript" }).end(bundle);
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html" }).end(HTML);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/`,
    forwarded,
    get steer() {
      return origin.steer;
    },
    set steer(steer) {
      origin.steer = steer;
    },
    get delay() {
      return origin.delay;
    },
    set delay(delay) {
      origin.delay = delay;
    },
    next: (matches) => new Promise((resolve) => waiting.add({ matches, resolve })),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
