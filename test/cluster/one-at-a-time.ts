/**
 * At most one cluster (three server processes behind a proxy) at a time, across vitest's workers.
 * The cluster files run beside the other projects' files, spread through the queue by the
 * sequencer so that two seldom meet; this makes sure of it, since two clusters at once would
 * double the load their leases are sized for, and it keeps `vitest run --project cluster`
 * (two workers, nothing else to run) one cluster at a time too.
 *
 * The lock is a local socket: its holder listens on it; a waiter connects and waits for the
 * holder to hang up (it released the lock, or its process died, which closes the socket too),
 * then tries again. Nothing polls. On Linux the name is in the abstract namespace, which the
 * kernel frees with the process, so a crashed holder leaves no stale lock; elsewhere it is a
 * socket file, removed when nothing answers on it.
 */
import { createHash } from "node:crypto";
import { rm } from "node:fs/promises";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO_ROOT } from "../helpers/run-command";

export interface ClusterLock {
  /** Resolves once another caller waits for this lock (for the lock's own test). */
  waitedFor(): Promise<void>;
  release(): Promise<void>;
}

/** One lock per checkout: another worktree's tests on the same machine do not wait on these. */
function lockAddress(lock: string): string {
  const checkout = createHash("sha1").update(REPO_ROOT).digest("hex").slice(0, 12);
  const name = `langchain-studio-${lock}-${checkout}`;
  return process.platform === "linux" ? `\0${name}` : path.join(tmpdir(), `${name}.sock`);
}

/**
 * Resolves once this process holds the lock named `lock` (the clusters' by default; the lock's
 * own test takes one of its own, so as not to wait for a cluster file running beside it).
 */
export async function acquireClusterLock(lock = "cluster"): Promise<ClusterLock> {
  const address = lockAddress(lock);
  for (;;) {
    const server = await listen(address);
    if (server) return holding(server);
    if ((await holderGone(address)) === "nobody" && !address.startsWith("\0")) {
      await rm(address, { force: true });
    }
  }
}

/** Listens on `address`, or resolves `undefined` when another process already does. */
function listen(address: string): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") resolve(undefined);
      else reject(error);
    });
    server.listen(address, () => resolve(server));
  });
}

function holding(server: Server): ClusterLock {
  const waiters = new Set<Socket>();
  let someoneWaits = () => {};
  const waited = new Promise<void>((resolve) => {
    someoneWaits = resolve;
  });
  server.on("connection", (socket) => {
    someoneWaits();
    waiters.add(socket);
    socket.on("error", () => {});
    socket.once("close", () => waiters.delete(socket));
    // A waiter must not keep this process alive after its tests.
    socket.unref();
  });
  server.unref();
  return {
    waitedFor: () => waited,
    release: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of waiters) socket.destroy();
      }),
  };
}

/**
 * Connects to the holder and resolves when it hangs up ("released"), or at once when nothing
 * answers ("nobody": it released just now, or, for a socket file, its process died).
 */
function holderGone(address: string): Promise<"released" | "nobody"> {
  return new Promise((resolve) => {
    let connected = false;
    const socket = createConnection(address, () => {
      connected = true;
    });
    socket.on("error", () => {});
    socket.once("close", () => resolve(connected ? "released" : "nobody"));
  });
}
