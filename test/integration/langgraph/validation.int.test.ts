/**
 * LangGraph's official checkpointer suite (`@langchain/langgraph-checkpoint-validation`) against
 * the emulator. The suite's spec files use vitest's globals, which this project does not turn on,
 * so they are provided here before the suite is imported.
 */
import * as vitest from "vitest";
import { type EmulatorHandle, startEmulator } from "../../../src/emulator";
import { StudioCheckpointSaver } from "../../../src/langgraph";

const { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } = vitest;
Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });
const { validate } = await import("@langchain/langgraph-checkpoint-validation");

let emulator: EmulatorHandle | undefined;

validate<StudioCheckpointSaver>({
  checkpointerName: "StudioCheckpointSaver",
  async beforeAll() {
    emulator = await startEmulator({ port: 0, recordRequests: false });
  },
  async afterAll() {
    await emulator?.close();
  },
  createCheckpointer() {
    const { baseUrl, proxyUrl, apiKey } = emulator!;
    // A new client each time: nothing cached from an earlier checkpointer can answer for it.
    return new StudioCheckpointSaver({ baseUrl, proxyUrl, apiKey });
  },
  async destroyCheckpointer() {
    // The suite expects each checkpointer to start from an empty store (list() with no thread).
    await emulator?.reset();
  },
});
