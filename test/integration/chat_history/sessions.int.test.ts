/**
 * Issue 15, item 1: any session id. A history opened with the caller's own id finds the thread
 * tagged with it (from any client, as another process would), creates it on the first write, and
 * two creators racing for the same new session end up in one thread.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { StudioClient } from "../../../src/client";
import { StudioValidationError } from "../../../src/errors";
import { createSessionThread, findSessionThread } from "../../../src/threads/session-threads";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();
const clients: StudioClient[] = [];

/** A new client, as a new process would have. */
function client(fetch?: typeof globalThis.fetch): StudioClient {
  const c = new StudioClient({
    baseUrl: emulator.handle.baseUrl,
    apiKey: emulator.handle.apiKey,
    ...(fetch && { fetch }),
  });
  clients.push(c);
  return c;
}

/** A promise-returning gate that opens once `count` callers are waiting at it. */
function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return () => {
    arrived += 1;
    if (arrived >= count) open();
    return opened;
  };
}

function threadLists() {
  return emulator.handle.requests.filter(
    (r) => r.method === "GET" && r.path.endsWith("/v1/threads"),
  );
}

async function sessionThreads(sessionId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const thread of client().iterateThreads({ order: "asc", limit: 100 })) {
    if (thread.metadata?.lc_session === sessionId) ids.push(thread.id);
  }
  return ids;
}

