import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { chatModel, type DemoStep } from "../step";
import { ui } from "../ui";

export const invokeStep: DemoStep = {
  title: "Invoke the chat model",
  intro:
    "ChatStudio is a LangChain chat model: it takes messages and returns an AIMessage with the\n" +
    "answer, token usage and response metadata, like ChatOpenAI would.",
  async run(ctx) {
    const model = chatModel(ctx, { temperature: 0, maxTokens: 64 });
    const question = "In one sentence: why do developers test against an emulator?";
    ui.result("You", question);
    const reply = await model.invoke([
      new SystemMessage("You are a concise assistant."),
      new HumanMessage(question),
    ]);
    ui.result("AI", reply.text);
    const usage = reply.usage_metadata;
    if (usage) {
      ui.result(
        "Usage",
        `${usage.input_tokens} input + ${usage.output_tokens} output = ${usage.total_tokens} tokens`,
      );
    }
    const finish = reply.response_metadata.finish_reason;
    if (typeof finish === "string") ui.result("Finish reason", finish);
  },
};
