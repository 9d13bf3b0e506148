/**
 * Entry of the runtime matrix for Cloudflare workerd: a module worker whose fetch handler runs the
 * scenario with the options POSTed to it and answers the result as JSON. Bundled by
 * `bundle.ts` (workerd/worker/browser conditions, @langchain/core included).
 */
import { runScenario } from "./scenario.mjs";

export default {
  async fetch(request) {
    const options = await request.json();
    return Response.json(await runScenario("workerd", options));
  },
};
