import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { StudioChatMessageHistory } from "../../src/chat_history";
import { loadDatasetConversations } from "../../src/datasets";
import { DemoCheckError, type DemoStep } from "../step";
import { ui } from "../ui";

const CONVERSATIONS: [string, string][][] = [
  [
    ["How do I reset my password?", "Open Settings, then Security, then Reset password."],
    ["Thanks!", "You're welcome."],
  ],
  [["Which plan includes fine-tuning?", "Fine-tuning needs the Pro plan."]],
];

/** The role names fine-tuning files use (OpenAI's chat format). */
function role(message: BaseMessage): string {
  return message.type === "human" ? "user" : message.type === "ai" ? "assistant" : message.type;
}

export const datasetStep: DemoStep = {
  title: "Dataset export",
  intro:
    "Threads created with a datasetId belong to that dataset. loadDatasetConversations() walks\n" +
    "every page of the dataset and yields each thread's messages as LangChain messages; here\n" +
    "they are written as JSONL, ready for evaluation or fine-tuning.",
  async run(ctx) {
    const { client } = ctx.backend;
    // A fresh dataset per run, so the export shows exactly the threads made here.
    const datasetId = `demo-dataset-${ctx.runId}`;
    const threadIds: string[] = [];
    for (const [i, turns] of CONVERSATIONS.entries()) {
      const history = new StudioChatMessageHistory({
        client,
        datasetId,
        title: `demo support chat ${i + 1}`,
      });
      await history.addMessages(
        turns.flatMap(([question, answer]) => [new HumanMessage(question), new AIMessage(answer)]),
      );
      threadIds.push(await history.getThreadId());
    }
    ui.result("Dataset", `${datasetId} with threads ${threadIds.join(", ")}`);
    try {
      ui.result("JSONL export", "one line per conversation");
      let exported = 0;
      for await (const conversation of loadDatasetConversations({ datasetId, client })) {
        exported++;
        const messages = conversation.messages.map((m) => ({ role: role(m), content: m.text }));
        ui.block(JSON.stringify({ threadId: conversation.threadId, messages }));
      }
      ui.result("Exported", `${exported} conversations`);
      if (exported !== threadIds.length) {
        throw new DemoCheckError(
          `the export returned ${exported} conversations, but ${threadIds.length} threads were created in the dataset`,
          "The service may index datasets with a delay; run the demo again.",
        );
      }
    } finally {
      // Demo data should not pile up in a real account (or in the emulator's data file).
      // allSettled: a failed clean-up must not hide the error that got us here.
      const deleted = await Promise.allSettled(threadIds.map((id) => client.deleteThread(id)));
      const left = deleted.filter((d) => d.status === "rejected").length;
      if (left > 0) ui.warn(`${left} of the demo's dataset threads could not be deleted.`);
    }
    ui.explain("The demo's dataset threads were deleted again.");
  },
};
