import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { z } from "zod/v4";
import { StudioCheckpointSaver } from "../../src/langgraph";
import { chatModel, DemoCheckError, type DemoContext, type DemoStep } from "../step";
import { clip, ui } from "../ui";

const getWeather = tool(({ city }) => `${city}: sunny, 21 °C`, {
  name: "get_weather",
  description: "Current weather for a city.",
  schema: z.object({ city: z.string().describe("city name, e.g. Paris") }),
});

/** One run, as a separate process would make it: its own saver and agent, the same thread_id. */
async function agentRun(ctx: DemoContext, threadId: string, question: string) {
  const agent = createAgent({
    model: chatModel(ctx, { temperature: 0 }),
    tools: [getWeather],
    checkpointer: new StudioCheckpointSaver({ client: ctx.backend.client }),
  });
  ui.result("You", question);
  const { messages } = await agent.invoke(
    { messages: [{ role: "user", content: question }] },
    { configurable: { thread_id: threadId } },
  );
  ui.result("Agent", clip(messages.at(-1)?.text ?? "", 200));
  return messages;
}

export const agentMemoryStep: DemoStep = {
  title: "Agent memory with a LangGraph checkpointer",
  intro:
    "LangChain's createAgent remembers through a LangGraph checkpointer keyed by thread_id.\n" +
    "StudioCheckpointSaver keeps those checkpoints in a service thread, so a second run (here a\n" +
    "new saver and a new agent, as in another process) continues where the first one stopped.",
  async run(ctx) {
    const threadId = `demo-agent-${ctx.runId}`;
    try {
      ui.result("Run 1", `thread_id ${threadId}`);
      const first = await agentRun(
        ctx,
        threadId,
        'What is the weather in Paris? Use get_weather with {"city": "Paris"}',
      );
      ui.result("Run 2", `a new saver and agent, the same thread_id ${threadId}`);
      const second = await agentRun(ctx, threadId, "Thanks! Which city did I ask about?");
      const remembered = second.length - 2;
      ui.result("Remembered", `${remembered} messages of run 1 were in the agent's state`);
      if (remembered !== first.length) {
        throw new DemoCheckError(
          `run 2 started with ${remembered} earlier messages, but run 1 ended with ${first.length}`,
          "The checkpoint thread was not found again; check that both runs use one account.",
        );
      }
    } finally {
      await new StudioCheckpointSaver({ client: ctx.backend.client })
        .deleteThread(threadId)
        .catch(() => ui.warn(`The checkpoint thread of ${threadId} could not be deleted.`));
    }
    ui.explain("The demo's checkpoint thread was deleted again.");
  },
};
