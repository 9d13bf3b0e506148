/**
 * The example's agent: a weather tool, and an email tool that asks the user to approve before it
 * "sends" (LangGraph's `interrupt` inside the tool; the page resumes it with "approve" or "reject").
 */
import { interrupt } from "@langchain/langgraph";
import { createAgent, tool } from "langchain";
import { ChatStudio, type StudioClient } from "langchain-studio";
import { z } from "zod";

const getWeather = tool(({ city }) => `${city}: sunny, 24°C`, {
  name: "get_weather",
  description: "Today's weather in a city.",
  schema: z.object({ city: z.string() }),
});

const sendEmail = tool(
  ({ to, body }) => {
    const decision = interrupt({ action: "send_email", to, body }) as string;
    return decision === "approve" ? `Email sent to ${to}.` : `Not sent: the user said ${decision}.`;
  },
  {
    name: "send_email",
    description: "Sends an email (after the user approves it).",
    schema: z.object({ to: z.string(), body: z.string().optional() }),
  },
);

export function chatAgent(client: StudioClient, model: string) {
  return createAgent({ model: new ChatStudio({ model, client }), tools: [getWeather, sendEmail] });
}
