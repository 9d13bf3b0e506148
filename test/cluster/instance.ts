/**
 * One server instance of the multi-instance tests, in a process of its own (run with tsx by
 * test/cluster/harness.ts): `createAgentServer` over the test's emulator, served by Node's `http`
 * through `toNodeListener` on a free loopback port, which it prints as `LISTENING <port>`.
 *
 * With `REDIS_URL` set, the handler coordinates with the other instances through
 * `redisCoordination` (#35). SIGTERM is a deployment's shutdown: `drain()` (stop taking runs,
 * hand the running ones to another instance at a superstep boundary), then `close()`, then exit.
 *
 * Environment: STUDIO_BASE_URL, STUDIO_PROXY_URL, STUDIO_API_KEY (the emulator), GATE_URL (the
 * test's gate server), INSTANCE_ID, and optionally REDIS_URL, CLUSTER_LEASE_MS and
 * CLUSTER_MAX_BACKGROUND_RUNS.
 */
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { StudioClient } from "../../src/client";
import { StudioCheckpointSaver } from "../../src/langgraph";
import { type AgentServerOptions, createAgentServer, toNodeListener } from "../../src/server";
import { agentGraph } from "../integration/server/graphs";
import { stepsGraph } from "./graphs";

/** The handler as the coordination contract extends it (#35). */
type Handler = ReturnType<typeof createAgentServer> & {
  drain?: () => Promise<void>;
  close?: () => Promise<void>;
};

interface CoordinationModule {
  redisCoordination(options: {
    url: string;
    instanceId?: string;
    keyPrefix?: string;
    leaseMs?: number;
    maxBackgroundRuns?: number;
  }): unknown;
}

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`instance: ${name} is not set (the harness sets it)`);
  return value;
}

/**
 * The Redis coordination module, loaded only when asked for: the smoke tests run without it, and
 * until it exists the coordination tests fail here, naming what is missing.
 */
async function coordination(url: string, instanceId: string): Promise<unknown> {
  const candidates = ["../../src/server/redis.ts", "../../src/server/redis/index.ts"];
  const found = candidates.find((path) =>
    existsSync(fileURLToPath(new URL(path, import.meta.url))),
  );
  if (!found) {
    throw new Error(
      "instance: REDIS_URL is set but src/server/redis does not exist: " +
        "the Redis coordination (#35) is not on this branch yet",
    );
  }
  const module = (await import(new URL(found, import.meta.url).href)) as CoordinationModule;
  // A short lease: how long a killed instance's runs wait for another instance to take them.
  const leaseMs = Number(process.env.CLUSTER_LEASE_MS ?? 2_000);
  const most = process.env.CLUSTER_MAX_BACKGROUND_RUNS;
  const maxBackgroundRuns = most === undefined ? {} : { maxBackgroundRuns: Number(most) };
  return module.redisCoordination({
    url,
    instanceId,
    keyPrefix: "cluster-test:",
    leaseMs,
    ...maxBackgroundRuns,
  });
}

const instanceId = env("INSTANCE_ID");
const client = new StudioClient({
  baseUrl: env("STUDIO_BASE_URL"),
  proxyUrl: env("STUDIO_PROXY_URL"),
  apiKey: env("STUDIO_API_KEY"),
});
const redisUrl = process.env.REDIS_URL;
const options: AgentServerOptions = {
  graphs: { agent: agentGraph(client), steps: stepsGraph(env("GATE_URL")) },
  checkpointer: new StudioCheckpointSaver({ client, datasetId: "chat-server" }),
  client,
  onError: (error) => console.error(`instance ${instanceId}:`, error),
};
const handler: Handler = createAgentServer(
  redisUrl
    ? ({ ...options, coordination: await coordination(redisUrl, instanceId) } as AgentServerOptions)
    : options,
);

const server = createServer(toNodeListener(handler));
server.listen(0, "127.0.0.1", () => {
  console.log(`LISTENING ${(server.address() as AddressInfo).port}`);
});

process.once("SIGTERM", () => {
  // Printed first: the harness waits for it before letting a held step finish.
  console.log("DRAINING");
  void (async () => {
    try {
      await handler.drain?.();
      await handler.close?.();
    } catch (error) {
      console.error(`instance ${instanceId}: drain or close failed:`, error);
      process.exitCode = 1;
    }
    server.closeAllConnections();
    server.close(() => process.exit());
  })();
});
