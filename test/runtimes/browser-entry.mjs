/**
 * Entry of the runtime matrix for a browser: bundled by `bundle.ts` for `--platform=browser`,
 * loaded by the page `chromium.ts` serves. The API and the page share one origin (the test server
 * proxies `/studio` and `/inference` to the emulator), so no CORS is involved. The key comes in
 * the page's query string; the result is POSTed back to `/result`.
 */
import { runScenario } from "./scenario.mjs";

const { origin, search } = globalThis.location;
const options = {
  apiKey: new URLSearchParams(search).get("key") ?? "",
  baseUrl: `${origin}/studio`,
  proxyUrl: `${origin}/inference`,
};
const result = await runScenario("chromium", options);
await fetch("/result", { method: "POST", body: JSON.stringify(result) });
