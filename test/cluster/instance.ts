/**
 * One server instance of the multi-instance tests, in a process of its own (started by
 * test/cluster/harness.ts from an esbuild bundle of this file, in plain Node): `createAgentServer`
 * over the test's emulator, served by Node's `http` through `toNodeListener` on a free loopback
 * port, which it prints as `LISTENING <port>`.
 *
 * With `REDIS_URL` set, the handler coordinates with the other instances through
 * `redisCoordination` (#35). SIGTERM is a deployment's shutdown: `drain()` (stop taking runs,
 * hand the running ones to another instance at a superstep boundary), then `close()`, then exit.
 *
 * Environment: STUDIO_BASE_URL, STUDIO_PROXY_URL, STUDIO_API_KEY (the emulator), GATE_URL (the
 * test's gate server), INSTANCE_ID, and optionally REDIS_URL, CLUSTER_LEASE_MS and
 * CLUSTER_MAX_BACKGROUND_RUNS.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { StudioClient } from "../../src/client";
import { StudioCheckpointSaver } from "../../src/langgraph";
import { type AgentServerOptions, createAgentServer, toNodeListener } from "../../src/server";
import { agentGraph, approvalGraph } from "../integration/server/graphs";
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
 * The Redis coordination module, loaded only when asked for (the smoke tests run without it). The
 * specifier is a literal so that the harness's esbuild bundle of this file includes it.
 */
async function coordination(url: string, instanceId: string): Promise<unknown> {
  const module = (await import("../../src/server/redis")) as CoordinationModule;
  // How long a killed instance's runs wait for another instance to take them. Short, so a
  // takeover comes soon, but a live instance keeps its leases on a busy machine (the cluster
  // files run beside other test files): at 2 s, live instances lost theirs at a load of 14.
  const leaseMs = Number(process.env.CLUSTER_LEASE_MS ?? 5_000);
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
  graphs: {
    agent: agentGraph(client),
    steps: stepsGraph(env("GATE_URL")),
    approval: approvalGraph(),
  },
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
