/**
 * A redis-server of the test's own (#35): Debian's binary on a free loopback port, in a temporary
 * folder, with nothing written to disk (`--save ""`, `--appendonly no`), so a test starts from an
 * empty Redis and leaves nothing behind. Ready means it answered PING, not that time passed:
 * the wait is for its "Ready to accept connections" line, then a PING over a socket.
 *
 * `restart()` stops it and starts it again on the same port with nothing kept, as a Redis that
 * crashed or was replaced mid-run: clients reconnect to the same address and find it empty.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServer {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** Its working folder, removed by `close()`. */
  readonly dir: string;
  /** What the server printed (its log), for failure messages. */
  output(): string;
  /** Stops it (SIGTERM, or SIGKILL when `hard`) and starts it again, empty, on the same port. */
  restart(options?: { hard?: boolean }): Promise<void>;
  /** Stops it until `start()`; clients see connection refused meanwhile. */
  stop(options?: { hard?: boolean }): Promise<void>;
  /** Starts it again after `stop()`, on the same port. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

const MISSING =
  "redis-server is not installed (not on PATH): the multi-instance tests need it. " +
  "Install Debian's package (apt-get install -y redis-server), as .ci/run does.";

/** A port nothing listens on now (the kernel's pick for port 0, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export async function startRedisServer(): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), "studio-redis-"));
  let log = "";
  let child: ChildProcess | undefined;
  let port = 0;

  const launch = async (): Promise<void> => {
    const proc = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--save",
        "",
        "--appendonly",
        "no",
        "--logfile",
        "",
        "--daemonize",
        "no",
      ],
      { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    child = proc;
    await new Promise<void>((resolve, reject) => {
      // Only this launch's lines: the log keeps the earlier ones too.
      let mine = "";
      const onData = (chunk: Buffer) => {
        log += chunk.toString();
        mine += chunk.toString();
        if (mine.includes("Ready to accept connections")) resolve();
      };
      proc.stdout?.on("data", onData);
      proc.stderr?.on("data", onData);
      proc.once("error", (error: NodeJS.ErrnoException) => {
        reject(error.code === "ENOENT" ? new Error(MISSING) : error);
      });
      proc.once("exit", (code, signal) => {
        reject(new Error(`redis-server exited (${code ?? signal}) before it was ready:\n${log}`));
      });
    });
    await ping(port);
  };

  const halt = async (hard = false): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    proc.kill(hard ? "SIGKILL" : "SIGTERM");
    await exited;
  };

  // Another process may take the probed port before redis-server binds it: try a few ports.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (error) {
      await halt(true);
      if (attempt >= 3 || (error instanceof Error && error.message === MISSING)) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    output: () => log,
    async restart(options) {
      await halt(options?.hard);
      await launch();
    },
    stop: (options) => halt(options?.hard),
    start: launch,
    async close() {
      await halt();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once the server at `port` answers PING with PONG. */
function ping(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    let reply = "";
    socket.once("error", reject);
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (!reply.includes("\r\n")) return;
      socket.end();
      if (reply.startsWith("+PONG")) resolve();
      else reject(new Error(`redis-server answered PING with ${JSON.stringify(reply)}`));
    });
    socket.write("*1\r\n$4\r\nPING\r\n");
  });
}
