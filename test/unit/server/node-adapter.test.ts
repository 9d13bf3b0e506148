/**
 * `toNodeListener`: Node's `http` in front of a web handler, over loopback. A request `new
 * Request` cannot represent is a 400 and the server goes on serving; bodies stream both ways;
 * a throwing handler is a 500 told to `onError`; a client that leaves cancels the response body.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type NodeListenerOptions, toNodeListener } from "../../../src/server";
import { openRaw } from "../../helpers/raw-http";

type Handler = (request: Request) => Response | Promise<Response>;

let server: Server | undefined;

async function serve(handler: Handler, options?: NodeListenerOptions): Promise<string> {
  server = createServer(toNodeListener(handler, options));
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("toNodeListener", () => {
  it("answers a Host that new Request refuses with a 400, and serves the next request", async () => {
    const seen: string[] = [];
    const url = await serve((request) => {
      seen.push(new URL(request.url).pathname);
      return Response.json({ ok: true });
    });
    const bad = await openRaw(url);
    await bad.write("GET /threads HTTP/1.1\r\nHost: bad host:1\r\n\r\n");
    const refused = await bad.response();
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toEqual({
      error: "Bad Request",
      message: "the request's URL or headers are invalid",
    });
    bad.close();

    const next = await fetch(`${url}/ok`);
    expect(next.status).toBe(200);
    expect(await next.json()).toEqual({ ok: true });
    expect(seen).toEqual(["/ok"]);
  });

  it("streams the request body to the handler and passes every header through", async () => {
    const url = await serve(async (request) => {
      const headers = new Headers({ "content-type": "text/plain", "x-seen": request.method });
      headers.append("set-cookie", "a=1; HttpOnly");
      headers.append("set-cookie", "b=2; HttpOnly");
      const body = `${request.headers.get("x-multi")}|${await request.text()}`;
      return new Response(body, { status: 201, headers });
    });
    const raw = await openRaw(url);
    await raw.write(
      "POST /echo HTTP/1.1\r\nHost: localhost\r\nX-Multi: one\r\nX-Multi: two\r\n" +
        "Content-Length: 11\r\n\r\nhello",
    );
    await raw.write(" world");
    const reply = await raw.response();
    raw.close();
    expect(reply.status).toBe(201);
    expect(reply.body).toBe("one, two|hello world");
    expect(reply.headers["x-seen"]).toBe("POST");

    const response = await fetch(`${url}/cookies`, { method: "POST", body: "" });
    expect(response.headers.getSetCookie()).toEqual(["a=1; HttpOnly", "b=2; HttpOnly"]);
  });

  it("answers a throwing handler with a plain 500 and tells onError", async () => {
    const errors: unknown[] = [];
    const url = await serve(
      () => {
        throw new Error("secret detail");
      },
      { onError: (error) => errors.push(error) },
    );
    const response = await fetch(`${url}/boom`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: "Internal Server Error",
      message: "internal error",
    });
    expect(errors).toEqual([new Error("secret detail")]);
  });

  it("answers a 500 even when onError itself throws", async () => {
    const url = await serve(
      () => {
        throw new Error("handler bug");
      },
      {
        onError: () => {
          throw new Error("logger bug");
        },
      },
    );
    const response = await fetch(`${url}/boom`);
    expect(response.status).toBe(500);
    // The server still answers (an unhandled rejection would also fail this file).
    expect((await fetch(`${url}/again`)).status).toBe(500);
  });

  it("cancels the body of an answer that comes after the client left", async () => {
    const requested = deferred();
    const answer = deferred<Response>();
    const cancelled = deferred<unknown>();
    const url = await serve(() => {
      requested.resolve();
      return answer.promise;
    });
    // The server's end of the connection: the response's "close" is emitted with its "close".
    const serverSide = deferred();
    server?.once("connection", (socket) => socket.once("close", () => serverSide.resolve()));
    const raw = await openRaw(url);
    await raw.write("GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await requested.promise;
    raw.close();
    await serverSide.promise;
    answer.resolve(
      new Response(
        new ReadableStream({ cancel: (reason) => cancelled.resolve(reason ?? "cancelled") }),
      ),
    );
    await expect(cancelled.promise).resolves.toBeDefined();
  });

  it("cancels the response body when the client goes away", async () => {
    const cancelled = deferred<unknown>();
    const url = await serve(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("event: first\n\n"));
            },
            cancel: (reason) => cancelled.resolve(reason ?? "cancelled"),
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    );
    const controller = new AbortController();
    const response = await fetch(`${url}/stream`, { signal: controller.signal });
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toBe("event: first\n\n");
    controller.abort();
    await expect(cancelled.promise).resolves.toBeDefined();
  });
});
