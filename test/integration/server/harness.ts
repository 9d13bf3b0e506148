/**
 * The two servers under the same scripts: this package's handler over the emulator, and the
 * reference, `@langchain/langgraph-api`'s `createEmbedServer` with `MemorySaver`. Both are driven
 * by the SDK's `Client` with its `fetch` pointed at the handler (no port).
 */

import { MemorySaver } from "@langchain/langgraph";
import { createEmbedServer, type ThreadSaver } from "@langchain/langgraph-api/experimental/embed";
import { Client } from "@langchain/langgraph-sdk";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver } from "../../../src/langgraph";
import {
  type AgentServerHandler,
  type AgentServerOptions,
  createAgentServer,
} from "../../../src/server";
import { agentGraph, approvalGraph, echoGraph, nestedGraph, whoamiGraph } from "./graphs";

export type Handler = (request: Request) => Promise<Response>;

export function sdkClient(handler: Handler, headers?: Record<string, string>): Client {
  return new Client({
    apiUrl: "http://agent.test",
    defaultHeaders: headers,
    callerOptions: {
      maxRetries: 0,
      fetch: (input: string | URL | Request, init?: RequestInit) =>
        handler(new Request(input, init)),
    },
  });
}

/** The HTTP status a call ended with: 200 when it succeeded, else its error's `status`. */
export async function statusOf(call: Promise<unknown>): Promise<number> {
  const error = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status?: number } | undefined;
  return error?.status ?? 200;
}

/** Two signed-in users (`x-user`) of one server over `emulator`. */
export function twoUsers(emulator: EmulatorAddress) {
  const { handler } = studioServer(emulator, { auth: (r) => r.headers.get("x-user") });
  return {
    ada: sdkClient(handler, { "x-user": "ada" }),
    bob: sdkClient(handler, { "x-user": "bob" }),
  };
}

/** A run's POST as the SDK sends it, for tests that read the response themselves. */
export function postRun(threadId: string, body: Record<string, unknown>): Request {
  return new Request(`http://agent.test/threads/${threadId}/runs/stream`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

export interface EmulatorAddress {
  baseUrl: string;
  proxyUrl: string;
  apiKey: string;
}

/** A fresh process's server: its own client, checkpointer and handler. */
export function studioServer(
  emulator: EmulatorAddress,
  extra: Partial<AgentServerOptions> = {},
): { handler: AgentServerHandler; client: StudioClient; calls: { count: number } } {
  const calls = { count: 0 };
  const client = new StudioClient({
    baseUrl: emulator.baseUrl,
    proxyUrl: emulator.proxyUrl,
    apiKey: emulator.apiKey,
    fetch: (input: string | URL | Request, init?: RequestInit) => {
      calls.count++;
      return fetch(input, init);
    },
  } as ConstructorParameters<typeof StudioClient>[0]);
  const handler = createAgentServer({
    graphs: {
      agent: agentGraph(client),
      approval: approvalGraph(),
      echo: echoGraph(),
      nested: nestedGraph(),
      whoami: whoamiGraph(),
    },
    checkpointer: new StudioCheckpointSaver({ client, datasetId: "chat-server" }),
    client,
    ...extra,
  });
  return { handler, client, calls };
}

/** An in-memory thread list for the reference server (it asks for one). */
function memoryThreads(): ThreadSaver {
  const threads = new Map<string, { thread_id: string; metadata: Record<string, unknown> }>();
  return {
    async get(id) {
      const thread = threads.get(id);
      if (!thread) throw new Error(`Thread ${id} not found`);
      return thread;
    },
    async set(id, { kind, metadata }) {
      const old = threads.get(id);
      const thread = {
        thread_id: id,
        metadata: kind === "patch" ? { ...old?.metadata, ...metadata } : { ...metadata },
      };
      threads.set(id, thread);
      return thread;
    },
    async delete(id) {
      threads.delete(id);
    },
  };
}

export function referenceServer(studio: StudioClient): Handler {
  const app = createEmbedServer({
    graph: {
      agent: agentGraph(studio).graph as never,
      approval: approvalGraph() as never,
      echo: echoGraph() as never,
      nested: nestedGraph() as never,
    },
    threads: memoryThreads(),
    checkpointer: new MemorySaver(),
  });
  return async (request) => app.fetch(request);
}
