/**
 * The set-up most checkpointer tests share: one emulator for the file, emptied before each test,
 * and savers that each get a client of their own (each one a separate process's view).
 */
import { beforeEach } from "vitest";
import { StudioClient } from "../../../src/client";
import { StudioCheckpointSaver, type StudioCheckpointSaverFields } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";

export function useSaverEmulator() {
  const emulator = useEmulator();
  beforeEach(async () => {
    await emulator.handle.reset();
  });
  const newClient = (): StudioClient => {
    const { baseUrl, proxyUrl, apiKey } = emulator.handle;
    return new StudioClient({ baseUrl, proxyUrl, apiKey });
  };
  const saver = (fields: StudioCheckpointSaverFields = {}): StudioCheckpointSaver =>
    new StudioCheckpointSaver({ client: newClient(), ...fields });
  return { emulator, newClient, saver };
}
