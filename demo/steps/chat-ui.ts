import { tool } from "@langchain/core/tools";
import { Client } from "@langchain/langgraph-sdk";
import { createAgent } from "langchain";
import { z } from "zod/v4";
import { StudioCheckpointSaver } from "../../src/langgraph";
import { createAgentServer } from "../../src/server";
import { chatModel, DemoCheckError, type DemoStep } from "../step";
import { clip, ui } from "../ui";

const getWeather = tool(({ city }) => `${city}: sunny, 21 °C`, {
  name: "get_weather",
  description: "Current weather for a city.",
  schema: z.object({ city: z.string().describe("city name, e.g. Paris") }),
});

export const chatUiStep: DemoStep = {
  title: "A chat UI backend (the Agent Server API)",
  intro:
    "createAgentServer answers the routes LangGraph's useStream and agent-chat-ui call, as one\n" +
    "fetch-style handler. Here the SDK's own Client talks to it (no port): a thread is created,\n" +
    "a message streamed, and the thread list shows its title, preview and status.",
  async run(ctx) {
    const client = ctx.backend.client;
    const handler = createAgentServer({
      graphs: {
        agent: createAgent({ model: chatModel(ctx, { temperature: 0 }), tools: [getWeather] }),
      },
      checkpointer: new StudioCheckpointSaver({ client, datasetId: "chat-server" }),
      client,
    });
    const sdk = new Client({
      apiUrl: "http://chat.local",
      callerOptions: {
        maxRetries: 0,
        fetch: (input: string | URL | Request, init?: RequestInit) =>
          handler(new Request(input, init)),
      },
    });
    const thread = await sdk.threads.create({ metadata: { demo: ctx.runId } });
    ui.result("Thread", thread.thread_id);
    try {
      const question = 'What is the weather in Paris? Use get_weather with {"city": "Paris"}';
      ui.result("You", question);
      const events: Record<string, number> = {};
      let last: unknown;
      for await (const part of sdk.runs.stream(thread.thread_id, "agent", {
        input: { messages: [{ type: "human", content: question }] },
        streamMode: ["values", "messages-tuple", "updates"],
      })) {
        events[part.event] = (events[part.event] ?? 0) + 1;
        if (part.event === "values") last = part.data;
      }
      const messages = (last as { messages?: { content: unknown }[] } | undefined)?.messages ?? [];
      ui.result("Agent", clip(String(messages.at(-1)?.content ?? ""), 200));
      ui.result(
        "Events",
        Object.entries(events)
          .map(([name, count]) => `${name} ×${count}`)
          .join(", "),
      );
      const [listed] = await sdk.threads.search({ metadata: { demo: ctx.runId } });
      const view = listed as (typeof listed & { title?: string; preview?: string }) | undefined;
      if (!view || view.thread_id !== thread.thread_id) {
        throw new DemoCheckError(
          "the thread list did not show the thread just used",
          "The server's thread list lives in the service; check that one account is used.",
        );
      }
      ui.result(
        "Listed",
        `"${view.title}", ${view.status}, preview "${clip(view.preview ?? "", 60)}"`,
      );
    } finally {
      await sdk.threads
        .delete(thread.thread_id)
        .catch(() => ui.warn(`The chat thread ${thread.thread_id} could not be deleted.`));
    }
    ui.explain("The demo's chat thread and its checkpoints were deleted again.");
  },
};
