/**
 * Node's `upgrade` event in front of the handler's WebSockets (protocol v2's
 * `GET /threads/:id/stream/events`):
 *
 *   const server = createServer(toNodeListener(handler));
 *   server.on("upgrade", toNodeUpgradeListener(handler));
 *
 * The handler decides, as on every runtime (origin, `auth`, the thread); the handshake and the
 * frames are the `ws` package's, an optional peer dependency loaded on the first upgrade only,
 * so the server entry loads without it. Like `node-adapter.ts`, written against the shapes of
 * Node's objects rather than `node:` imports.
 */
import { type NodeListenerOptions, type NodeRequestLike, toWebRequest } from "./node-adapter";
import { unrefTimer } from "./timers";
import { messageText, type UpgradeData, type UpgradingServer } from "./v2/socket-upgrade";

/** What the listener uses of the socket Node hands to `upgrade` (a `net.Socket`). */
export interface NodeSocketLike {
  write(chunk: Uint8Array): unknown;
  end(): unknown;
  destroy(): unknown;
}

/** A handler that takes the runtime second, such as `createAgentServer`'s. */
export type WebSocketHandler = (
  request: Request,
  runtime?: unknown,
) => Response | Promise<Response>;

export interface NodeUpgradeOptions extends NodeListenerOptions {
  /**
   * Milliseconds between the pings sent on each socket, so that a proxy does not close one idle
   * while the model thinks, and a client that stopped answering (a half-open connection) is
   * closed and its subscriptions freed; 0 sends none. Default 30000 (inside the 55 to 100 s
   * after which common proxies close an idle connection).
   */
  pingIntervalMs?: number | undefined;
}

export const DEFAULT_PING_INTERVAL_MS = 30_000;

/** What the listener uses of `ws`. */
interface WsSocket {
  readonly bufferedAmount: number;
  send(text: string): void;
  close(code?: number, reason?: string): void;
  ping(): void;
  terminate(): void;
  on(event: "message", listener: (data: unknown) => void): unknown;
  on(event: "close" | "error" | "pong", listener: () => void): unknown;
}

interface WsServer {
  handleUpgrade(
    req: NodeRequestLike,
    socket: NodeSocketLike,
    head: Uint8Array,
    done: (ws: WsSocket) => void,
  ): void;
}

type WsServerClass = new (options: { noServer: true }) => WsServer;

/** A variable, so that bundlers for other runtimes leave the import alone. */
const WS_PACKAGE = "ws";

async function loadWsServer(): Promise<WsServerClass> {
  type WsModule = { WebSocketServer?: WsServerClass; default?: { WebSocketServer?: unknown } };
  let loaded: WsModule | undefined;
  try {
    loaded = (await import(/* @vite-ignore */ WS_PACKAGE)) as WsModule;
  } catch {
    loaded = undefined;
  }
  const Server = loaded?.WebSocketServer ?? loaded?.default?.WebSocketServer;
  if (typeof Server !== "function") {
    throw new Error(
      'WebSockets on Node need the "ws" package (an optional peer dependency): npm install ws',
    );
  }
  return Server as WsServerClass;
}

const encoder = new TextEncoder();

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
};

/** A response that is no upgrade, written on the raw socket (Node left it to the listener). */
async function writeResponse(socket: NodeSocketLike, response: Response): Promise<void> {
  const body = new Uint8Array(await response.arrayBuffer());
  const reason = response.statusText || REASONS[response.status] || "";
  const lines = [`HTTP/1.1 ${response.status} ${reason}`];
  response.headers.forEach((value, name) => {
    if (!["content-length", "connection", "transfer-encoding"].includes(name)) {
      lines.push(`${name}: ${value}`);
    }
  });
  lines.push(`content-length: ${body.byteLength}`, "connection: close", "", "");
  socket.write(encoder.encode(lines.join("\r\n")));
  socket.write(body);
  socket.end();
}

function jsonResponse(status: number, error: string, message: string): Response {
  return new Response(JSON.stringify({ error, message }), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

/**
 * Pings `client` every `ms`; one that has not answered the previous ping by the next is ended
 * (its close then ends the session). Returns the stop.
 */
function keepAlive(client: WsSocket, ms: number): () => void {
  if (ms <= 0) return () => {};
  let answered = true;
  client.on("pong", () => {
    answered = true;
  });
  const timer = setInterval(() => {
    if (!answered) {
      client.terminate();
      return;
    }
    answered = false;
    client.ping();
  }, ms);
  // A socket's pings alone must not keep a process alive that is otherwise done.
  unrefTimer(timer);
  return () => clearInterval(timer);
}

/**
 * A listener for Node's `server.on("upgrade")` that lets `handler` answer each upgrade: a socket
 * when it upgrades (its session then runs over `ws`), else its response written as is. Like
 * `toNodeListener`, it never rejects: a throwing handler is a 500 told to `onError`, and so is a
 * missing `ws` package (a 501 to the client).
 */
export function toNodeUpgradeListener(
  handler: WebSocketHandler,
  options: NodeUpgradeOptions = {},
): (req: NodeRequestLike, socket: NodeSocketLike, head: Uint8Array) => void {
  const pingMs = options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  const tell = (error: unknown, request: Request) => {
    try {
      onError(error, request);
    } catch {
      // A failing logger must not end the process.
    }
  };
  let server: Promise<WsServer> | undefined;
  const wsServer = () => {
    server ??= loadWsServer().then((Server) => new Server({ noServer: true }));
    return server;
  };

  const upgrade = async (req: NodeRequestLike, socket: NodeSocketLike, head: Uint8Array) => {
    let request: Request;
    try {
      request = toWebRequest(req);
    } catch {
      await writeResponse(
        socket,
        jsonResponse(400, "Bad Request", "the request's URL or headers are invalid"),
      );
      return;
    }
    let data: UpgradeData | undefined;
    const runtime: UpgradingServer = {
      upgrade(_request, upgradeOptions) {
        data = upgradeOptions.data;
        return true;
      },
    };
    let response: Response;
    try {
      response = await handler(request, runtime);
    } catch (error) {
      tell(error, request);
      await writeResponse(socket, jsonResponse(500, "Internal Server Error", "internal error"));
      return;
    }
    if (data === undefined) {
      await writeResponse(socket, response);
      return;
    }
    let ws: WsServer;
    try {
      ws = await wsServer();
    } catch (error) {
      server = undefined;
      tell(error, request);
      const message = "this server cannot open WebSockets; use the SSE transport (POST)";
      await writeResponse(socket, jsonResponse(501, "Not Implemented", message));
      return;
    }
    const session = data;
    ws.handleUpgrade(req, socket, head, (client) => {
      const listener = session.open({
        send: (text) => client.send(text),
        close: (code, reason) => client.close(code, reason),
        buffered: () => client.bufferedAmount,
      });
      const stopPings = keepAlive(client, pingMs);
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        stopPings();
        listener.closed();
      };
      client.on("message", (message) => listener.message(messageText(message)));
      client.on("close", end);
      client.on("error", end);
    });
  };

  return (req, socket, head) => {
    void upgrade(req, socket, head).catch(() => socket.destroy());
  };
}
