/**
 * An agent with long-term memory in a StudioStore: `remember` writes a fact under the user's
 * namespace, `recall` searches it. Each conversation (`thread_id`) has its own short-term memory
 * (an in-process MemorySaver), so a fact can reach another conversation only through the store.
 *
 * Run as a process of its own for the two-process test:
 *
 *   tsx test/integration/store/memory-agent.ts <baseUrl> <proxyUrl> <apiKey> <thread> <user text>
 *
 * prints one JSON line: the texts of the conversation's messages after the turn.
 */
import { pathToFileURL } from "node:url";
import { MemorySaver } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { createAgent, tool } from "langchain";
import { z } from "zod/v4";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { StudioStore } from "../../../src/langgraph";

export const USER = "ada";

function storeOf(runtime: unknown): BaseStore {
  const store = (runtime as { store?: BaseStore }).store;
  if (!store) throw new Error("the agent was built without a store");
  return store;
}

const remember = tool(
  async ({ fact }, runtime) => {
    await storeOf(runtime).put(["memories", USER], crypto.randomUUID(), { fact });
    return `noted: ${fact}`;
  },
  {
    name: "remember",
    description: "Remember a fact about the user for later conversations.",
    schema: z.object({ fact: z.string() }),
  },
);

const recall = tool(
  async ({ topic }, runtime) => {
    const found = await storeOf(runtime).search(["memories", USER]);
    const facts = found.map((item) => String(item.value.fact));
    return facts.filter((fact) => fact.includes(topic)).join("; ") || "nothing remembered";
  },
  {
    name: "recall",
    description: "Recall what is remembered about the user on a topic.",
    schema: z.object({ topic: z.string() }),
  },
);

export interface Connection {
  baseUrl: string;
  proxyUrl: string;
  apiKey: string;
}

/** One user turn in conversation `thread`, with a client, model and store of this process's own. */
export async function memoryAgentTurn(
  connection: Connection,
  thread: string,
  text: string,
): Promise<string[]> {
  const client = new StudioClient(connection);
  const agent = createAgent({
    model: new ChatStudio({ model: "studio/echo-small", client }),
    tools: [remember, recall],
    store: new StudioStore({ client }),
    checkpointer: new MemorySaver(),
  });
  const result = await agent.invoke(
    { messages: [{ role: "user", content: text }] },
    { configurable: { thread_id: thread } },
  );
  return result.messages.map((message) => message.text);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [baseUrl, proxyUrl, apiKey, thread, text] = process.argv.slice(2);
  if (!baseUrl || !proxyUrl || !apiKey || !thread || text === undefined) {
    console.error("usage: memory-agent.ts <baseUrl> <proxyUrl> <apiKey> <thread> <user text>");
    process.exit(2);
  }
  console.log(JSON.stringify(await memoryAgentTurn({ baseUrl, proxyUrl, apiKey }, thread, text)));
}
