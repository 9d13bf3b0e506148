/**
 * A record written by a newer version (a known kind, a format one higher than this version reads)
 * is the upgrade error, never skipped: reading on from the older records would silently continue
 * from older state. One test per reader a user meets: the checkpointer, the store, the agent
 * server's thread list.
 */
import { HumanMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import type { ThreadMessage } from "../../../src/api-types";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { StudioClient } from "../../../src/client";
import { StudioStoredFormatError } from "../../../src/errors";
import { StudioCheckpointSaver, StudioStore } from "../../../src/langgraph";
import { RECORD_KIND_KEY } from "../../../src/langgraph/records";
import {
  CHAT_THREAD_VIEW_KIND,
  CHECKPOINT_KIND,
  currentFormat,
  FORMAT_KEY,
  HISTORY_MESSAGE_KIND,
  KIND_KEY,
  SESSION_LAYOUT_KIND,
  STORE_KIND,
} from "../../../src/records/kinds";
import { messageText } from "../../../src/records/parts";
import { LAYOUT_DATASET } from "../../../src/records/session-layout";
import { STORE_RECORD_KEY } from "../../../src/records/store";
import { createAgentServer } from "../../../src/server";
import { useInProcessEmulator } from "../../helpers/emulator";

const emulator = useInProcessEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function newClient(): StudioClient {
  const { baseUrl, proxyUrl, apiKey, fetch } = emulator.handle;
  return new StudioClient({ baseUrl, proxyUrl, apiKey, fetch });
}

const UPGRADE =
  "written by a newer version of langchain-studio: upgrade every process that shares this account";

/** The newest message of the service thread whose metadata has `key` = `value`. */
async function threadTagged(
  client: StudioClient,
  key: string,
  value: string,
): Promise<{ threadId: string; newest: ThreadMessage }> {
  for await (const thread of client.iterateThreads({})) {
    if (thread.metadata?.[key] !== value) continue;
    const page = await client.listMessages(thread.id, { order: "desc", limit: 1 });
    return { threadId: thread.id, newest: page.data[0]! };
  }
  throw new Error(`no thread with ${key} = ${value}`);
}

function echoGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("reply", (state) => ({
      messages: [{ role: "ai", content: `echo ${state.messages.length}` }],
    }))
    .addEdge("__start__", "reply");
}

