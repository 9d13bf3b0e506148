import { inspect } from "node:util";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { StudioConfigError, StudioNotFoundError, StudioValidationError } from "../../../src/errors";
import { THREAD_KEY } from "../../../src/threads/metadata";
import { FakeThreads } from "../threads/fake-client";

function history(fake: FakeThreads, fields: Record<string, unknown> = {}) {
  return new StudioChatMessageHistory({ client: fake.asClient(), confirmDelayMs: 0, ...fields });
}

describe("StudioChatMessageHistory (against an in-memory client)", () => {
  it("reads nothing and creates nothing before the first write", async () => {
    const fake = new FakeThreads();
    const h = history(fake);
    expect(await h.getMessages()).toEqual([]);
    expect(h.threadId).toBeUndefined();
    expect(fake.calls).toEqual([]);
  });

  it("creates the thread with the first messages in one call, with title and metadata", async () => {
    const fake = new FakeThreads();
    const h = history(fake, { title: "Support", metadata: { user: "u1" }, datasetId: "ds1" });
    await h.addMessages([new HumanMessage("hi"), new AIMessage("hello")]);
    expect(fake.calls).toEqual(["createThread"]);
    expect(h.threadId).toBe(fake.threads[0]?.id);
    expect(fake.threads[0]).toMatchObject({
      title: "Support",
      datasetId: "ds1",
      metadata: { user: "u1", [THREAD_KEY]: expect.any(String) },
    });
    expect(fake.texts(h.threadId!)).toEqual(["hi", "hello"]);
  });

  it("creates an empty thread on demand and reuses it", async () => {
    const fake = new FakeThreads();
    const h = history(fake);
    const id = await h.getThreadId();
    expect(await h.getThreadId()).toBe(id);
    await h.addMessage(new HumanMessage("x"));
    expect(fake.calls).toEqual(["createThread", "createMessage"]);
  });

  it("applies concurrent calls in call order", async () => {
    const fake = new FakeThreads();
    const h = history(fake);
    const writes = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0
        ? h.addMessages([new HumanMessage(`${i}a`), new HumanMessage(`${i}b`)])
        : h.addMessage(new HumanMessage(`${i}`)),
    );
    const read = h.getMessages();
    await Promise.all(writes);
    const expected = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0 ? [`${i}a`, `${i}b`] : [`${i}`],
    ).flat();
    expect((await read).map((m) => m.content)).toEqual(expected);
    expect(fake.calls.filter((c) => c === "createThread")).toHaveLength(1);
  });

  it("keeps going after a failed write", async () => {
    const fake = new FakeThreads();
    const h = history(fake);
    await h.addMessage(new HumanMessage("one"));
    fake.messageSteps = [{ before: new StudioValidationError("content", "server said no") }];
    const failed = h.addMessage(new HumanMessage("two"));
    const next = h.addMessage(new HumanMessage("three"));
    await expect(failed).rejects.toThrow(/server said no/);
    await next;
    expect((await h.getMessages()).map((m) => m.content)).toEqual(["one", "three"]);
  });

  it("validates the whole batch before writing anything", async () => {
    const fake = new FakeThreads();
    const h = history(fake);
    const tooBig = new ToolMessage({ content: "x", tool_call_id: "c", artifact: "y".repeat(9000) });
    await expect(h.addMessages([new HumanMessage("fine"), tooBig])).rejects.toMatchObject({
      field: "messages[1]",
    });
    expect(fake.calls).toEqual([]);
  });

  it("clear() deletes the messages and keeps the thread and its id", async () => {
    const fake = new FakeThreads();
    const h = history(fake);
    await h.addMessages(Array.from({ length: 7 }, (_, i) => new HumanMessage(`m${i}`)));
    const id = h.threadId;
    await h.clear();
    expect(h.threadId).toBe(id);
    expect(await h.getMessages()).toEqual([]);
    await h.addMessage(new HumanMessage("again"));
    expect(fake.texts(id!)).toEqual(["again"]);
    expect(fake.threads).toHaveLength(1);
  });

  it("deleteThread() removes the thread and the next write starts a new one", async () => {
    const fake = new FakeThreads();
    const h = history(fake);
    await h.addMessage(new HumanMessage("a"));
    const first = h.threadId;
    await h.deleteThread();
    expect(h.threadId).toBeUndefined();
    await h.addMessage(new HumanMessage("b"));
    expect(h.threadId).not.toBe(first);
    expect(fake.threads.map((t) => t.id)).toEqual([h.threadId]);
  });

  it("fromThreadId checks the thread exists and names an unknown id", async () => {
    const fake = new FakeThreads();
    const h = history(fake);
    await h.addMessage(new HumanMessage("a"));
    const opened = await StudioChatMessageHistory.fromThreadId(h.threadId!, {
      client: fake.asClient(),
    });
    expect((await opened.getMessages()).map((m) => m.content)).toEqual(["a"]);
    const error = await StudioChatMessageHistory.fromThreadId("thread_missing", {
      client: fake.asClient(),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioNotFoundError);
    expect((error as Error).message).toContain('"thread_missing"');
  });

  it("checks its options", () => {
    const fake = new FakeThreads();
    expect(() => history(fake, { apiKey: "k" })).toThrow(StudioConfigError);
    expect(() => history(fake, { metadata: { [THREAD_KEY]: "x" } })).toThrow(/reserved/);
    expect(() =>
      history(fake, {
        metadata: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, "v"])),
      }),
    ).toThrow(/at most 15/);
    expect(() => history(fake, { maxWriteAttempts: 0 })).toThrow(/maxWriteAttempts/);
    expect(() => history(fake, { threadId: "" })).toThrow(/threadId/);
  });

  it("refuses wrong option types and a non-array batch with StudioValidationError naming the field, sending nothing (issue 13.12)", async () => {
    const fake = new FakeThreads();
    const field = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        expect(error).toBeInstanceOf(StudioValidationError);
        return (error as StudioValidationError).field;
      }
      return "nothing thrown";
    };
    expect(field(() => history(fake, { title: 42 }))).toBe("title");
    expect(field(() => history(fake, { datasetId: 7 }))).toBe("datasetId");
    expect(field(() => history(fake, { datasetId: "" }))).toBe("datasetId");
    for (const confirmDelayMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, "5", 60_001]) {
      expect(field(() => history(fake, { confirmDelayMs }))).toBe("confirmDelayMs");
    }
    expect(field(() => history(fake, { maxMessages: 1.5 }))).toBe("maxMessages");
    expect(field(() => history(fake, { sessionId: "s", threadId: "t" }))).toBe("sessionId");
    const h = history(fake, { threadId: "thread_1" });
    for (const bad of ["x", null, { 0: new HumanMessage("a") }]) {
      const error = await h.addMessages(bad as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StudioValidationError);
      expect((error as StudioValidationError).field).toBe("messages");
    }
    expect(fake.calls).toEqual([]);
  });

  it("never serializes the API key", () => {
    const secret = "sk-history-secret-123456";
    const h = new StudioChatMessageHistory({
      apiKey: secret,
      baseUrl: "http://127.0.0.1:9/studio",
      threadId: "thread_1",
    });
    expect(JSON.stringify(h)).not.toContain(secret);
    expect(inspect(h, { depth: 10 })).not.toContain(secret);
    expect(h.lc_namespace).toEqual(["langchain", "stores", "message", "studio"]);
  });
});
