import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import { StudioChatMessageHistory } from "../../src/chat_history";
import { chatModel, DemoCheckError, type DemoContext, type DemoStep } from "../step";
import { clip, ui } from "../ui";

function speaker(message: BaseMessage): string {
  return message.type === "human" ? "You" : message.type === "ai" ? "AI" : message.type;
}

/**
 * One visit, as a separate process would make it: a new chain and a new history for the same
 * session id. Nothing but the service carries the earlier turns to it.
 */
async function visit(ctx: DemoContext, sessionId: string, question: string) {
  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "You are a friendly assistant with a good memory."],
    new MessagesPlaceholder("history"),
    ["human", "{question}"],
  ]);
  const chain = new RunnableWithMessageHistory({
    runnable: prompt.pipe(chatModel(ctx, { temperature: 0.3, maxTokens: 80 })),
    // Your own session ids: each resolves to its thread, created on the first write.
    getMessageHistory: (id: string) =>
      new StudioChatMessageHistory({ client: ctx.backend.client, sessionId: id }),
    inputMessagesKey: "question",
    historyMessagesKey: "history",
  });
  ui.result("You", question);
  const reply = await chain.invoke({ question }, { configurable: { sessionId } });
  ui.result("AI", clip(reply.text, 200));
}

export const conversationStep: DemoStep = {
  title: "Conversation memory in a thread",
  intro:
    "StudioChatMessageHistory keeps a conversation in a service thread, found by your own session\n" +
    "id. RunnableWithMessageHistory loads the earlier turns before each call and appends the new\n" +
    "turn after it. Two visits below, each with its own history object, as two processes would.",
  async run(ctx) {
    const { client } = ctx.backend;
    const sessionId = `demo-user-${ctx.runId}`;
    const later = () => new StudioChatMessageHistory({ client, sessionId });
    try {
      ui.result("Visit 1", `session ${sessionId}: no earlier conversation, so a new thread starts`);
      await visit(ctx, sessionId, "Hi, I am Ada. This is visit number 1.");

      const earlier = await later().getMessages();
      ui.result("Visit 2", `earlier turns found for session ${sessionId}: ${earlier.length}`);
      for (const message of earlier) ui.block(`${speaker(message)}: ${clip(message.text)}`);
      if (earlier.length < 2) {
        throw new DemoCheckError(
          `the second visit found ${earlier.length} earlier messages instead of the first visit's turn`,
          "The service may list new threads with a delay; run the demo again.",
        );
      }
      await visit(ctx, sessionId, "This is visit number 2. Do you remember my name?");
      const stored = await later().getMessages();
      ui.result("Thread", `session ${sessionId} now holds ${stored.length} messages`);
    } finally {
      // Demo data should not pile up in a real account (or in the emulator's data file).
      await later()
        .deleteThread()
        .catch(() => ui.warn(`The thread of session ${sessionId} could not be deleted.`));
    }
    ui.explain("The demo's conversation thread was deleted again.");
  },
};
