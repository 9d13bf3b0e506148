import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import { StudioChatMessageHistory } from "../../src/chat_history";
import { StudioNotFoundError } from "../../src/errors";
import { rememberedThread, rememberThread } from "../state";
import { chatModel, type DemoContext, type DemoStep } from "../step";
import { clip, ui } from "../ui";

function speaker(message: BaseMessage): string {
  return message.type === "human" ? "You" : message.type === "ai" ? "AI" : message.type;
}

/** The remembered thread if it still exists, else a history that starts a new one. */
async function openConversation(ctx: DemoContext): Promise<StudioChatMessageHistory> {
  const { client } = ctx.backend;
  const title = "langchain-studio demo conversation";
  const threadId = await rememberedThread(ctx.config.stateDir, ctx.backend.kind);
  if (threadId) {
    try {
      return await StudioChatMessageHistory.fromThreadId(threadId, { client, title });
    } catch (error) {
      if (!(error instanceof StudioNotFoundError)) throw error;
      ui.warn(`The remembered thread ${threadId} no longer exists; starting a new conversation.`);
    }
  }
  return new StudioChatMessageHistory({ client, title });
}

export const conversationStep: DemoStep = {
  title: "Conversation memory in a thread",
  intro:
    "StudioChatMessageHistory keeps a conversation in a service thread. RunnableWithMessageHistory\n" +
    "loads the earlier turns before each call and appends the new turn after it. The thread id is\n" +
    "remembered on disk, so the next `npm run demo` continues this conversation.",
  async run(ctx) {
    const history = await openConversation(ctx);
    const earlier = await history.getMessages();
    if (earlier.length === 0) {
      ui.result("Earlier turns", "none: no earlier conversation, so this run starts a new thread");
    } else {
      ui.result("Earlier turns", `${earlier.length} messages in thread ${history.threadId}`);
      for (const message of earlier) ui.block(`${speaker(message)}: ${clip(message.text)}`);
    }

    const prompt = ChatPromptTemplate.fromMessages([
      ["system", "You are a friendly assistant with a good memory."],
      new MessagesPlaceholder("history"),
      ["human", "{question}"],
    ]);
    const chain = new RunnableWithMessageHistory({
      runnable: prompt.pipe(chatModel(ctx, { temperature: 0.3, maxTokens: 80 })),
      // One conversation per session id; here the demo's single remembered thread.
      getMessageHistory: async () => history,
      inputMessagesKey: "question",
      historyMessagesKey: "history",
    });

    const visit = earlier.filter((m) => m.type === "human").length + 1;
    const question = `This is visit number ${visit}. Do you remember my earlier visits?`;
    ui.result("You", question);
    const reply = await chain.invoke(
      { question },
      { configurable: { sessionId: history.threadId ?? "new-conversation" } },
    );
    ui.result("AI", clip(reply.text, 200));

    const threadId = await history.getThreadId();
    await rememberThread(ctx.config.stateDir, ctx.backend.kind, threadId);
    const stored = await history.getMessages();
    ui.result("Thread", `${threadId} now holds ${stored.length} messages`);
    ui.explain("Run `npm run demo` again: the next run starts by showing these turns.");
  },
};
