/**
 * Streaming with ChatStudio: tokens as they arrive with `stream`, then the same answer as
 * LangChain events with `streamEvents` (what UIs and tracing listen to).
 *
 *   npx tsx examples/stream.ts
 *
 * Runs against its own emulator, or against the real service when STUDIO_API_KEY,
 * STUDIO_BASE_URL and STUDIO_PROXY_URL are set (model: STUDIO_MODEL).
 */
import type { AIMessageChunk } from "@langchain/core/messages";
import { ChatStudio } from "langchain-studio";
import { openBackend } from "./lib/backend";

const backend = await openBackend();

try {
  const model = new ChatStudio({ model: backend.model, client: backend.client, maxTokens: 200 });
  const question = "Describe a thunderstorm over the sea in two sentences.";

  // 1. Tokens, written the moment they arrive. Chunks add up to the full message.
  let full: AIMessageChunk | undefined;
  for await (const chunk of await model.stream(question)) {
    process.stdout.write(chunk.text);
    full = full ? full.concat(chunk) : chunk;
  }
  console.log(`\nusage (sent with the last chunk): ${JSON.stringify(full?.usage_metadata)}`);

  // 2. The same call as events: start, one stream event per chunk, end.
  let streamed = "";
  for await (const event of model.streamEvents(question, { version: "v2" })) {
    if (event.event === "on_chat_model_stream") {
      streamed += (event.data.chunk as AIMessageChunk).text;
    } else if (event.event === "on_chat_model_start" || event.event === "on_chat_model_end") {
      console.log(`event: ${event.event} (${event.name})`);
    }
  }
  console.log("text from the stream events:", streamed);
} finally {
  await backend.close();
}
