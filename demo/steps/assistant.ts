import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod/v4";
import { loadAssistantAgent } from "../../src/agents";
import { createAssistant, deleteAssistant } from "../../src/assistants";
import { DemoCheckError, type DemoStep } from "../step";
import { clip, ui } from "../ui";

// Canned data keeps the demo offline and its output predictable.
const FORECASTS: Record<string, string> = {
  paris: "sunny, 21 °C",
  oslo: "light snow, -3 °C",
};

const getWeather = tool(
  ({ city }) => `${city}: ${FORECASTS[city.toLowerCase()] ?? "cloudy, 15 °C"}`,
  {
    name: "get_weather",
    description: "Current weather for a city.",
    schema: z.object({ city: z.string().describe("city name, e.g. Paris") }),
  },
);

export const assistantStep: DemoStep = {
  title: "Assistant as an agent",
  intro:
    "An assistant is a configuration stored on the service: instructions, models and tool\n" +
    "schemas. loadAssistantAgent() turns it into a LangChain agent that runs your tool code.",
  async run(ctx) {
    const { client } = ctx.backend;
    const assistant = await createAssistant(
      {
        assistantName: `demo-weather-${ctx.runId}`,
        modelName: ctx.model,
        description: "Answers weather questions with the get_weather tool.",
        instructions: "You are a weather assistant. Use get_weather, then answer in one sentence.",
        functionModel: { modelId: ctx.model, temperature: 0 },
        responseModel: { modelId: ctx.model, temperature: 0.3 },
        tools: [getWeather],
        metadata: { createdBy: "langchain-studio demo" },
      },
      { client },
    );
    try {
      ui.result("Assistant", `${assistant.assistantName} (${assistant.id})`);
      ui.result("Declared tools", (assistant.tools ?? []).map((t) => t.function?.name).join(", "));

      const agent = await loadAssistantAgent({ assistant, tools: [getWeather], client });
      const question = 'What is the weather in Paris? Use get_weather with {"city": "Paris"}';
      ui.result("You", question);
      const { messages } = await agent.invoke({ messages: [new HumanMessage(question)] });

      // The whole exchange comes back: the question, tool calls, tool results, the answer last.
      for (const message of messages) {
        if (AIMessage.isInstance(message) && message.tool_calls?.length) {
          for (const call of message.tool_calls) {
            ui.result("Agent calls", `${call.name}(${JSON.stringify(call.args)})`);
          }
        } else if (message.type === "tool") {
          ui.result("Tool returns", clip(message.text, 200));
        } else if (message.type === "ai") {
          ui.result("Agent", clip(message.text, 200));
        }
      }
      const last = messages.at(-1);
      if (last?.type !== "ai") {
        throw new DemoCheckError(
          "the agent run did not end with an answer from the model",
          "Pick a model that supports tool calling with STUDIO_MODEL.",
        );
      }
    } finally {
      // Demo data should not pile up in a real account (or in the emulator's data file).
      await deleteAssistant(assistant.id, { client }).catch(() =>
        ui.warn(`The demo assistant ${assistant.id} could not be deleted.`),
      );
    }
    ui.explain("The demo's assistant was deleted again.");
  },
};
