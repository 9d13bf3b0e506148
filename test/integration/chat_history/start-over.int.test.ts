/**
 * Issue 20.2 against the emulator: the README's RunnableWithMessageHistory pattern (one client
 * shared by the model and every history) keeps working after another process deletes the
 * session's thread (a "start over" button, the dashboard). The next turn starts a new thread of
 * the session, and every later turn, from any process, continues there.
 */
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import { afterAll, describe, expect, it } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();
const clients: StudioClient[] = [];

function processClient(): StudioClient {
  const { apiKey, baseUrl, proxyUrl } = emulator.handle;
  const client = new StudioClient({ apiKey, baseUrl, proxyUrl });
  clients.push(client);
  return client;
}

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

/** What the model was sent on the last completion: [role, text] pairs. */
function lastPrompt(): [string, string][] {
  const chats = emulator.handle.requests.filter((r) => r.path.endsWith("/chat/completions"));
  const body = chats.at(-1)?.body as { messages: { role: string; content: string }[] };
  return body.messages.map((m) => [m.role, m.content]);
}

describe("a session started over by another process (issue 20.2)", () => {
  it("the next turn on the app's shared client starts a new thread of the session, and later turns continue it", async () => {
    const client = processClient();
    const prompt = ChatPromptTemplate.fromMessages([
      ["system", "Be brief."],
      new MessagesPlaceholder("history"),
      ["human", "{question}"],
    ]);
    const chain = new RunnableWithMessageHistory({
      runnable: prompt.pipe(new ChatStudio({ model: "studio/echo-small", client })),
      getMessageHistory: (sessionId: string) =>
        new StudioChatMessageHistory({ client, sessionId, maxMessages: 50 }),
      inputMessagesKey: "question",
      historyMessagesKey: "history",
    });
    const config = { configurable: { sessionId: "user-42" } };
    await chain.invoke({ question: "Hi, I am Ada." }, config);
    const before = await new StudioChatMessageHistory({
      client,
      sessionId: "user-42",
    }).getThreadId();

    // Another process (its own client) starts the session over.
    await new StudioChatMessageHistory({
      client: processClient(),
      sessionId: "user-42",
    }).deleteThread();

    await chain.invoke({ question: "Who am I?" }, config);
    expect(lastPrompt()).toEqual([
      ["system", "Be brief."],
      ["user", "Who am I?"],
    ]);
    await chain.invoke({ question: "Still there?" }, config);
    expect(lastPrompt().map(([, text]) => text)).toEqual([
      "Be brief.",
      "Who am I?",
      "[Be brief.] You said: Who am I?",
      "Still there?",
    ]);

    // One thread holds the session now, a new one, and any process finds it.
    const elsewhere = new StudioChatMessageHistory({
      client: processClient(),
      sessionId: "user-42",
    });
    expect((await elsewhere.getMessages()).map((m) => m.content)).toHaveLength(4);
    expect(await elsewhere.getThreadId()).not.toBe(before);
    const threads: string[] = [];
    for await (const thread of client.iterateThreads({ order: "asc", limit: 100 })) {
      if (thread.metadata?.lc_session === "user-42") threads.push(thread.id);
    }
    expect(threads).toEqual([elsewhere.threadId]);
  });
});
