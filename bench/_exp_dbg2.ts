import { HumanMessage } from "@langchain/core/messages";
import { StudioClient } from "../src/client";
import { startEmulator } from "../src/emulator";
import { StudioCheckpointSaver } from "../src/langgraph";
import { agentGraph } from "./_exp_graph";

const emulator = await startEmulator({ port: 0 });
const client = new StudioClient({ baseUrl: emulator.baseUrl, proxyUrl: emulator.proxyUrl, apiKey: emulator.apiKey });
const graph = agentGraph(new StudioCheckpointSaver({ client }));
const config = { configurable: { thread_id: "t" } };
const N = Number(process.argv[2] ?? 40);
for (let i = 0; i < N; i++) {
  emulator.clearRequests();
  await graph.invoke({ messages: [new HumanMessage({ id: `h-${i}`, content: `q ${i}` })] }, config);
  let total = 0;
  const big: string[] = [];
  for (const r of emulator.requests) {
    if (r.method !== "POST" || !r.path.endsWith("/messages")) continue;
    const content = (r.body as any).content as string;
    total += content.length;
    if (content.length > 3000) {
      const meta = (r.body as any).metadata;
      big.push(`${meta.lc_checkpoint_record}:${meta.channels}:${meta.part ?? ""}:${content.length}`);
    }
  }
  console.log(i, total, big.join(" "));
}
await emulator.close();
