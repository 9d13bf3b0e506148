/**
 * Opens what the demo talks to: the in-process emulator (the default, no account or network
 * needed) or the real service when all three STUDIO_* variables are set.
 */
import { mkdir } from "node:fs/promises";
import { StudioClient } from "../src/client";
import { startEmulator } from "../src/emulator";
import type { DemoTarget } from "./config";

export interface Connection {
  apiKey: string;
  baseUrl: string;
  proxyUrl: string;
  orgId?: string | undefined;
}

export interface Backend {
  kind: DemoTarget["kind"];
  connection: Connection;
  /** One client (one socket pool) shared by every step. */
  client: StudioClient;
  close(): Promise<void>;
}

export async function openBackend(target: DemoTarget, stateDir: string): Promise<Backend> {
  await mkdir(stateDir, { recursive: true });
  if (target.kind === "service") {
    const connection: Connection = {
      apiKey: target.apiKey,
      baseUrl: target.baseUrl,
      proxyUrl: target.proxyUrl,
      orgId: target.orgId,
    };
    const client = new StudioClient(connection);
    return { kind: "service", connection, client, close: () => client.close() };
  }

  // A short pause between streamed chunks, so tokens visibly arrive one by one on a terminal
  // (the emulator would otherwise send a whole reply faster than the eye can follow).
  const emulator = await startEmulator({ dataFile: target.dataFile, chunkDelayMs: 20 });
  const connection: Connection = {
    apiKey: emulator.apiKey,
    baseUrl: emulator.baseUrl,
    proxyUrl: emulator.proxyUrl,
  };
  const client = new StudioClient(connection);
  return {
    kind: "emulator",
    connection,
    client,
    async close() {
      // The client first, so no keep-alive socket is left for the emulator to wait on.
      try {
        await client.close();
      } finally {
        await emulator.close();
      }
    },
  };
}
