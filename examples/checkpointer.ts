/**
 * LangGraph memory in the service: `createAgent` with `StudioCheckpointSaver`. Two runs share
 * nothing but the `thread_id`; each builds its own saver and agent, as two processes would, and
 * the second run continues the first one's conversation. The checkpoint thread is deleted at the
 * end, so a run against a real account leaves nothing behind.
 *
 *   npx tsx examples/checkpointer.ts
 *
 * Runs against its own emulator, or against the real service when STUDIO_API_KEY,
 * STUDIO_BASE_URL and STUDIO_PROXY_URL are set (model: STUDIO_MODEL).
 */
import { createAgent, tool } from "langchain";
import { ChatStudio } from "langchain-studio";
import { StudioCheckpointSaver } from "langchain-studio/langgraph";
import { z } from "zod";
import { type Backend, openBackend } from "./lib/backend";

const getWeather = tool(({ city }) => `${city}: sunny, 24°C`, {
  name: "get_weather",
  description: "Today's weather in a city.",
  schema: z.object({ city: z.string().describe("the city, e.g. Paris") }),
});

/** One run, as a separate process would do it: its own saver and agent, the same thread_id. */
async function run(backend: Backend, threadId: string, question: string) {
  const agent = createAgent({
    model: new ChatStudio({ model: backend.model, client: backend.client, temperature: 0 }),
    tools: [getWeather],
    checkpointer: new StudioCheckpointSaver({ client: backend.client }),
  });
  const { messages } = await agent.invoke(
    { messages: [{ role: "user", content: question }] },
    { configurable: { thread_id: threadId } },
  );
  return messages;
}

const backend = await openBackend();
// Your own id for the conversation (a user id, a ticket number...).
const threadId = `checkpointer-example-${crypto.randomUUID().slice(0, 8)}`;

try {
  const first = await run(backend, threadId, 'Weather in Paris? get_weather {"city": "Paris"}');
  console.log(`run 1: ${first.length} messages; answer: ${first.at(-1)?.text}`);

  const second = await run(backend, threadId, "Thanks! What did I ask before?");
  console.log(`run 2: ${second.length} messages (run 1's are still there):`);
  for (const message of second) console.log(`  ${message.type}: ${message.text}`);
  if (second.length <= first.length) throw new Error("the second run did not see the first one");
} finally {
  try {
    await new StudioCheckpointSaver({ client: backend.client }).deleteThread(threadId);
  } finally {
    await backend.close();
  }
}
