/**
 * HTTP/1.1 over a bare socket (node:net), for requests no HTTP client will send (a `Host` that is
 * not a host, a body over a cap written piece by piece) and for checking that the server keeps
 * the connection open afterwards: each answer is read to its end (Content-Length or chunked), so
 * the next request can go over the same socket.
 */
import { connect, type Socket } from "node:net";

export interface RawResponse {
  status: number;
  /** Lower-case names; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

export interface RawConnection {
  /** Writes bytes as they are (a request line, headers, a piece of a body). */
  write(data: string | Uint8Array): Promise<void>;
  /** The next complete answer on the connection. */
  response(): Promise<RawResponse>;
  /** Resolves when the server ends or resets the connection. */
  readonly closed: Promise<void>;
  close(): void;
}

/** Opens a connection to the host and port of `url`. */
export async function openRaw(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let buffer = Buffer.alloc(0);
  let wake: (() => void) | undefined;
  let ended = false;
  const closed = new Promise<void>((resolve) => {
    const end = () => {
      ended = true;
      wake?.();
      resolve();
    };
    socket.once("close", end);
    socket.once("error", end);
  });
  socket.on("data", (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    wake?.();
  });

  async function until(ready: () => boolean): Promise<void> {
    while (!ready()) {
      if (ended) throw new Error(`the server closed the connection; unread: ${buffer}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  }

  return {
    write: (data) => writeAll(socket, data),
    async response() {
      await until(() => buffer.includes("\r\n\r\n"));
      const headEnd = buffer.indexOf("\r\n\r\n");
      const [statusLine = "", ...lines] = buffer.subarray(0, headEnd).toString().split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let at = headEnd + 4;
      let body = "";
      if (headers["transfer-encoding"] === "chunked") {
        for (;;) {
          await until(() => buffer.indexOf("\r\n", at) >= 0);
          const lineEnd = buffer.indexOf("\r\n", at);
          const size = Number.parseInt(buffer.subarray(at, lineEnd).toString(), 16);
          await until(() => buffer.length >= lineEnd + 2 + size + 2);
          body += buffer.subarray(lineEnd + 2, lineEnd + 2 + size).toString();
          at = lineEnd + 2 + size + 2;
          if (size === 0) break;
        }
      } else {
        const length = Number(headers["content-length"] ?? 0);
        await until(() => buffer.length >= at + length);
        body = buffer.subarray(at, at + length).toString();
        at += length;
      }
      buffer = buffer.subarray(at);
      return { status: Number(statusLine.split(" ")[1]), headers, body };
    },
    closed,
    close: () => socket.destroy(),
  };
}

function writeAll(socket: Socket, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.write(data, (error) => (error ? reject(error) : resolve()));
  });
}
