/**
 * One emulator per test file: started on a free port before the file's tests, closed after them.
 *
 * ```ts
 * const emulator = useEmulator();
 * it("...", async () => { const { baseUrl, apiKey } = emulator.handle; ... });
 * ```
 */
import { afterAll, beforeAll } from "vitest";
import { type EmulatorHandle, type EmulatorOptions, startEmulator } from "../../src/emulator";

export function useEmulator(options: EmulatorOptions = {}): { readonly handle: EmulatorHandle } {
  let handle: EmulatorHandle | undefined;
  beforeAll(async () => {
    handle = await startEmulator({ ...options, port: options.port ?? 0 });
  });
  afterAll(async () => {
    await handle?.close();
    handle = undefined;
  });
  return {
    get handle(): EmulatorHandle {
      if (!handle) {
        throw new Error(
          "useEmulator: the emulator is not running; read .handle inside a test or hook, not at import time.",
        );
      }
      return handle;
    },
  };
}
