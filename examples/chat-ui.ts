/**
 * A chat UI in one command: LangGraph's `useStream` page, served with `createAgentServer` over
 * the service's threads (a weather tool, an email that waits for your approval, edits of earlier
 * messages, reload restoring the thread).
 *
 *   npx tsx examples/chat-ui.ts        then open the address it prints
 *
 * Serves until Ctrl-C, or until stdin closes: run without input (as the examples' smoke test
 * does), it sends one message through the SDK's Client, prints the answer and exits.
 * Runs against its own emulator, or the real service when STUDIO_API_KEY, STUDIO_BASE_URL and
 * STUDIO_PROXY_URL are set (model: STUDIO_MODEL).
 */
import { Client } from "@langchain/langgraph-sdk";
import { StudioCheckpointSaver } from "langchain-studio/langgraph";
import { createAgentServer } from "langchain-studio/server";
import { chatAgent } from "./chat-ui/graph";
import { serveChat } from "./chat-ui/serve";
import { openBackend } from "./lib/backend";

const backend = await openBackend();
const handler = createAgentServer({
  graphs: { agent: chatAgent(backend.client, backend.model) },
  checkpointer: new StudioCheckpointSaver({ client: backend.client, datasetId: "chat-server" }),
  client: backend.client,
  basePath: "/api",
});
const { url, server } = await serveChat(handler, Number(process.env.PORT ?? 0));
console.log(`Chat UI: ${url}  (Ctrl-C to stop)`);

async function close() {
  server.close();
  await backend.close();
}
process.on("SIGINT", () => void close().then(() => process.exit(0)));

process.stdin.resume();
process.stdin.on("end", async () => {
  // No one at the keyboard: check one round trip through the SDK's Client, then stop.
  const client = new Client({ apiUrl: `${url}api` });
  const thread = await client.threads.create();
  let last: unknown;
  for await (const part of client.runs.stream(thread.thread_id, "agent", {
    input: { messages: [{ type: "human", content: 'get_weather {"city": "Oslo"}' }] },
    streamMode: "values",
  })) {
    if (part.event === "values") last = part.data;
  }
  const messages = (last as { messages: { content: unknown }[] }).messages;
  console.log("SDK check:", JSON.stringify(messages.at(-1)?.content));
  await client.threads.delete(thread.thread_id);
  await close();
});
