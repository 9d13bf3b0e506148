/**
 * LangGraph's official checkpointer suite (`@langchain/langgraph-checkpoint-validation`) with every
 * value encrypted: StudioCheckpointSaver with `createEncryptedSerde` against the emulator. The
 * suite's spec files use vitest's globals, which this project does not turn on, so they are
 * provided here before the suite is imported.
 */
import * as vitest from "vitest";
import { toBase64 } from "../../../src/converters/base64";
import { createInProcessEmulator, type EmulatorHandle } from "../../../src/emulator";
import { createEncryptedSerde, StudioCheckpointSaver } from "../../../src/langgraph";

const { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } = vitest;
Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });
const { validate } = await import("@langchain/langgraph-checkpoint-validation");

const key = toBase64(crypto.getRandomValues(new Uint8Array(32)));
let emulator: EmulatorHandle | undefined;

validate<StudioCheckpointSaver>({
  checkpointerName: "StudioCheckpointSaver (encrypted)",
  async beforeAll() {
    emulator = await createInProcessEmulator({ recordRequests: false });
  },
  async afterAll() {
    await emulator?.close();
  },
  createCheckpointer() {
    const { baseUrl, apiKey, fetch } = emulator!;
    return new StudioCheckpointSaver({
      baseUrl,
      apiKey,
      fetch,
      serde: createEncryptedSerde({ keys: { k1: key } }),
    });
  },
  async destroyCheckpointer() {
    await emulator?.reset();
  },
});
