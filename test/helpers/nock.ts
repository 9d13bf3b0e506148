/**
 * nock for a whole test file: the real network is off while the file runs, and each test's
 * interceptors are removed after it, so one test's leftovers never answer the next one.
 * nock sees only global fetch: clients under test use the fetch transport
 * (`new StudioClient({ fetch: globalThis.fetch, ... })`).
 */
import nock from "nock";
import { afterAll, afterEach, beforeAll } from "vitest";

export function useOfflineNock(): void {
  beforeAll(() => {
    nock.disableNetConnect();
  });
  afterAll(() => {
    nock.enableNetConnect();
  });
  afterEach(() => {
    nock.cleanAll();
  });
}
