/**
 * Several server instances behind a load balancer, on one machine (#35). The test process runs
 * the emulator (the service every instance shares), the gate server, optionally a redis-server,
 * and a round-robin proxy; each instance is a process of its own (test/cluster/instance.ts, see
 * `instanceArgs`) that can be killed (`kill -9`) or shut down (SIGTERM: drain, then exit) and
 * started again. What each instance printed is kept, for failure messages (`report()`).
 *
 * ```ts
 * const cluster = useCluster({ redis: true });
 * const client = cluster.get().client();          // SDK Client through the proxy, round-robin
 * const pinned = cluster.get().client(2);         // through the proxy, always to instance 2
 * ```
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, afterEach, beforeAll } from "vitest";
import { type EmulatorHandle, startEmulator } from "../../src/emulator";
import { nodeEntry } from "../helpers/node-entry";
import { REPO_ROOT } from "../helpers/run-command";
import { type RedisServer, startRedisServer } from "../setup/redis-server";
import { type GateServer, startGateServer } from "./gate-server";
import { acquireClusterLock, type ClusterLock } from "./one-at-a-time";
import { type Backend, INSTANCE_HEADER, type RoundRobinProxy, startProxy } from "./proxy";

const INSTANCE_SCRIPT = fileURLToPath(new URL("./instance.ts", import.meta.url));

/**
 * How Node starts an instance: from an esbuild bundle of instance.ts made once per test file
 * (test/helpers/node-entry.ts), not under tsx, whose module hooks made each start cost about
 * 3 s more CPU (4 s against 1 s, docs/development.md, "The cluster files beside the others"); a
 * cluster run starts 20 instances (3 per file, and one per kill or drain it recovers from).
 * Its imports must be literal specifiers, which esbuild follows.
 */
function instanceArgs(): Promise<string[]> {
  return nodeEntry(INSTANCE_SCRIPT);
}

export interface ClusterOptions {
  /** How many instances (default 3). */
  instances?: number;
  /** Coordinate the instances through a redis-server of the test's own (default false). */
  redis?: boolean;
  /** Each instance's `maxBackgroundRuns` (default: the option's). */
  maxBackgroundRuns?: number;
}

interface Instance {
  child: ChildProcess;
  /** Everything the process printed, on stdout and stderr, in order. */
  output: string;
  exited: Promise<void>;
  /** Resolves once the process printed a line equal to `line`. */
  printed(line: string): Promise<void>;
}

export interface Cluster {
  readonly emulator: EmulatorHandle;
  readonly gates: GateServer;
  readonly redis: RedisServer | undefined;
  readonly proxy: RoundRobinProxy;
  readonly size: number;
  /** An SDK `Client` through the proxy: round-robin, or always to `instance`. */
  client(instance?: number): Client;
  /** `kill -9` of instance `index`; it leaves the rotation at once. */
  kill(index: number): Promise<void>;
  /** SIGTERM to instance `index` (out of the rotation first), resolved once it exited. */
  terminate(index: number): Promise<void>;
  /**
   * SIGTERM to instance `index`: `draining` resolves once it has called `drain()` (it says so
   * on stdout), `exited` once the process ended.
   */
  shutdown(index: number): { draining: Promise<void>; exited: Promise<void> };
  /** Starts instance `index` again (after `kill` or `terminate`) and puts it back in rotation. */
  respawn(index: number): Promise<void>;
  /** Whether instance `index` is running. */
  running(index: number): boolean;
  /** What every instance printed (and Redis's log), for a failure message. */
  report(): string;
  close(): Promise<void>;
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const size = options.instances ?? 3;
  const emulator = await startEmulator({ port: 0 });
  const gates = await startGateServer();
  const redis = options.redis ? await startRedisServer() : undefined;
  const backends: Backend[] = Array.from({ length: size }, () => ({ port: 0, live: false }));
  const instances: (Instance | undefined)[] = Array.from({ length: size }, () => undefined);
  const history: string[] = [];
  const proxy = await startProxy(backends);

