/**
 * Issue 13, items 2-5: each partial failure the adversarial run found, replayed exactly against the
 * emulator. The client's fetch turns the emulator's faults on for one chosen request at a time, so
 * each scenario is deterministic. In each, the write either resolves with every message stored
 * once, or raises StudioWriteNotConfirmedError saying exactly what is stored; retrying the same
 * message objects on the same history then completes it without a duplicate.
 */
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ThreadMessage } from "../../../src/api-types";
import { StudioChatMessageHistory, StudioWriteNotConfirmedError } from "../../../src/chat_history";
import { StudioClient } from "../../../src/client";
import type { FaultSpec } from "../../../src/emulator";
import { StudioRateLimitError, StudioServerError } from "../../../src/errors";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();
const clients: StudioClient[] = [];

interface Rule {
  method: string;
  path: RegExp;
  fault: FaultSpec;
  /** Which matching request gets the fault (1 = the first). */
  nth?: number;
}

/** A client whose requests matching a rule meet that rule's fault, each rule once. */
function scriptedClient(rules: Rule[], options: { timeout?: number } = {}): StudioClient {
  const seen = rules.map(() => 0);
  const fetchWithFaults = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const method = (init?.method ?? "GET").toUpperCase();
    const index = rules.findIndex((rule, i) => {
      if (rule.method !== method || !rule.path.test(url.pathname)) return false;
      seen[i]! += 1;
      return seen[i] === (rule.nth ?? 1);
    });
    if (index === -1) return fetch(input, init);
    emulator.handle.setFaults(rules[index]!.fault);
    try {
      return await fetch(input, init);
    } finally {
      emulator.handle.setFaults(undefined);
    }
  };
  const client = new StudioClient({
    baseUrl: emulator.handle.baseUrl,
    apiKey: emulator.handle.apiKey,
    maxRetries: 0,
    timeout: options.timeout ?? 5_000,
    fetch: fetchWithFaults as typeof fetch,
  });
  clients.push(client);
  return client;
}

async function storedTexts(threadId: string): Promise<string[]> {
  const plain = new StudioClient({
    baseUrl: emulator.handle.baseUrl,
    apiKey: emulator.handle.apiKey,
  });
  clients.push(plain);
  const texts: string[] = [];
  for await (const message of plain.iterateMessages(threadId, { order: "asc", limit: 100 })) {
    texts.push(textOf(message));
  }
  return texts;
}

function textOf(message: ThreadMessage): string {
  const text = message.content[0]?.text;
  return typeof text === "string" ? text : (text?.value ?? "");
}

async function threadCount(): Promise<number> {
  let n = 0;
  for await (const _ of StudioChatMessageHistory.listThreads(
    {},
    { baseUrl: emulator.handle.baseUrl, apiKey: emulator.handle.apiKey },
  )) {
    n += 1;
  }
  return n;
}

beforeEach(async () => {
  await emulator.handle.reset();
});

