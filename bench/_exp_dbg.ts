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
  if (i < N - 3) continue;
  for (const r of emulator.requests) {
    if (r.method !== "POST" || !r.path.endsWith("/messages")) continue;
    const rec = JSON.parse((r.body as { content: string }).content);
    console.log(rec.kind, JSON.stringify(rec.blobs?.map((b: any) => [b.channel, "value" in b ? "whole" : "append", JSON.stringify(b).length]) ?? rec.writes?.map((w: any) => [w.channel, JSON.stringify(w).length])), (r.body as any).content.length);
  }
}
await emulator.close();
