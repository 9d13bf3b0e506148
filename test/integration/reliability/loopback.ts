/**
 * Tiny `node:http` servers on loopback for the hostile-response and redirect tests. Each test
 * scripts the raw answer itself, so nothing here knows the service: it only records what arrived
 * and lets the test write bytes the way a broken gateway would.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
) => void | Promise<void>;

export interface Loopback {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  seen: SeenRequest[];
  /** Connections accepted since start (keep-alive reuse keeps it low). */
  connections(): number;
  /** Connections still open right now. */
  openSockets(): number;
  setHandler(handler: Handler): void;
  close(): Promise<void>;
}

export async function startLoopback(handler: Handler): Promise<Loopback> {
  let current = handler;
  const seen: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const body = Buffer.concat(parts).toString("utf8");
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      Promise.resolve(current(req, res, body)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(599);
        res.end(String(error));
      });
    });
  });
  server.on("connection", (socket: Socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    connections: () => accepted,
    openSockets: () => sockets.size,
    setHandler: (next) => {
      current = next;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A JSON answer with a status. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** Writes `pieces` as separate network writes, yielding to the event loop between them. */
export async function writePieces(res: ServerResponse, pieces: Uint8Array[]): Promise<void> {
  for (const piece of pieces) {
    await new Promise<void>((resolve, reject) =>
      res.write(piece, (error) => (error ? reject(error) : resolve())),
    );
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  res.end();
}

/** Server-sent events of the chat stream layout: one `data:` event per payload, then `[DONE]`. */
export function sseBytes(payloads: unknown[], done = true): Uint8Array {
  const text =
    payloads.map((p) => `data: ${typeof p === "string" ? p : JSON.stringify(p)}\n\n`).join("") +
    (done ? "data: [DONE]\n\n" : "");
  return new TextEncoder().encode(text);
}

/** Chat chunks spelling `text` one piece per chunk, with a final finish_reason chunk. */
export function chatChunks(pieces: string[], id = "chatcmpl-1", model = "studio/echo-small") {
  const base = { id, object: "chat.completion.chunk", created: 1, model };
  return [
    { ...base, choices: [{ index: 0, delta: { role: "assistant" }, finish_reason: null }] },
    ...pieces.map((content) => ({
      ...base,
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    })),
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  ];
}

/**
 * The chunks of one streamed `lookup` tool call whose arguments arrive in `fragments`: the first
 * carries the call's id and name, the rest only more arguments (no role or finish chunk).
 */
export function toolCallChunks(
  fragments: string[],
  { callId = "call_1", id = "chatcmpl-1", model = "studio/echo-small" } = {},
) {
  const base = { id, object: "chat.completion.chunk", created: 1, model };
  return fragments.map((args, i) => ({
    ...base,
    choices: [
      {
        index: 0,
        delta: {
          tool_calls: [
            i === 0
              ? {
                  index: 0,
                  id: callId,
                  type: "function",
                  function: { name: "lookup", arguments: args },
                }
              : { index: 0, function: { arguments: args } },
          ],
        },
        finish_reason: null,
      },
    ],
  }));
}

/** A minimal valid chat completion. */
export function chatCompletion(content: string, extra: Record<string, unknown> = {}) {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "studio/echo-small",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    ...extra,
  };
}

/** Splits `bytes` at the given cut points (sorted, deduplicated, within range). */
export function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => Math.max(0, Math.min(bytes.length, c))))].sort(
    (a, b) => a - b,
  );
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    if (point > start) pieces.push(bytes.subarray(start, point));
    start = Math.max(start, point);
  }
  if (start < bytes.length) pieces.push(bytes.subarray(start));
  return pieces;
}
