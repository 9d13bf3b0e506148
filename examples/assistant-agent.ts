/**
 * An assistant as a LangChain agent: create an assistant with a tool, load it with the tool's
 * implementation, run a turn and print the exchange.
 *
 *   npx tsx examples/assistant-agent.ts
 *
 * Starts its own emulator, so it runs offline. The emulator's scripted model calls the tools
 * named in the last user message and answers "Tool said: ..." after a tool result.
 */
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod/v4";
import { createAssistant, loadAssistantAgent } from "../src/assistants";
import { StudioClient } from "../src/client";
import { startEmulator } from "../src/emulator";

const emulator = await startEmulator();
const client = new StudioClient({
  apiKey: emulator.apiKey,
  baseUrl: emulator.baseUrl,
  proxyUrl: emulator.proxyUrl,
});

const getWeather = tool(({ city }) => `${city}: sunny, 21 °C`, {
  name: "get_weather",
  description: "Current weather for a city.",
  schema: z.object({ city: z.string().describe("city name, e.g. Paris") }),
});

try {
  // The service stores the configuration: instructions, two model settings and the tool schema.
  const assistant = await createAssistant(
    {
      assistantName: "weather-desk",
      modelName: "studio/echo-small",
      description: "Answers weather questions.",
      instructions: "You are a weather desk. Use get_weather, then answer briefly.",
      functionModel: { modelId: "studio/echo-small", temperature: 0, topP: 1 },
      responseModel: { modelId: "studio/echo-large", temperature: 0.3, topP: 0.9 },
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
} finally {
  await client.close();
  await emulator.close();
}
