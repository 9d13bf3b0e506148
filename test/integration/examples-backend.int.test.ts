/**
 * The rule every example follows (examples/lib/backend.ts): the real service only when all three
 * STUDIO_* addresses are set, otherwise an emulator of its own. A second emulator stands in for
 * the real service here.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { openBackend } from "../../examples/lib/backend";
import { useEmulator } from "../helpers/emulator";

const service = useEmulator();

afterEach(() => {
  vi.unstubAllEnvs();
});

function setEnv(vars: Record<"apiKey" | "baseUrl" | "proxyUrl" | "model", string>): void {
  vi.stubEnv("STUDIO_API_KEY", vars.apiKey);
  vi.stubEnv("STUDIO_BASE_URL", vars.baseUrl);
  vi.stubEnv("STUDIO_PROXY_URL", vars.proxyUrl);
  vi.stubEnv("STUDIO_MODEL", vars.model);
}

/** Where an example's backend points: its kind, its model, and whether the service saw a call. */
async function probe(options?: { defaultModel?: string }) {
  service.handle.clearRequests();
  const backend = await openBackend(options);
  try {
    await backend.client.createThread({});
    return {
      isEmulator: backend.isEmulator,
      model: backend.model,
      serviceCalls: service.handle.requests.length,
    };
  } finally {
    await backend.close();
  }
}

describe("openBackend", () => {
  it("uses the service when STUDIO_API_KEY, STUDIO_BASE_URL and STUDIO_PROXY_URL are all set", async () => {
    setEnv({ ...service.handle, model: "studio/echo-large" });
    expect(await probe()).toEqual({
      isEmulator: false,
      model: "studio/echo-large",
      serviceCalls: 1,
    });
  });

  it("starts its own emulator when one of the three is missing, with the default model", async () => {
    setEnv({ ...service.handle, proxyUrl: "", model: "" });
    expect(await probe({ defaultModel: "studio/echo-text" })).toEqual({
      isEmulator: true,
      model: "studio/echo-text",
      serviceCalls: 0,
    });
  });
});
