import {
  AIMessage,
  type BaseMessage,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { beforeEach, describe, expect, it } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { StudioClient } from "../../../src/client";
import { StudioNotFoundError, StudioValidationError } from "../../../src/errors";
import { useEmulator } from "../../helpers/emulator";
import { view } from "../../helpers/thread-messages";

const emulator = useEmulator();

function options() {
  return { baseUrl: emulator.handle.baseUrl, apiKey: emulator.handle.apiKey };
}

function requests(method: string, suffix: RegExp) {
  return emulator.handle.requests.filter((r) => r.method === method && suffix.test(r.path));
}

beforeEach(async () => {
  await emulator.handle.reset();
});

describe("StudioChatMessageHistory against the emulator", () => {
  it("makes no request before the first write, then creates the thread with those messages", async () => {
    const history = new StudioChatMessageHistory({ ...options(), title: "First" });
    expect(await history.getMessages()).toEqual([]);
    expect(emulator.handle.requests).toHaveLength(0);

    await history.addMessages([new SystemMessage("Be brief."), new HumanMessage("Hi!")]);
    expect(emulator.handle.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /studio/v1/threads",
    ]);
    const body = emulator.handle.requests[0]?.body as { messages: unknown[]; title: string };
    expect(body.messages).toHaveLength(2);
    expect(body.title).toBe("First");
    expect(history.threadId).toMatch(/^thread_/);
  });

  it("brings back every kind of message exactly", async () => {
    const messages: BaseMessage[] = [
      new SystemMessage({ content: "You are terse.", id: "s1" }),
      new HumanMessage({
        content: [
          { type: "text", text: "Qu'est-ce que c'est ? 😀" },
          { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } },
        ],
        name: "ana",
      }),
      new AIMessage({
        content: "",
        id: "run-1",
        tool_calls: [{ id: "call_1", name: "lookup", args: { q: "cat" }, type: "tool_call" }],
        usage_metadata: { input_tokens: 9, output_tokens: 3, total_tokens: 12 },
        response_metadata: { model_provider: "studio", finish_reason: "tool_calls" },
      }),
      new ToolMessage({
        content: "a cat",
        tool_call_id: "call_1",
        status: "success",
        artifact: { hits: 3 },
      }),
      new FunctionMessage({ content: "{}", name: "legacy" }),
      new ChatMessage({ content: "Looks right.", role: "reviewer" }),
      new AIMessage({ content: "It is a cat.", additional_kwargs: { big: "z".repeat(2000) } }),
    ];
    const writer = new StudioChatMessageHistory(options());
    await writer.addMessages(messages.slice(0, 3));
    for (const message of messages.slice(3)) await writer.addMessage(message);

    const reader = await StudioChatMessageHistory.fromThreadId(writer.threadId!, options());
    const back = await reader.getMessages();
    expect(back.map(view)).toEqual(messages.map(view));
  });

  it("adds n messages to an existing thread with exactly n calls and no reads", async () => {
    const history = new StudioChatMessageHistory(options());
    const threadId = await history.getThreadId();
    emulator.handle.clearRequests();
    await history.addMessages(Array.from({ length: 25 }, (_, i) => new HumanMessage(`m${i}`)));
    expect(emulator.handle.requests).toHaveLength(25);
    expect(requests("POST", new RegExp(`/v1/threads/${threadId}/messages$`))).toHaveLength(25);
  });

  it("loads a 1,000-message thread with exactly 10 list calls of 100, oldest first", async () => {
    const history = new StudioChatMessageHistory(options());
    await history.addMessages(Array.from({ length: 1000 }, (_, i) => new HumanMessage(`m${i}`)));
    emulator.handle.clearRequests();

    const messages = await history.getMessages();
    expect(messages).toHaveLength(1000);
    expect(messages[0]?.content).toBe("m0");
    expect(messages[999]?.content).toBe("m999");
    const lists = requests("GET", /\/messages$/);
    expect(emulator.handle.requests).toHaveLength(10);
    expect(lists.map((r) => [r.query.limit, r.query.order])).toEqual(
      Array.from({ length: 10 }, () => ["100", "asc"]),
    );
  });

  it("keeps concurrent calls of one instance in call order", async () => {
    const history = new StudioChatMessageHistory(options());
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => history.addMessage(new HumanMessage(`c${i}`))),
    );
    const texts = (await history.getMessages()).map((m) => m.content);
    expect(texts).toEqual(Array.from({ length: 40 }, (_, i) => `c${i}`));
  });

  it("rejects a batch holding an unstorable message without sending anything", async () => {
    const history = new StudioChatMessageHistory(options());
    const error = await history
      .addMessages([
        new HumanMessage("ok"),
        new AIMessage({ content: "big", response_metadata: { raw: "r".repeat(8000) } }),
      ])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioValidationError);
    expect((error as StudioValidationError).field).toBe("messages[1]");
    expect(emulator.handle.requests).toHaveLength(0);
  });

  it("clear() empties the thread and keeps its id; deleteThread() forgets it", async () => {
    const history = new StudioChatMessageHistory(options());
    await history.addMessages(Array.from({ length: 120 }, (_, i) => new HumanMessage(`x${i}`)));
    const threadId = history.threadId;
    await history.clear();
    expect(history.threadId).toBe(threadId);
    expect(await history.getMessages()).toEqual([]);
    await history.addMessage(new HumanMessage("after clear"));
    expect((await history.getMessages()).map((m) => m.content)).toEqual(["after clear"]);

    await history.deleteThread();
    expect(history.threadId).toBeUndefined();
    await expect(StudioChatMessageHistory.fromThreadId(threadId!, options())).rejects.toThrow(
      StudioNotFoundError,
    );
  });

  it("opening an unknown thread raises StudioNotFoundError naming it", async () => {
    await expect(
      StudioChatMessageHistory.fromThreadId("thread_does_not_exist", options()),
    ).rejects.toThrow(/thread_does_not_exist/);
  });

  it("lists every thread across pages, filtered by dataset when asked", async () => {
    for (let i = 0; i < 23; i++) {
      const history = new StudioChatMessageHistory({
        ...options(),
        title: `t${i}`,
        ...(i % 2 === 0 ? { datasetId: "ds_even" } : {}),
      });
      await history.getThreadId();
    }
    emulator.handle.clearRequests();
    const all: string[] = [];
    for await (const thread of StudioChatMessageHistory.listThreads({ limit: 10 }, options())) {
      all.push(thread.title ?? "");
    }
    expect(all).toEqual(Array.from({ length: 23 }, (_, i) => `t${i}`));
    expect(requests("GET", /\/v1\/threads$/).map((r) => r.query.order)).toEqual([
      "asc",
      "asc",
      "asc",
    ]);

    const even: string[] = [];
    for await (const thread of StudioChatMessageHistory.listThreads(
      { datasetId: "ds_even", order: "desc" },
      options(),
    )) {
      even.push(thread.title ?? "");
    }
    expect(even).toEqual(Array.from({ length: 12 }, (_, i) => `t${22 - 2 * i}`));
  });

  it("loads messages written by others as system, human and AI messages", async () => {
    const client = new StudioClient(options());
    const thread = await client.createThread({
      messages: [
        // Other tools of the service family write system messages.
        { role: "system" as "user", content: "Be kind." },
        { role: "user", content: "Hello from the dashboard" },
        {
          role: "assistant",
          content: [{ type: "text", text: "Hi" }],
          metadata: { source: "ui" },
        },
      ],
    });
    const history = await StudioChatMessageHistory.fromThreadId(thread.id, { client });
    const messages = await history.getMessages();
    expect(messages.map((m) => [m.getType(), m.content])).toEqual([
      ["system", "Be kind."],
      ["human", "Hello from the dashboard"],
      ["ai", "Hi"],
    ]);
    await client.close();
  });
});