beforeEach(async () => {
  await emulator.handle.reset();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

describe("StudioChatMessageHistory with a sessionId", () => {
  it("creates nothing before the first write, then a tagged thread that another client finds", async () => {
    const first = new StudioChatMessageHistory({ client: client(), sessionId: "user-42" });
    expect(await first.getMessages()).toEqual([]);
    expect(emulator.handle.requests.filter((r) => r.method === "POST")).toHaveLength(0);

    await first.addMessages([new HumanMessage("My name is Ada."), new AIMessage("Hello Ada.")]);
    const created = emulator.handle.requests.filter((r) => r.method === "POST");
    // The account's record that sessions are filed by dataset, then the session's thread.
    expect(created.map((r) => r.body)).toEqual([
      expect.objectContaining({ datasetId: "lc-sessions" }),
      expect.objectContaining({
        datasetId: expect.stringMatching(/^lc-history-[0-9a-f]{32}$/),
        metadata: expect.objectContaining({ lc_session: "user-42", lc_kind: "history" }),
      }),
    ]);

    const later = new StudioChatMessageHistory({ client: client(), sessionId: "user-42" });
    expect((await later.getMessages()).map((m) => m.content)).toEqual([
      "My name is Ada.",
      "Hello Ada.",
    ]);
    expect(later.threadId).toBe(first.threadId);
    await later.addMessage(new HumanMessage("What is my name?"));
    expect((await first.getMessages()).map((m) => m.content)).toHaveLength(3);
    expect(await sessionThreads("user-42")).toEqual([first.threadId]);

    // Another session id is another conversation.
    const other = new StudioChatMessageHistory({ client: client(), sessionId: "user-43" });
    expect(await other.getMessages()).toEqual([]);
  });

  it("refuses threadId with sessionId, and bad session ids, before sending anything", () => {
    const c = client();
    expect(
      () => new StudioChatMessageHistory({ client: c, sessionId: "s", threadId: "t" }),
    ).toThrow(StudioValidationError);
    for (const sessionId of ["", 42, "x".repeat(513)]) {
      const error = (() => {
        try {
          new StudioChatMessageHistory({ client: c, sessionId: sessionId as string });
        } catch (e) {
          return e;
        }
      })();
      expect(error).toMatchObject({ field: "sessionId" });
    }
    expect(
      () =>
        new StudioChatMessageHistory({ client: c, sessionId: "s", metadata: { lc_session: "x" } }),
    ).toThrow(/reserved/);
    expect(emulator.handle.requests).toHaveLength(0);
  });

  it("two processes writing the first turn of a new session at once end in one thread with every message", async () => {
    for (let round = 0; round < 5; round++) {
      const sessionId = `race-${round}`;
      // Each process's session create waits until both have looked the session up and found
      // nothing, so every round is a real race (on a loaded machine one process could otherwise
      // finish before the other looks).
      const bothLookedUp = barrier(2);
      let gated = 0;
      const racing: typeof globalThis.fetch = async (input, init) => {
        const body = typeof init?.body === "string" ? init.body : "";
        if (
          init?.method === "POST" &&
          String(input).endsWith("/v1/threads") &&
          body.includes("lc_session")
        ) {
          gated += 1;
          await bothLookedUp();
        }
        return globalThis.fetch(input, init);
      };
      const a = new StudioChatMessageHistory({
        client: client(racing),
        sessionId,
        confirmDelayMs: 0,
      });
      const b = new StudioChatMessageHistory({
        client: client(racing),
        sessionId,
        confirmDelayMs: 0,
      });
      await Promise.all([
        a.addMessages([new HumanMessage(`a1-${round}`), new AIMessage(`a2-${round}`)]),
        b.addMessages([new HumanMessage(`b1-${round}`), new AIMessage(`b2-${round}`)]),
      ]);
      expect(gated).toBe(2);
      expect(a.threadId).toBe(b.threadId);
      expect(await sessionThreads(sessionId)).toEqual([a.threadId]);
      const texts = (await a.getMessages()).map((m) => String(m.content));
      expect([...texts].sort()).toEqual(
        [`a1-${round}`, `a2-${round}`, `b1-${round}`, `b2-${round}`].sort(),
      );
      // Each creator's messages stay together and in order.
      expect(texts.indexOf(`a1-${round}`) + 1).toBe(texts.indexOf(`a2-${round}`));
      expect(texts.indexOf(`b1-${round}`) + 1).toBe(texts.indexOf(`b2-${round}`));
      const fresh = new StudioChatMessageHistory({ client: client(), sessionId });
      expect((await fresh.getMessages()).map((m) => String(m.content))).toEqual(texts);
    }
    // The race really happened: more threads were created than sessions remain.
    const creates = emulator.handle.requests.filter(
      (r) =>
        r.method === "POST" &&
        r.path.endsWith("/v1/threads") &&
        (r.body as { metadata?: Record<string, string> }).metadata?.lc_session !== undefined,
    );
    expect(creates.length).toBe(10);
  });

  it("maxMessages returns the newest N, read from the newest end in one call for N <= 100", async () => {
    const writer = new StudioChatMessageHistory({ client: client(), sessionId: "long" });
    await writer.addMessages(Array.from({ length: 250 }, (_, i) => new HumanMessage(`m${i}`)));
    const c = client();
    await findSessionThread(c, "long", "history");
    emulator.handle.clearRequests();

    const last5 = new StudioChatMessageHistory({ client: c, sessionId: "long", maxMessages: 5 });
    expect((await last5.getMessages()).map((m) => m.content)).toEqual([
      "m245",
      "m246",
      "m247",
      "m248",
      "m249",
    ]);
    const reads = emulator.handle.requests;
    expect(reads.map((r) => [r.method, r.query.order, r.query.limit])).toEqual([
      ["GET", "desc", "5"],
    ]);

    emulator.handle.clearRequests();
    const last150 = new StudioChatMessageHistory({
      client: c,
      sessionId: "long",
      maxMessages: 150,
    });
    const messages = await last150.getMessages();
    expect(messages).toHaveLength(150);
    expect([messages[0]?.content, messages[149]?.content]).toEqual(["m100", "m249"]);
    expect(emulator.handle.requests).toHaveLength(2);
    expect(() => new StudioChatMessageHistory({ client: c, maxMessages: 0 })).toThrow(
      /maxMessages/,
    );
  });

  it("finds a session by listing its own dataset, and a session it found costs nothing", async () => {
    const seed = client();
    for (let i = 0; i < 230; i++) {
      await new StudioChatMessageHistory({ client: seed, sessionId: `s${i}` }).getThreadId();
    }
    const c = client();
    emulator.handle.clearRequests();
    expect(await findSessionThread(c, "s7", "history")).toMatch(/^thread_/);
    expect(threadLists().map((r) => r.query.datasetId)).toEqual([
      expect.stringMatching(/^lc-history-/),
    ]);

    emulator.handle.clearRequests();
    // Another kind is another session. The service files sessions (s7's thread is filed), so an
    // empty dataset proves a session new...
    expect(await findSessionThread(c, "s7", "checkpoint")).toBeUndefined();
    expect(threadLists().map((r) => r.query.datasetId)).toEqual([
      expect.stringMatching(/^lc-checkpoint-/),
    ]);
    // ...and for a process that has seen no filed thread yet, the account's record does.
    emulator.handle.clearRequests();
    expect(await findSessionThread(client(), "nobody", "history")).toBeUndefined();
    expect(threadLists().map((r) => r.query.datasetId)).toEqual([
      expect.stringMatching(/^lc-history-/),
      "lc-sessions",
    ]);

    emulator.handle.clearRequests();
    const history = new StudioChatMessageHistory({ client: c, sessionId: "s7" });
    await history.addMessage(new HumanMessage("hi"));
    expect(emulator.handle.requests.map((r) => r.method)).toEqual(["POST"]);
  });

  it("with the caller's datasetId, keeps the session's thread in that dataset and lists it", async () => {
    const seed = client();
    for (let i = 0; i < 150; i++) {
      await seed.createThread({
        datasetId: "support",
        metadata: { lc_session: `s${i}`, lc_kind: "history" },
      });
    }
    const c = client();
    emulator.handle.clearRequests();
    const history = new StudioChatMessageHistory({
      client: c,
      sessionId: "new",
      datasetId: "support",
    });
    await history.addMessage(new HumanMessage("hello"));
    // The dataset is listed once (100 threads per call), then only what was created since.
    expect(threadLists().map((r) => [r.query.datasetId, r.query.after !== undefined])).toEqual([
      ["support", false],
      ["support", true],
      ["support", true],
    ]);
    const created = emulator.handle.requests.find((r) => r.method === "POST");
    expect(created?.body).toMatchObject({ datasetId: "support" });
    // The same session id without the dataset is another session.
    expect(await findSessionThread(client(), "new", "history")).toBeUndefined();
    expect(await findSessionThread(client(), "new", "history", { datasetId: "support" })).toBe(
      history.threadId,
    );
  });

  it("deleteThread forgets the session's thread; the next write starts a new one that others find", async () => {
    const c = client();
    const history = new StudioChatMessageHistory({ client: c, sessionId: "gone" });
    await history.addMessage(new HumanMessage("old"));
    const old = history.threadId;
    await history.deleteThread();
    expect(history.threadId).toBeUndefined();
    const again = new StudioChatMessageHistory({ client: c, sessionId: "gone" });
    expect(await again.getMessages()).toEqual([]);
    await again.addMessage(new HumanMessage("new"));
    expect(again.threadId).not.toBe(old);
    const elsewhere = new StudioChatMessageHistory({ client: client(), sessionId: "gone" });
    expect((await elsewhere.getMessages()).map((m) => m.content)).toEqual(["new"]);
  });

  it("createSessionThread (the checkpointer's entry) keeps kinds apart and appends to an existing thread", async () => {
    const c = client();
    const made = await createSessionThread(c, "graph-1", "checkpoint", {
      title: "LangGraph checkpoints",
      messages: [{ role: "user", content: "cp-1", metadata: { lc_id: "cp-1" } }],
    });
    expect(made.created).toBe(true);
    expect(await findSessionThread(client(), "graph-1", "history")).toBeUndefined();
    const again = await createSessionThread(client(), "graph-1", "checkpoint", {
      messages: [{ role: "user", content: "cp-2" }],
    });
    expect(again).toEqual({ threadId: made.threadId, created: false });
    const texts: string[] = [];
    for await (const m of c.iterateMessages(made.threadId, { order: "asc" })) {
      texts.push(String(m.content[0]?.text));
    }
    expect(texts).toEqual(["cp-1", "cp-2"]);
  });
});
