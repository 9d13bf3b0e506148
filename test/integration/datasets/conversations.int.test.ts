import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { StudioClient } from "../../../src/client";
import { loadDatasetConversations } from "../../../src/datasets";
import { StudioValidationError } from "../../../src/errors";
import { useEmulator } from "../../helpers/emulator";
import { view } from "../../helpers/thread-messages";

const emulator = useEmulator();

function options() {
  return { baseUrl: emulator.handle.baseUrl, apiKey: emulator.handle.apiKey };
}

beforeEach(async () => {
  await emulator.handle.reset();
});

/** Conversation number `i` of the dataset: a question, a tool call and its result, an answer. */
function conversationOf(i: number): BaseMessage[] {
  return [
    new HumanMessage(`question ${i}`),
    new AIMessage({
      content: "",
      tool_calls: [{ id: `call_${i}`, name: "search", args: { q: i }, type: "tool_call" }],
    }),
    new ToolMessage({ content: `result ${i}`, tool_call_id: `call_${i}`, artifact: { i } }),
    new AIMessage(`answer ${i}`),
  ];
}

async function seed(): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const history = new StudioChatMessageHistory({ ...options(), datasetId: "ds_eval" });
    await history.addMessages(conversationOf(i));
    ids.push(history.threadId!);
  }
  // Not in the dataset: must not show up.
  await new StudioChatMessageHistory(options()).addMessage(new HumanMessage("elsewhere"));
  return ids;
}

describe("loadDatasetConversations", () => {
  it("yields every thread of the dataset, following pages, with exact messages", async () => {
    const ids = await seed();
    emulator.handle.clearRequests();
    const seen: string[] = [];
    for await (const conversation of loadDatasetConversations({
      ...options(),
      datasetId: "ds_eval",
      pageSize: 2,
    })) {
      seen.push(conversation.threadId);
      expect(conversation.createdAt).toBeDefined();
      const i = ids.indexOf(conversation.threadId);
      expect(conversation.messages.map(view)).toEqual(conversationOf(i).map(view));
    }
    expect(seen).toEqual(ids);
    const calls = emulator.handle.requests.filter((r) =>
      r.path.endsWith("/ListThreadDatasetThreadsMessages"),
    );
    expect(calls).toHaveLength(3);
    expect(calls.every((r) => (r.body as { datasetId: string }).datasetId === "ds_eval")).toBe(
      true,
    );
  });

  it("passes order and auth, and reads messages written by others", async () => {
    const ids = await seed();
    const client = new StudioClient(options());
    const foreign = await client.createThread({
      datasetId: "ds_eval",
      messages: [{ role: "user", content: [{ type: "text", text: "typed in the dashboard" }] }],
    });
    emulator.handle.clearRequests();
    const conversations = [];
    for await (const conversation of loadDatasetConversations({
      client,
      datasetId: "ds_eval",
      order: "desc",
      auth: { organization: "org_1", cluster: "c1" },
    })) {
      conversations.push(conversation);
    }
    expect(conversations.map((c) => c.threadId)).toEqual([foreign.id, ...ids.reverse()]);
    expect(conversations[0]?.messages.map((m) => [m.getType(), m.content])).toEqual([
      ["human", "typed in the dashboard"],
    ]);
    const body = emulator.handle.requests[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({ order: "desc", auth: { organization: "org_1", cluster: "c1" } });
    await client.close();
  });

  it("needs a dataset id", async () => {
    const iterator = loadDatasetConversations({ ...options(), datasetId: "" });
    await expect(iterator.next()).rejects.toThrow(StudioValidationError);
  });
});
