/**
 * Issue 20, history items, made exact with the in-memory client: a session's thread deleted by
 * another process, a lost creation race whose check failed, a write to a deleted thread, session
 * ids that are not Unicode, and two processes writing a turn each at the same moment.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { CreateMessageRequest, CreateThreadRequest, Thread } from "../../../src/api-types";
import { StudioChatMessageHistory, StudioWriteNotConfirmedError } from "../../../src/chat_history";
import type { StudioClient } from "../../../src/client";
import { StudioAPIError, StudioValidationError } from "../../../src/errors";
import { FakeThreads } from "../threads/fake-client";

function history(client: StudioClient, fields: Record<string, unknown> = {}) {
  return new StudioChatMessageHistory({ client, confirmDelayMs: 0, ...fields });
}

function texts(messages: { content: unknown }[]): string[] {
  return messages.map((m) => String(m.content));
}

function sessionThreads(fake: FakeThreads): Thread[] {
  return fake.threads.filter((t) => t.metadata?.lc_session !== undefined);
}

describe("issue 20.2: a session's thread deleted by another process", () => {
  it("every history on the shared client, old and new, looks the session up again; a write succeeds the first time", async () => {
    const fake = new FakeThreads();
    const client = fake.asClient();
    const old = history(client, { sessionId: "user-42" });
    await old.addMessages([new HumanMessage("Hi, I am Ada."), new AIMessage("Hello Ada.")]);
    const oldReader = history(client, { sessionId: "user-42" });
    expect(texts(await oldReader.getMessages())).toEqual(["Hi, I am Ada.", "Hello Ada."]);
    const first = old.threadId!;

    // "Start over" in another process: the thread is deleted behind this process's back.
    await fake.deleteThread(first);

    // A new history (RunnableWithMessageHistory builds one per turn) reads the session as new...
    const turn = history(client, { sessionId: "user-42" });
    expect(await turn.getMessages()).toEqual([]);
    // ...and its write succeeds at once, in a new thread of the session.
    await turn.addMessages([new HumanMessage("Hi again."), new AIMessage("Hello again.")]);
    expect(turn.threadId).not.toBe(first);
    expect(sessionThreads(fake).map((t) => t.id)).toEqual([turn.threadId]);

    // The old histories follow the session to its new thread, reading and writing.
    expect(texts(await oldReader.getMessages())).toEqual(["Hi again.", "Hello again."]);
    await old.addMessage(new HumanMessage("Still there?"));
    expect(old.threadId).toBe(turn.threadId);
    expect(fake.texts(turn.threadId!)).toEqual(["Hi again.", "Hello again.", "Still there?"]);
  });

  it("a history whose write meets the deleted thread writes the whole batch to the session's thread", async () => {
    const fake = new FakeThreads();
    const client = fake.asClient();
    const h = history(client, { sessionId: "s" });
    await h.addMessage(new HumanMessage("one"));
    await fake.deleteThread(h.threadId!);
    await h.addMessages([new HumanMessage("two"), new AIMessage("three")]);
    expect(texts(await h.getMessages())).toEqual(["two", "three"]);
    // Another process started it over too: clear() and deleteThread() act on the current thread.
    const current = h.threadId!;
    await fake.deleteThread(current);
    await history(fake.anotherClient(), { sessionId: "s" }).addMessage(new HumanMessage("new"));
    await h.deleteThread();
    expect(sessionThreads(fake)).toEqual([]);
  });
});

describe("issue 20.3: a lost creation race whose check failed", () => {
  it("is never adopted: later writes go to the session's thread, and the messages follow", async () => {
    const fake = new FakeThreads();
    const create = fake.createThread.bind(fake);
    fake.createThread = async (body: CreateThreadRequest) => {
      if (body.metadata?.lc_session === "s" && body.metadata.lc_thread_key !== "theirs") {
        // Another process's create lands first...
        await create({
          ...(body.datasetId === undefined ? {} : { datasetId: body.datasetId }),
          metadata: { lc_session: "s", lc_kind: "history", lc_thread_key: "theirs" },
          messages: [{ role: "user", content: "theirs" }],
        });
        const mine = await create(body);
        // ...and then the listings that would show it fail.
        const down = StudioAPIError.fromResponse({
          status: 503,
          method: "GET",
          path: "/v1/threads",
          serverMessage: "unavailable",
        });
        fake.listFailures = [down, down, down];
        return mine;
      }
      return create(body);
    };
    const h = history(fake.asClient(), { sessionId: "s" });
    const q1 = new HumanMessage("q1");
    const error = await h.addMessages([q1]).catch((e: unknown) => e);
    const [theirs, mine] = sessionThreads(fake);
    expect(error).toBeInstanceOf(StudioWriteNotConfirmedError);
    expect(error).toMatchObject({ threadId: mine?.id, stored: [], unknown: [0] });
    expect(h.threadId).not.toBe(mine?.id);

    await h.addMessage(new HumanMessage("q2"));
    expect(h.threadId).toBe(theirs?.id);
    // Retrying the failed call with the same object stores nothing twice.
    await h.addMessages([q1]);
    expect(fake.texts(theirs!.id)).toEqual(["theirs", "q1", "q2"]);
    expect(sessionThreads(fake).map((t) => t.id)).toEqual([theirs?.id]);
  });
});

describe("issue 20.8: writes to a deleted thread, and turns written at the same moment", () => {
  it("a history on a deleted thread says the thread is gone, not to call again", async () => {
    const fake = new FakeThreads();
    const h = history(fake.asClient());
    await h.addMessage(new HumanMessage("a"));
    await fake.deleteThread(h.threadId!);
    const error = (await h
      .addMessages([new HumanMessage("b"), new AIMessage("c")])
      .catch((e: unknown) => e)) as StudioWriteNotConfirmedError;
    expect(error).toBeInstanceOf(StudioWriteNotConfirmedError);
    expect(error).toMatchObject({ stored: [], notStored: [0, 1], unknown: [] });
    expect(error.message).toContain(`Thread ${h.threadId} no longer exists`);
    expect(error.message).toContain("cannot succeed");
    expect(error.message).not.toMatch(/Call addMessages again/);
  });

  it("two processes writing a turn each at once: the thread interleaves them, getMessages keeps each turn together", async () => {
    const fake = new FakeThreads();
    const a = history(fake.asClient(), { sessionId: "s" });
    await a.addMessage(new HumanMessage("hello"));
    const b = history(fake.anotherClient(), { sessionId: "s" });
    expect(await b.getMessages()).toHaveLength(1);

    // B's whole turn lands between the two messages of A's turn.
    const store = fake.createMessage.bind(fake);
    let interleaved = false;
    fake.createMessage = async (threadId: string, body: CreateMessageRequest) => {
      const stored = await store(threadId, body);
      if (!interleaved && JSON.stringify(body.content).includes('"Q1"')) {
        interleaved = true;
        await b.addMessages([new HumanMessage("Q2"), new AIMessage("A2")]);
      }
      return stored;
    };
    const writer = history(fake.anotherClient(), { sessionId: "s" });
    await writer.addMessages([new HumanMessage("Q1"), new AIMessage("A1")]);
    const threadId = writer.threadId!;
    expect(fake.texts(threadId)).toEqual(["hello", "Q1", "Q2", "A2", "A1"]);
    expect(texts(await a.getMessages())).toEqual(["hello", "Q1", "A1", "Q2", "A2"]);
    expect(
      texts(await history(fake.anotherClient(), { threadId, maxMessages: 4 }).getMessages()),
    ).toEqual(["Q1", "A1", "Q2", "A2"]);
  });
});

describe("issue 20.4: session ids", () => {
  it("refuses a session id holding a lone surrogate before sending anything", () => {
    const fake = new FakeThreads();
    for (const sessionId of ["user-\ud83d", "\udc00x"]) {
      const error = (() => {
        try {
          history(fake.asClient(), { sessionId });
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(StudioValidationError);
      expect(error).toMatchObject({ field: "sessionId" });
    }
    expect(fake.calls).toEqual([]);
  });
});
