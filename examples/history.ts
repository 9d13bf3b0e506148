/**
 * Chat memory kept as a thread of the service: ChatStudio wrapped in RunnableWithMessageHistory,
 * one thread per session. A second history object on the same thread id (as a new process would
 * have) sees the whole conversation.
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
  await backend.close();
}
