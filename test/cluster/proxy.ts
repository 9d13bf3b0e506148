/**
 * A round-robin load balancer on loopback, as a deployment puts in front of several instances:
 * each request goes to the next instance in rotation, every request and response header passes
 * through, and a response body (an SSE stream included) is written on as each chunk arrives,
 * never buffered. An instance taken out of rotation (killed, draining) gets no new request.
 *
 * Two headers of its own: a request's `x-cluster-instance: <n>` sends it to instance n (the test
 * asking for "another instance"), and every response says which instance served it.
 */
import {
  type Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

export const INSTANCE_HEADER = "x-cluster-instance";

export interface Backend {
  port: number;
  /** In rotation: takes requests not addressed to an instance. */
  live: boolean;
}

export interface RoundRobinProxy {
  readonly url: string;
  /** Requests forwarded to each instance, by index. */
  readonly served: number[];
  close(): Promise<void>;
}

export async function startProxy(backends: Backend[], agent?: Agent): Promise<RoundRobinProxy> {
  const served = backends.map(() => 0);
  let next = 0;
  const pick = (): number | undefined => {
    for (let step = 0; step < backends.length; step++) {
      const index = (next + step) % backends.length;
      if (backends[index]?.live) {
        next = index + 1;
        return index;
      }
    }
    return undefined;
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const asked = req.headers[INSTANCE_HEADER];
    const index = asked === undefined ? pick() : Number(asked);
    const backend = index === undefined ? undefined : backends[index];
    if (index === undefined || !backend) {
      res.writeHead(503, { "content-type": "text/plain" }).end("no instance in rotation");
      return;
    }
    served[index] = (served[index] ?? 0) + 1;
    const headers = { ...req.headers };
    delete headers[INSTANCE_HEADER];
    const upstream = httpRequest(
      {
        host: "127.0.0.1",
        port: backend.port,
        method: req.method,
        path: req.url,
        headers,
        ...(agent ? { agent } : {}),
      },
      (response) => {
        const raw = [...response.rawHeaders, INSTANCE_HEADER, String(index)];
        res.writeHead(response.statusCode ?? 502, raw);
        res.flushHeaders();
        response.on("data", (chunk: Buffer) => res.write(chunk));
        response.on("end", () => res.end());
        // The instance died mid-response: the client sees its stream break, as behind a real
        // load balancer.
        response.on("error", () => res.destroy());
        response.on("aborted", () => res.destroy());
      },
    );
    upstream.on("error", (error) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res
        .writeHead(502, { "content-type": "text/plain", [INSTANCE_HEADER]: String(index) })
        .end(`instance ${index} did not answer: ${error.message}`);
    });
    // The client left: the instance sees the disconnect (a run's on_disconnect applies).
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
