/**
 * An assistant as a LangChain agent: create an assistant with a tool, load it with the tool's
 * implementation, run a turn and print the exchange.
 *
 *   npx tsx examples/assistant-agent.ts
 *
 * Runs against its own emulator, or against the real service when STUDIO_API_KEY,
 * STUDIO_BASE_URL and STUDIO_PROXY_URL are set (model: STUDIO_MODEL).
 * The emulator's scripted model calls the tools named in the last user message and answers
 * "Tool said: ..." after a tool result.
 */
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createAssistant, deleteAssistant } from "langchain-studio";
import { loadAssistantAgent } from "langchain-studio/agents";
import { z } from "zod";
import { openBackend } from "./lib/backend";

const getWeather = tool(({ city }) => `${city}: sunny, 21 °C`, {
  name: "get_weather",
  description: "Current weather for a city.",
  schema: z.object({ city: z.string().describe("city name, e.g. Paris") }),
});

const backend = await openBackend();
const { client } = backend;

try {
  // The service stores the configuration: instructions, two model settings and the tool schema.
  const assistant = await createAssistant(
    {
      assistantName: "weather-desk",
      modelName: backend.model,
      description: "Answers weather questions.",
      instructions: "You are a weather desk. Use get_weather, then answer briefly.",
      // One model, two settings: exact for choosing tools, a little freer for the answer.
      functionModel: { modelId: backend.model, temperature: 0, topP: 1 },
      responseModel: { modelId: backend.model, temperature: 0.3, topP: 0.9 },
      tools: [getWeather],
    },
    { client },
  );
  console.log(`created ${assistant.assistantName} (${assistant.id})`);

  // Your code implements the tools; the agent checks the names against the assistant's.
  const agent = await loadAssistantAgent({
    assistantId: assistant.id,
    tools: [getWeather],
    client,
  });

  const { messages } = await agent.invoke({
    messages: [new HumanMessage('What is the weather in Paris? Use get_weather {"city": "Paris"}')],
  });
  for (const message of messages) {
    const calls =
      "tool_calls" in message && Array.isArray(message.tool_calls) ? message.tool_calls : [];
    const shown = calls.length
      ? calls.map((call) => `${call.name}(${JSON.stringify(call.args)})`).join(", ")
      : message.text;
    console.log(`${message.type.padEnd(5)} ${shown}`);
  }

  // The assistant is stored on the service until deleted: leave nothing behind.
  await deleteAssistant(assistant.id, { client });
  console.log(`deleted ${assistant.id}`);
} finally {
  await backend.close();
}
