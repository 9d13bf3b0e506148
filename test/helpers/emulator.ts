/**
 * One emulator per test file: started on a free port before the file's tests, closed after them.
 *
 * ```ts
 * const emulator = useEmulator();
 * it("...", async () => { const { baseUrl, apiKey } = emulator.handle; ... });
 * ```
 *
 * `useInProcessEmulator()` is the same emulator with no server: clients reach it only through
 * `fetch: emulator.handle.fetch`. For tests whose subject is not the HTTP transport (equivalence,
 * property and cost tests that make thousands of calls), it takes loopback sockets, HTTP parsing
 * and the event-loop hops between two ends of one process out of every call.
 */
import { afterAll, beforeAll } from "vitest";
import {
  createInProcessEmulator,
  type EmulatorHandle,
  type EmulatorOptions,
  startEmulator,
} from "../../src/emulator";

export function useEmulator(options: EmulatorOptions = {}): { readonly handle: EmulatorHandle } {
  return useHandle(() => startEmulator({ ...options, port: options.port ?? 0 }));
}

export function useInProcessEmulator(options: Omit<EmulatorOptions, "port" | "host"> = {}): {
  readonly handle: EmulatorHandle;
} {
  return useHandle(() => createInProcessEmulator(options));
}

function useHandle(start: () => Promise<EmulatorHandle>): { readonly handle: EmulatorHandle } {
  let handle: EmulatorHandle | undefined;
  beforeAll(async () => {
    handle = await start();
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
