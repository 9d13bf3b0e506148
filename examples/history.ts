/**
 * Chat memory kept as a thread of the service: ChatStudio wrapped in RunnableWithMessageHistory,
 * one thread per session, keyed by your own session ids. A second history object with the same
 * session id (as a new process would have) sees the whole conversation.
 *
 *   npx tsx examples/history.ts
 *
 * Runs against its own emulator, or against the real service when STUDIO_API_KEY,
 * STUDIO_BASE_URL and STUDIO_PROXY_URL are set (model: STUDIO_MODEL).
 */
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import { ChatStudio, StudioChatMessageHistory } from "langchain-studio";
import { openBackend } from "./lib/backend";

const backend = await openBackend();
// One client shared by every history and the model: one connection pool for the whole app.
const { client } = backend;

try {
  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "You are a helpful assistant."],
    new MessagesPlaceholder("history"),
    ["human", "{question}"],
  ]);
  const model = new ChatStudio({ model: backend.model, client });

  // Your own session ids: the first write of a session creates its thread (tagged with the id),
  // and every later history with that id, in any process, finds the same thread.
  const chain = new RunnableWithMessageHistory({
    runnable: prompt.pipe(model),
    getMessageHistory: (sessionId: string) =>
      new StudioChatMessageHistory({ client, sessionId, title: "Support chat" }),
    inputMessagesKey: "question",
    historyMessagesKey: "history",
  });

  const config = { configurable: { sessionId: "ada-support" } };
  console.log((await chain.invoke({ question: "Hi, I am Ada." }, config)).text);
  console.log((await chain.invoke({ question: "What did I just say?" }, config)).text);

  // Elsewhere (another process, another day): the same session id reads the conversation back.
  const later = new StudioChatMessageHistory({ client, sessionId: "ada-support" });
  for (const message of await later.getMessages()) {
    console.log(`${message.getType().padEnd(5)} ${message.text}`);
  }

  // clear() deletes the messages; the thread and its id stay.
  await later.clear();
  console.log("after clear:", (await later.getMessages()).length, "messages in", later.threadId);

  for await (const thread of StudioChatMessageHistory.listThreads({ order: "desc" }, { client })) {
    console.log("thread:", thread.id, thread.title);
  }

  // deleteThread() removes the thread itself: a run against a real account leaves nothing behind.
  await later.deleteThread();
} finally {
  await backend.close();
}
