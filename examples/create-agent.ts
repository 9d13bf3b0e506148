/**
 * A tool-calling agent: LangChain's `createAgent` with ChatStudio as its model and one tool.
 * The agent loop calls the model, runs the tool calls it asks for, sends the results back, and
 * stops at the first answer without tool calls.
 *
 *   npx tsx examples/create-agent.ts
 *
 * Runs against its own emulator, or against the real service when STUDIO_API_KEY,
 * STUDIO_BASE_URL and STUDIO_PROXY_URL are set (model: STUDIO_MODEL).
 */
import { createAgent, tool } from "langchain";
import { ChatStudio } from "langchain-studio";
import { z } from "zod";
import { openBackend } from "./lib/backend";

const getWeather = tool(
  async ({ city }) => {
    const forecasts: Record<string, string> = { paris: "sunny, 24°C", oslo: "snow, -3°C" };
    return forecasts[city.toLowerCase()] ?? `no forecast for ${city}`;
  },
  {
    name: "get_weather",
    description: "Today's weather in a city.",
    schema: z.object({ city: z.string().describe("the city, e.g. Paris") }),
  },
);

const backend = await openBackend();

try {
  const model = new ChatStudio({ model: backend.model, client: backend.client, temperature: 0 });
  const agent = createAgent({
    model,
    tools: [getWeather],
    systemPrompt: "You answer weather questions. Use the get_weather tool.",
  });

  const result = await agent.invoke({
    messages: [
      { role: "user", content: 'What is the weather in Paris? Use get_weather {"city": "Paris"}' },
    ],
  });

  for (const message of result.messages) {
    const calls =
      "tool_calls" in message && Array.isArray(message.tool_calls) ? message.tool_calls : [];
    const detail = calls.length > 0 ? ` -> calls ${calls.map((c) => c.name).join(", ")}` : "";
    console.log(`${message.type}: ${message.text}${detail}`);
  }
  console.log("answer:", result.messages.at(-1)?.text);
} finally {
  await backend.close();
}
