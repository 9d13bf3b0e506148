/**
 * The WebSocket check of the runtimes that serve (Bun, Deno): `server-ws.mjs` runs the built
 * `createAgentServer` behind the runtime's own server and drives a protocol v2 run over the
 * runtime's own `WebSocket`, against an emulator started here.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../helpers/emulator";
import {
  RUNTIME_TIMEOUT_MS,
  RUNTIMES_DIR,
  type RuntimeOutcome,
  type ScenarioOptions,
} from "./harness";

export const SERVER_WS_SCRIPT = join(RUNTIMES_DIR, "server-ws.mjs");

export function webSocketSuite(
  runtime: string,
  run: (options: ScenarioOptions) => Promise<RuntimeOutcome>,
): void {
  describe(`${runtime}: createAgentServer's protocol v2 WebSocket`, () => {
    const emulator = useEmulator({ recordRequests: false });
    let outcome: RuntimeOutcome = { result: undefined, details: "not run", exitedOnItsOwn: false };

    beforeAll(async () => {
      const { apiKey, baseUrl, proxyUrl } = emulator.handle;
      outcome = await run({ apiKey, baseUrl, proxyUrl });
    }, RUNTIME_TIMEOUT_MS + 30_000);

    it("upgrades, answers the commands in-band, and streams the run's events", () => {
      const step = outcome.result?.steps?.webSocket;
      if (!step) expect.fail(`no result for the WebSocket check.\n${outcome.details}`);
      if (!step.ok) {
        const { name, message, stack } = step.error;
        expect.fail(`${runtime}: ${name}: ${message}\n${stack ?? ""}\n${outcome.details}`);
      }
      expect(step.value).toEqual({
        answers: { 1: "success", 2: "success" },
        texts: [`Hello over ${runtime}`, `You said: Hello over ${runtime}`],
        channels: ["lifecycle", "values"],
      });
    });
  });
}
