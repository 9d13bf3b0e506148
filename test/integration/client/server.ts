/** A tiny `node:http` server on 127.0.0.1, port 0, that records what it receives. */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  socket: Socket;
}

export type Handler = (
  req: Received,
  res: http.ServerResponse,
  raw: http.IncomingMessage,
) => unknown;

export interface TestServer {
  url: string;
  requests: Received[];
  /** Sockets ever opened by clients (keep-alive reuse shows as fewer sockets than requests). */
  sockets: Set<Socket>;
  /** Sockets currently open. */
  openSockets(): number;
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export async function startServer(initial?: Handler): Promise<TestServer> {
  let handler: Handler = initial ?? ((_req, res) => res.end());
  const requests: Received[] = [];
  const sockets = new Set<Socket>();
  const open = new Set<Socket>();
  const server = http.createServer({ keepAliveTimeout: 10_000 }, (raw, res) => {
    const chunks: Buffer[] = [];
    raw.on("data", (chunk: Buffer) => chunks.push(chunk));
    raw.on("end", () => {
      const received: Received = {
        method: raw.method ?? "",
        url: raw.url ?? "",
        headers: raw.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        socket: raw.socket,
      };
      requests.push(received);
      Promise.resolve(handler(received, res, raw)).catch((error: unknown) => {
        res.destroy(error as Error);
      });
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    open.add(socket);
    socket.on("close", () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sockets,
    openSockets: () => open.size,
    handle(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** Polls `check` every 10 ms for up to `ms`; resolves with its last value. */
export async function waitFor(check: () => boolean, ms = 2000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}
