/**
 * Chat memory kept as a thread of the service: ChatStudio wrapped in RunnableWithMessageHistory,
 * one thread per session. A second history object on the same thread id (as a new process would
 * have) sees the whole conversation.
 *
 *   npx tsx examples/history.ts
 */
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import { StudioChatMessageHistory } from "../src/chat_history";
import { ChatStudio } from "../src/chat_models";
import { StudioClient } from "../src/client";
import { startEmulator } from "../src/emulator";

const emulator = await startEmulator();
// One client shared by every history and the model: one connection pool for the whole app.
const client = new StudioClient({
  apiKey: emulator.apiKey,
  baseUrl: emulator.baseUrl,
  proxyUrl: emulator.proxyUrl,
});

try {
  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "You are a helpful assistant."],
    new MessagesPlaceholder("history"),
    ["human", "{question}"],
  ]);
  const model = new ChatStudio({ model: "studio/echo-small", client });

  // The session id is the thread id. A new conversation starts from a thread made on demand.
  const threadId = await new StudioChatMessageHistory({
    client,
    title: "Support chat",
    metadata: { user: "ada" },
  }).getThreadId();

  const chain = new RunnableWithMessageHistory({
    runnable: prompt.pipe(model),
    getMessageHistory: (sessionId: string) =>
      new StudioChatMessageHistory({ client, threadId: sessionId }),
    inputMessagesKey: "question",
    historyMessagesKey: "history",
  });

  const config = { configurable: { sessionId: threadId } };
  console.log((await chain.invoke({ question: "Hi, I am Ada." }, config)).text);
  console.log((await chain.invoke({ question: "What did I just say?" }, config)).text);

  // Elsewhere (another process, another day): open the thread by id and read it back.
  const later = await StudioChatMessageHistory.fromThreadId(threadId, { client });
  for (const message of await later.getMessages()) {
    console.log(`${message.getType().padEnd(5)} ${message.text}`);
  }

  // clear() deletes the messages; the thread and its id stay.
  await later.clear();
  console.log("after clear:", (await later.getMessages()).length, "messages in", later.threadId);

  for await (const thread of StudioChatMessageHistory.listThreads({ order: "desc" }, { client })) {
    console.log("thread:", thread.id, thread.title);
  }
} finally {
  await client.close();
  await emulator.close();
}
