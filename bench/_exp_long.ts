import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { StudioClient } from "../src/client";
import { startEmulator } from "../src/emulator";
import { StudioCheckpointSaver } from "../src/langgraph";

function agentGraph(checkpointer: StudioCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("model", (state) => {
      const last = state.messages.at(-1) as BaseMessage;
      const n = state.messages.length;
      if (HumanMessage.isInstance(last)) {
        return { messages: [new AIMessage({ id: `ai-${n}`, content: "", tool_calls: [{ id: `call-${n}`, name: "get_weather", args: { city: "Oslo" } }] })] };
      }
      return { messages: [new AIMessage({ id: `ai-${n}`, content: `answer ${n}: mostly sunny, 22°C, light wind from the west.` })] };
    })
    .addNode("tools", (state) => {
      const last = state.messages.at(-1) as AIMessage;
      return { messages: [new ToolMessage({ id: `tool-${state.messages.length}`, tool_call_id: last.tool_calls![0]!.id!, content: "Oslo: sunny, 22°C" })] };
    })
    .addEdge(START, "model")
    .addConditionalEdges("model", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END))
    .addEdge("tools", "model")
    .compile({ checkpointer });
}

function counting(base: { baseUrl: string; proxyUrl: string; apiKey: string }) {
  const stats = { calls: 0, sent: 0, received: 0, by: {} as Record<string, number> };
  const client = new StudioClient({
    ...base,
    fetch: async (url, init) => {
      stats.calls++;
      const n = typeof init?.body === "string" ? Buffer.byteLength(init.body) : init?.body ? -1 : 0;
      stats.sent += n;
      const k = `${init?.method ?? "GET"} ${String(url).replace(/thread_[a-z0-9]+/g, "T").replace(/\?.*/, "")}`;
      stats.by[k] = (stats.by[k] ?? 0) + n;
      const res = await fetch(url, init);
      const buf = await res.arrayBuffer();
      stats.received += buf.byteLength;
      return new Response(buf, { status: res.status, statusText: res.statusText, headers: res.headers });
    },
  });
  return { client, stats };
}

const emulator = await startEmulator({ port: 0, recordRequests: false });
const addr = { baseUrl: emulator.baseUrl, proxyUrl: emulator.proxyUrl, apiKey: emulator.apiKey };
const turnsList = (process.argv[2] ?? "100,300,500").split(",").map(Number);
for (const turns of turnsList) {
  const w = counting(addr);
  const graph = agentGraph(new StudioCheckpointSaver({ client: w.client }));
  const config = { configurable: { thread_id: `t-${turns}` } };
  const t0 = Date.now();
  for (let i = 0; i < turns; i++) await graph.invoke({ messages: [new HumanMessage({ id: `h-${i}`, content: `question ${i}: how does the weather look for tomorrow?` })] }, config);
  const buildMs = Date.now() - t0;
  const r = counting(addr);
  const saver = new StudioCheckpointSaver({ client: r.client });
  global.gc?.();
  const h0 = process.memoryUsage().heapUsed;
  const tuple = await saver.getTuple(config);
  const first = { ...r.stats };
  const size = (await saver.serde.dumpsTyped(tuple!.checkpoint))[1].byteLength;
  global.gc?.();
  const h1 = process.memoryUsage().heapUsed;
  console.log(JSON.stringify({ turns, buildMs, sent: w.stats.sent, writerCalls: w.stats.calls, firstCalls: first.calls, firstBytes: first.received, size, ratio: +(first.received / size).toFixed(2), heapMB: +((h1 - h0) / 1e6).toFixed(2), by: w.stats.by, heapRatio: +((h1 - h0) / size).toFixed(2), msgs: tuple!.checkpoint.channel_values.messages.length }));
  void tuple;
}
await emulator.close();
