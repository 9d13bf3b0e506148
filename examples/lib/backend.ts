/**
 * What every example talks to: the real service when STUDIO_API_KEY, STUDIO_BASE_URL and
 * STUDIO_PROXY_URL are all set, otherwise an emulator started here, so each example also runs
 * offline. Not an example itself (it sits in a subfolder, where the smoke test does not look).
 *
 *   const backend = await openBackend();
 *   try {
 *     const model = new ChatStudio({ model: backend.model, client: backend.client });
 *   } finally {
 *     await backend.close();
 *   }
 */
import { StudioClient } from "langchain-studio";
import { startEmulator } from "langchain-studio/emulator";

export interface Backend {
  /** One client, so one connection pool, shared by every model and history of the example. */
  client: StudioClient;
  /** `STUDIO_MODEL` when set, else the example's default. */
  model: string;
  isEmulator: boolean;
  /** Closes the client, then the emulator if one was started. */
  close(): Promise<void>;
}

export async function openBackend({
  defaultModel = "studio/echo-small",
}: {
  defaultModel?: string;
} = {}): Promise<Backend> {
  const { STUDIO_API_KEY, STUDIO_BASE_URL, STUDIO_PROXY_URL, STUDIO_MODEL } = process.env;
  const model = STUDIO_MODEL || defaultModel;
  if (STUDIO_API_KEY && STUDIO_BASE_URL && STUDIO_PROXY_URL) {
    // The client reads the three variables (and STUDIO_ORG_ID) itself.
    const client = new StudioClient();
    return { client, model, isEmulator: false, close: () => client.close() };
  }
  const emulator = await startEmulator();
  const client = new StudioClient({
    apiKey: emulator.apiKey,
    baseUrl: emulator.baseUrl,
    proxyUrl: emulator.proxyUrl,
  });
  return {
    client,
    model,
    isEmulator: true,
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