describe("a record of a newer format", () => {
  it("the checkpointer: getTuple, list and the next run raise the upgrade error", async () => {
    const config = { configurable: { thread_id: "newer-format" } };
    const graph = echoGraph().compile({
      checkpointer: new StudioCheckpointSaver({ client: newClient() }),
    });
    await graph.invoke({ messages: [new HumanMessage("hi")] }, config);
    const client = newClient();
    const { threadId, newest } = await threadTagged(client, "lc_session", "newer-format");
    // The head of the thread: a later checkpoint, as a newer version would write it.
    const record = JSON.parse(messageText(newest.content)) as Record<string, unknown>;
    const format = currentFormat(CHECKPOINT_KIND) + 1;
    await client.createMessage(threadId, {
      role: "assistant",
      content: JSON.stringify({
        ...record,
        format,
        checkpointId: "ffffffff-ffff-6fff-ffff-ffffffffffff",
      }),
      metadata: { [RECORD_KIND_KEY]: "checkpoint" },
    });

    const saver = new StudioCheckpointSaver({ client: newClient() });
    const error = await saver.getTuple(config).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioStoredFormatError);
    expect((error as Error).message).toContain(`"checkpoint" record is in format ${format}`);
    expect((error as Error).message).toContain(UPGRADE);
    // Again on the same saver: it never goes on from what it read below the record.
    await expect(saver.getTuple(config)).rejects.toThrow(StudioStoredFormatError);
    await expect(async () => {
      for await (const _ of new StudioCheckpointSaver({ client: newClient() }).list(config)) {
        // Never reached past the newest record.
      }
    }).rejects.toThrow(StudioStoredFormatError);
    const next = echoGraph().compile({
      checkpointer: new StudioCheckpointSaver({ client: newClient() }),
    });
    await expect(next.invoke({ messages: [new HumanMessage("again")] }, config)).rejects.toThrow(
      StudioStoredFormatError,
    );
  });

  it("the store: get and search raise the upgrade error", async () => {
    await new StudioStore({ client: newClient() }).put(["users", "ada"], "lang", { v: "no" });
    const client = newClient();
    const { threadId } = await threadTagged(client, "lc_session", '["users","ada"]');
    const format = currentFormat(STORE_KIND) + 1;
    await client.createMessage(threadId, {
      role: "assistant",
      content: JSON.stringify({
        entries: [{ op: "del", key: "lang", s: Date.now() * 1000 + 1e9, w: "future" }],
      }),
      metadata: { [STORE_RECORD_KEY]: String(format) },
    });

    const store = new StudioStore({ client: newClient() });
    const error = await store.get(["users", "ada"], "lang").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioStoredFormatError);
    expect((error as Error).message).toContain(`"store-record" record is in format ${format}`);
    expect((error as Error).message).toContain(UPGRADE);
    await expect(store.get(["users", "ada"], "lang")).rejects.toThrow(StudioStoredFormatError);
    await expect(new StudioStore({ client: newClient() }).search(["users"])).rejects.toThrow(
      StudioStoredFormatError,
    );
  });

  it("the agent server: thread search and GET answer 500 and report the upgrade error", async () => {
    const errors: unknown[] = [];
    const client = newClient();
    const handler = createAgentServer({
      graphs: { echo: echoGraph().compile() },
      checkpointer: new StudioCheckpointSaver({ client, datasetId: "chat-server" }),
      client,
      onError: (error) => errors.push(error),
    });
    const call = (method: string, path: string, body?: unknown) =>
      handler(
        new Request(`http://agent.test${path}`, {
          method,
          headers: { "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
    const created = (await (await call("POST", "/threads", { metadata: {} })).json()) as {
      thread_id: string;
    };
    expect((await call("POST", "/threads/search", {})).status).toBe(200);
    const format = currentFormat(CHAT_THREAD_VIEW_KIND) + 1;
    await newClient().createMessage(created.thread_id, {
      role: "assistant",
      content: JSON.stringify({ thread_id: created.thread_id, updated_at: "9999" }),
      metadata: { [KIND_KEY]: CHAT_THREAD_VIEW_KIND.name, [FORMAT_KEY]: String(format) },
    });

    expect((await call("POST", "/threads/search", {})).status).toBe(500);
    expect((await call("GET", `/threads/${created.thread_id}`)).status).toBe(500);
    expect(errors).toHaveLength(2);
    for (const error of errors) {
      expect(error).toBeInstanceOf(StudioStoredFormatError);
      expect((error as Error).message).toContain(
        `"chat-thread-view" record is in format ${format}`,
      );
      expect((error as Error).message).toContain(UPGRADE);
    }
  });

  it("the history: getMessages raises the upgrade error for a newer message", async () => {
    const history = new StudioChatMessageHistory({ client: newClient(), sessionId: "newer" });
    await history.addMessages([new HumanMessage("hi")]);
    const format = currentFormat(HISTORY_MESSAGE_KIND) + 1;
    await newClient().createMessage(await history.getThreadId(), {
      role: "user",
      content: [{ type: "text", text: "from the future" }],
      metadata: { lc_type: "human", lc_id: "future-1", [FORMAT_KEY]: String(format) },
    });
    const fresh = new StudioChatMessageHistory({ client: newClient(), sessionId: "newer" });
    const error = await fresh.getMessages().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioStoredFormatError);
    expect((error as Error).message).toContain(`"history-message" record is in format ${format}`);
    await expect(fresh.getMessages()).rejects.toThrow(StudioStoredFormatError);
  });

  it("the session layout record: a look-up that needs it raises the upgrade error", async () => {
    const format = currentFormat(SESSION_LAYOUT_KIND) + 1;
    await newClient().createThread({
      datasetId: LAYOUT_DATASET,
      metadata: { [KIND_KEY]: SESSION_LAYOUT_KIND.name, [FORMAT_KEY]: String(format) },
    });
    const history = new StudioChatMessageHistory({ client: newClient(), sessionId: "unknown" });
    const error = await history.getMessages().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioStoredFormatError);
    expect((error as Error).message).toContain(`"session-layout" record is in format ${format}`);
  });
});