afterEach(async () => {
  emulator.handle.setFaults(undefined);
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

const THREADS = /\/v1\/threads$/;
const MESSAGES = /\/v1\/threads\/[^/]+\/messages$/;

describe("history writes: exactly once under partial failures (issue 13, items 2-5)", () => {
  it("item 2: the thread is created but the read confirming its batch fails: the error names the thread and the messages as unknown, and a retry stores nothing twice", async () => {
    const client = scriptedClient([
      { method: "POST", path: THREADS, fault: { resetAfter: 1 } },
      { method: "GET", path: MESSAGES, fault: { rate500Before: 1 } },
    ]);
    const history = new StudioChatMessageHistory({ client, confirmDelayMs: 0 });
    const batch = [new HumanMessage("a"), new HumanMessage("b"), new HumanMessage("c")];

    const error = await history.addMessages(batch).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioWriteNotConfirmedError);
    const e = error as StudioWriteNotConfirmedError;
    expect(e.threadId).toMatch(/^thread_/);
    expect(e.threadId).toBe(history.threadId);
    expect([e.stored, e.unknown, e.notStored]).toEqual([[], [0, 1, 2], []]);
    expect(e.cause).toBeInstanceOf(StudioServerError);
    expect(e.message).toContain(e.threadId!);

    await history.addMessages(batch);
    await history.addMessage(new HumanMessage("d"));
    expect(await storedTexts(history.threadId!)).toEqual(["a", "b", "c", "d"]);
    expect(await threadCount()).toBe(1);
  });

  it("item 3: a 429 in the middle of a batch says which messages are stored, and a retry writes only the rest", async () => {
    const client = scriptedClient([
      { method: "POST", path: MESSAGES, fault: { rate429: 1, retryAfterSeconds: 0 }, nth: 3 },
    ]);
    const history = new StudioChatMessageHistory({ client, confirmDelayMs: 0 });
    const threadId = await history.getThreadId();
    const batch = ["a", "b", "c", "d"].map((t) => new HumanMessage(t));

    const error = await history.addMessages(batch).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioWriteNotConfirmedError);
    const e = error as StudioWriteNotConfirmedError;
    expect(e.cause).toBeInstanceOf(StudioRateLimitError);
    expect([e.threadId, e.stored, e.notStored, e.unknown]).toEqual([threadId, [0, 1], [2, 3], []]);
    expect(e.message).toMatch(/messages 1-2 stored; messages 3-4 not stored/);
    expect(await storedTexts(threadId)).toEqual(["a", "b"]);

    await history.addMessages(batch);
    expect(await storedTexts(threadId)).toEqual(["a", "b", "c", "d"]);
  });

  it("item 4: the service commits after the client's timeout: the history waits long enough and does not send again", async () => {
    const client = scriptedClient([{ method: "POST", path: MESSAGES, fault: { latencyMs: 600 } }], {
      timeout: 200,
    });
    const history = new StudioChatMessageHistory({ client, confirmDelayMs: 0 });
    const threadId = await history.getThreadId();

    await history.addMessage(new HumanMessage("slow"));
    await history.addMessage(new HumanMessage("next"));
    expect(await storedTexts(threadId)).toEqual(["slow", "next"]);
    const posts = emulator.handle.requests.filter(
      (r) => r.method === "POST" && MESSAGES.test(r.path),
    );
    expect(posts).toHaveLength(2);
  });

  it("item 5: thread creation commits but cannot be confirmed: the error says all is unknown, and the next write finds that thread instead of creating a second", async () => {
    const client = scriptedClient([
      { method: "POST", path: THREADS, fault: { resetAfter: 1 } },
      // Every look-up of the first attempt's settle fails, so nothing can be confirmed.
      { method: "GET", path: THREADS, fault: { rate503Before: 1 }, nth: 1 },
    ]);
    const history = new StudioChatMessageHistory({ client, confirmDelayMs: 0 });
    const first = [new HumanMessage("a"), new HumanMessage("b")];

    const error = await history.addMessages(first).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioWriteNotConfirmedError);
    const e = error as StudioWriteNotConfirmedError;
    expect([e.threadId, e.stored, e.unknown, e.notStored]).toEqual([undefined, [], [0, 1], []]);
    expect(e.message).not.toMatch(/were not written/);
    expect(await threadCount()).toBe(1);

    // A new message: the pending thread is found first and the new message goes there.
    await history.addMessage(new HumanMessage("c"));
    expect(await threadCount()).toBe(1);
    // The earlier batch again: already there, so nothing is written twice.
    await history.addMessages(first);
    expect(await storedTexts(history.threadId!)).toEqual(["a", "b", "c"]);
  });

  it("getMessages() never returns the same client id twice, with or without maxMessages", async () => {
    const history = new StudioChatMessageHistory({
      baseUrl: emulator.handle.baseUrl,
      apiKey: emulator.handle.apiKey,
    });
    await history.addMessages([new HumanMessage("one"), new HumanMessage("two")]);
    const plain = new StudioClient({
      baseUrl: emulator.handle.baseUrl,
      apiKey: emulator.handle.apiKey,
    });
    clients.push(plain);
    // A write that landed twice (a late duplicate): same message, same client id.
    const [second] = (await plain.listMessages(history.threadId!, { order: "desc", limit: 1 }))
      .data;
    await plain.createMessage(history.threadId!, {
      role: "user",
      content: textOf(second!),
      metadata: second!.metadata as Record<string, string>,
    });
    expect(await storedTexts(history.threadId!)).toEqual(["one", "two", "two"]);
    expect((await history.getMessages()).map((m) => m.content)).toEqual(["one", "two"]);
    const newest = new StudioChatMessageHistory({
      client: plain,
      threadId: history.threadId!,
      maxMessages: 2,
    });
    expect((await newest.getMessages()).map((m) => m.content)).toEqual(["one", "two"]);
  });

  it("the same message objects added again on the same history are never stored twice", async () => {
    const history = new StudioChatMessageHistory({
      baseUrl: emulator.handle.baseUrl,
      apiKey: emulator.handle.apiKey,
    });
    const a = new HumanMessage("a");
    const b = new HumanMessage("b");
    await history.addMessages([a, b]);
    await history.addMessages([a, b, new HumanMessage("c")]);
    await history.addMessage(b);
    expect(await storedTexts(history.threadId!)).toEqual(["a", "b", "c"]);
    // After clear(), the same objects are a new conversation's messages.
    await history.clear();
    await history.addMessages([a]);
    expect(await storedTexts(history.threadId!)).toEqual(["a"]);
  });
});