  const spawnInstance = async (index: number): Promise<void> => {
    const child = spawn(process.execPath, await instanceArgs(), {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        NO_COLOR: "1",
        INSTANCE_ID: `instance-${index}`,
        STUDIO_BASE_URL: emulator.baseUrl,
        STUDIO_PROXY_URL: emulator.proxyUrl,
        STUDIO_API_KEY: emulator.apiKey,
        GATE_URL: gates.url,
        ...(redis ? { REDIS_URL: redis.url } : {}),
        ...(options.maxBackgroundRuns === undefined
          ? {}
          : { CLUSTER_MAX_BACKGROUND_RUNS: String(options.maxBackgroundRuns) }),
      },
    });
    const instance: Instance = {
      child,
      output: "",
      exited: new Promise((resolve) => child.once("exit", () => resolve())),
      printed: (line) =>
        new Promise((resolve) => {
          const seen = () => instance.output.split("\n").includes(line);
          if (seen()) return resolve();
          const check = () => {
            if (!seen()) return;
            child.stdout?.off("data", check);
            resolve();
          };
          child.stdout?.on("data", check);
        }),
    };
    instances[index] = instance;
    const port = await new Promise<number>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        instance.output += chunk.toString();
        const match = /^LISTENING (\d+)$/m.exec(instance.output);
        if (match) resolve(Number(match[1]));
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
      child.once("exit", (code, signal) => {
        reject(
          new Error(
            `instance ${index} exited (${code ?? signal}) before listening:\n${instance.output}`,
          ),
        );
      });
    });
    backends[index] = { port, live: true };
  };

  const stopInstance = async (index: number, signal: NodeJS.Signals): Promise<void> => {
    const instance = instances[index];
    const backend = backends[index];
    if (backend) backend.live = false;
    if (!instance) return;
    if (instance.child.exitCode === null && instance.child.signalCode === null) {
      instance.child.kill(signal);
    }
    await instance.exited;
    history.push(`instance ${index} (pid ${instance.child.pid}, ${signal}):\n${instance.output}`);
    instances[index] = undefined;
  };

  try {
    await Promise.all(Array.from({ length: size }, (_, index) => spawnInstance(index)));
  } catch (error) {
    await Promise.all(backends.map((_, index) => stopInstance(index, "SIGKILL")));
    await Promise.all([proxy.close(), gates.close(), emulator.close(), redis?.close()]);
    throw error;
  }

  return {
    emulator,
    gates,
    redis,
    proxy,
    size,
    client(instance) {
      return new Client({
        apiUrl: proxy.url,
        defaultHeaders: instance === undefined ? {} : { [INSTANCE_HEADER]: String(instance) },
        callerOptions: { maxRetries: 0 },
      });
    },
    kill: (index) => stopInstance(index, "SIGKILL"),
    terminate: (index) => stopInstance(index, "SIGTERM"),
    shutdown(index) {
      const instance = instances[index];
      if (!instance) throw new Error(`instance ${index} is not running`);
      const draining = Promise.race([
        instance.printed("DRAINING"),
        instance.exited.then(() => {
          if (!instance.output.split("\n").includes("DRAINING")) {
            throw new Error(`instance ${index} exited without draining:\n${instance.output}`);
          }
        }),
      ]);
      // Handled here too: a caller that only awaits `exited` leaves no unhandled rejection.
      draining.catch(() => {});
      return { draining, exited: stopInstance(index, "SIGTERM") };
    },
    respawn: (index) => spawnInstance(index),
    running: (index) => instances[index] !== undefined,
    report() {
      const live = instances.map((instance, index) =>
        instance
          ? `instance ${index} (pid ${instance.child.pid}, running):\n${instance.output}`
          : "",
      );
      const redisLog = redis ? [`redis-server:\n${redis.output()}`] : [];
      return [...history, ...live.filter(Boolean), ...redisLog].join("\n---\n");
    },
    async close() {
      await Promise.all(backends.map((_, index) => stopInstance(index, "SIGKILL")));
      await Promise.all([proxy.close(), gates.close(), emulator.close(), redis?.close()]);
    },
  };
}

/**
 * One cluster per test file (started before its tests, stopped after them), one at a time across
 * vitest's workers (./one-at-a-time.ts); when a test fails, what the instances printed is written
 * to stderr beside the failure.
 */
export function useCluster(options: ClusterOptions = {}): { get(): Cluster } {
  let cluster: Cluster | undefined;
  let lock: ClusterLock | undefined;
  beforeAll(async () => {
    lock = await acquireClusterLock();
    cluster = await startCluster(options);
  });
  afterEach((context) => {
    if (cluster && context.task.result?.state === "fail") {
      console.error(`What the instances printed:\n${cluster.report()}`);
    }
  });
  afterAll(async () => {
    try {
      await cluster?.close();
    } finally {
      cluster = undefined;
      await lock?.release();
      lock = undefined;
    }
  });
  return {
    get() {
      if (!cluster) throw new Error("useCluster: the cluster did not start (see beforeAll)");
      return cluster;
    },
  };
}
