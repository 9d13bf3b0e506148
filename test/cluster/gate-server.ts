/**
 * Gates across processes: a small HTTP server in the test process that a graph node in a server
 * instance calls (`await fetch(gateUrl + "/wait/<name>")`). A name the test holds answers only
 * once the test opens it; any other name answers at once, so graphs run free unless a test wants
 * to stop one at a step. The test awaits arrivals instead of sleeping: "the run reached step 2"
 * is the node's request reaching this server.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Deferred, deferred } from "../helpers/gate";

export interface GateServer {
  /** `http://127.0.0.1:<port>`: the nodes call `${url}/wait/<name>`. */
  readonly url: string;
  /** From now on, a node reaching `name` waits until `open(name)`. */
  hold(name: string): void;
  /** Lets the nodes waiting at `name` go on, and those still to come. */
  open(name: string): void;
  /** Resolves once `name` has been reached `times` times in all (from any instance). */
  arrived(name: string, times?: number): Promise<void>;
  /** How many times `name` has been reached. */
  count(name: string): number;
  /** The instances that reached `name` (their `x-instance` header), in order. */
  reachedBy(name: string): string[];
  close(): Promise<void>;
}

interface Entry {
  held: boolean;
  count: number;
  by: string[];
  waiting: Set<ServerResponse>;
  arrivals: Map<number, Deferred<void>>;
}

export async function startGateServer(): Promise<GateServer> {
  const entries = new Map<string, Entry>();
  const entryOf = (name: string): Entry => {
    let entry = entries.get(name);
    if (!entry) {
      entry = { held: false, count: 0, by: [], waiting: new Set(), arrivals: new Map() };
      entries.set(name, entry);
    }
    return entry;
  };
  const arrivalOf = (entry: Entry, times: number): Deferred<void> => {
    let arrival = entry.arrivals.get(times);
    if (!arrival) {
      arrival = deferred();
      entry.arrivals.set(times, arrival);
      if (entry.count >= times) arrival.resolve();
    }
    return arrival;
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/wait\/(.+)$/.exec(req.url ?? "");
    if (!match?.[1]) {
      res.writeHead(404).end();
      return;
    }
    const entry = entryOf(decodeURIComponent(match[1]));
    entry.count++;
    entry.by.push(String(req.headers["x-instance"] ?? "?"));
    arrivalOf(entry, entry.count).resolve();
    if (!entry.held) {
      res.writeHead(200).end("open");
      return;
    }
    entry.waiting.add(res);
    // A node whose run was cancelled (or whose process died) aborts its request.
    res.once("close", () => entry.waiting.delete(res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    hold(name) {
      entryOf(name).held = true;
    },
    open(name) {
      const entry = entryOf(name);
      entry.held = false;
      for (const res of entry.waiting) res.writeHead(200).end("open");
      entry.waiting.clear();
    },
    arrived: (name, times = 1) => arrivalOf(entryOf(name), times).promise,
    count: (name) => entries.get(name)?.count ?? 0,
    reachedBy: (name) => [...(entries.get(name)?.by ?? [])],
    async close() {
      for (const entry of entries.values()) for (const res of entry.waiting) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
