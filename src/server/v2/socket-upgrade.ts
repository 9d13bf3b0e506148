/**
 * Turning an upgrade request into a socket, as the runtime offers it, from a web-standard handler:
 * Bun's `server.upgrade(request, { data })` needs the server, which Bun passes to `fetch` as its
 * second argument (its events then go to `bunWebSocket`, given to `Bun.serve`), and the Node
 * adapter (`toNodeUpgradeListener`) passes an object of the same shape; Deno's
 * `Deno.upgradeWebSocket(request)` and workerd's `WebSocketPair` work from the request alone.
 * Checked in that order: a server passed in is the one serving the request (Node's `http` run
 * by Deno, say), and workerd's second argument, its `env`, holds no `upgrade` function.
 */
import type { ProtocolSocket, SocketListener } from "./websocket";

/** Starts the session of an accepted socket. */
export type OpenSocket = (socket: ProtocolSocket) => SocketListener;

/** What an upgrading server (Bun's, the Node adapter's) keeps with the socket. */
export interface UpgradeData {
  open: OpenSocket;
  listener?: SocketListener | undefined;
}

/** Bun's `server` and the Node adapter's stand-in: `upgrade` answers whether it took over. */
export interface UpgradingServer {
  upgrade(request: Request, options: { data: UpgradeData }): boolean;
}

interface DenoLike {
  upgradeWebSocket(request: Request): { socket: WebSocket; response: Response };
}

type WebSocketPairLike = new () => { 0: WebSocket; 1: WebSocket };

const decoder = new TextDecoder();

/** A message as text: runtimes hand binary frames over as buffers or views. */
export function messageText(data: unknown): string {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return decoder.decode(data);
  if (ArrayBuffer.isView(data)) return decoder.decode(data as Uint8Array);
  return String(data);
}

function isUpgradingServer(value: unknown): value is UpgradingServer {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { upgrade?: unknown }).upgrade === "function"
  );
}

/** The session `open` starts on a standard `WebSocket` (Deno's, workerd's server end). */
function attach(socket: WebSocket, open: OpenSocket, openNow: boolean): void {
  let listener: SocketListener | undefined;
  let ended = false;
  const start = () => {
    listener = open({
      send: (text) => socket.send(text),
      close: (code, reason) => socket.close(code, reason),
      buffered: () => socket.bufferedAmount ?? 0,
    });
  };
  const end = () => {
    if (ended) return;
    ended = true;
    listener?.closed();
  };
  socket.addEventListener("message", (event) => listener?.message(messageText(event.data)));
  socket.addEventListener("close", end);
  socket.addEventListener("error", end);
  if (openNow) start();
  else socket.addEventListener("open", start, { once: true });
}

function notHandshake(): Response {
  return new Response(
    JSON.stringify({ error: "Bad Request", message: "not a WebSocket handshake" }),
    { status: 400, headers: { "Content-Type": "application/json" } },
  );
}

/**
 * The response that upgrades `request` to a socket whose session `open` starts, or undefined
 * when the runtime offers no upgrade to the handler.
 */
export function acceptSocket(
  request: Request,
  runtime: unknown,
  open: OpenSocket,
): Response | undefined {
  if (isUpgradingServer(runtime)) {
    // The server answers the handshake itself and ignores this response.
    if (runtime.upgrade(request, { data: { open } })) return new Response(null, { status: 200 });
    return notHandshake();
  }
  const deno = (globalThis as { Deno?: Partial<DenoLike> }).Deno;
  if (typeof deno?.upgradeWebSocket === "function") {
    let upgraded: ReturnType<DenoLike["upgradeWebSocket"]>;
    try {
      upgraded = deno.upgradeWebSocket(request);
    } catch {
      // Deno throws on a request that is no valid handshake (a missing key or version).
      return notHandshake();
    }
    attach(upgraded.socket, open, false);
    return upgraded.response;
  }
  const Pair = (globalThis as { WebSocketPair?: WebSocketPairLike }).WebSocketPair;
  if (typeof Pair === "function") {
    const pair = new Pair();
    const server = pair[1] as WebSocket & { accept(): void };
    server.accept();
    attach(server, open, true);
    return new Response(null, { status: 101, webSocket: pair[0] } as ResponseInit);
  }
  return undefined;
}

/** Bun's socket, as far as `bunWebSocket` uses it. */
export interface BunSocketLike {
  data: UpgradeData;
  send(text: string): unknown;
  close(code?: number, reason?: string): unknown;
  getBufferedAmount?(): number;
}

/**
 * The `websocket` option of `Bun.serve` for the handler's protocol v2 sockets:
 * `Bun.serve({ fetch: handler, websocket: bunWebSocket })`.
 */
export const bunWebSocket = {
  open(ws: BunSocketLike): void {
    ws.data.listener = ws.data.open({
      send: (text) => ws.send(text),
      close: (code, reason) => ws.close(code, reason),
      buffered: () => ws.getBufferedAmount?.() ?? 0,
    });
  },
  message(ws: BunSocketLike, message: string | Uint8Array): void {
    ws.data.listener?.message(messageText(message));
  },
  close(ws: BunSocketLike): void {
    ws.data.listener?.closed();
  },
};
