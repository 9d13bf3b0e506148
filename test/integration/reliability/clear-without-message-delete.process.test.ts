/**
 * Issue #23: deployments without a message delete (`DELETE .../messages/{id}` answers 405, 501, or
 * 404 while the message is still there). `clear()` then deletes the thread instead and warns once
 * per service address; the next write starts a new thread. For a session, a fresh history reads
 * it empty afterwards, in this process and in another one, and finds the new thread once written.
 * The emulator has the delete; a `fetch` in front of it plays the deployment that lacks it.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { StudioClient } from "../../../src/client";
import { StudioError, StudioNotFoundError } from "../../../src/errors";
import { useEmulator } from "../../helpers/emulator";
import { nodeEntry } from "../../helpers/node-entry";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const READ_SESSION = fileURLToPath(new URL("./fixtures/read-session.ts", import.meta.url));

// Warnings are said once per service address: each scenario that looks at one has an address.
const sessions = useEmulator();
const threads = useEmulator();
const neither = useEmulator();
const deleting = useEmulator();

const MESSAGE_DELETE = /\/v1\/threads\/[^/]+\/messages\/[^/?]+$/;
const THREAD_DELETE = /\/v1\/threads\/[^/?]+$/;

/** A fetch for a deployment whose deletes of the matching paths answer `status`. */
function withoutDelete(status: number, paths: RegExp[] = [MESSAGE_DELETE]) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = String(input instanceof Request ? input.url : input);
    if (init?.method === "DELETE" && paths.some((path) => path.test(new URL(url).pathname))) {
      const body = { code: status === 501 ? "unimplemented" : "not_found", message: "no route" };
      return new Response(JSON.stringify(body), {
        status,
        headers: { "content-type": "application/json" },
      });
    }
    return fetch(input, init);
  };
}

function texts(messages: { text: string }[]): string[] {
  return messages.map((message) => message.text);
}

let warn: MockInstance<typeof console.warn>;
beforeEach(() => {
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => {
  warn.mockRestore();
});

describe("a session on a service without message delete", () => {
  it("starts over in a new thread that every process finds, with one warning", async () => {
    const { baseUrl, apiKey } = sessions.handle;
    const sessionId = "chat-405";
    const history = new StudioChatMessageHistory({
      baseUrl,
      apiKey,
      sessionId,
      fetch: withoutDelete(405),
    });
    await history.addMessages([new HumanMessage("hello"), new AIMessage("hi there")]);
    const oldThread = history.threadId!;
    // Another history of the process with its own client, which has found the old thread.
    const other = new StudioChatMessageHistory({
      client: new StudioClient({ baseUrl, apiKey }),
      sessionId,
    });
    expect(texts(await other.getMessages())).toEqual(["hello", "hi there"]);

    await history.clear();
    expect(history.threadId).toBeUndefined();
    expect(texts(await history.getMessages())).toEqual([]);
    expect(texts(await other.getMessages())).toEqual([]);
    const plain = new StudioClient({ baseUrl, apiKey });
    await expect(plain.getThread(oldThread)).rejects.toBeInstanceOf(StudioNotFoundError);
    const fresh = await run(
      process.execPath,
      await nodeEntry(READ_SESSION, [baseUrl, apiKey, sessionId]),
      {
        cwd: ROOT,
        timeout: 30_000,
      },
    );
    expect(JSON.parse(fresh.stdout)).toEqual([]);

    expect(warn).toHaveBeenCalledTimes(1);
    const text = String(warn.mock.calls[0]?.[0]);
    expect(text).toContain(`deleted thread ${oldThread} instead of its messages`);
    expect(text).toMatch(/DELETE \S+\/messages\/\S+ answered 405/);

    await history.addMessage(new HumanMessage("again"));
    expect(history.threadId).not.toBe(oldThread);
    expect(texts(await other.getMessages())).toEqual(["again"]);
    const later = await run(
      process.execPath,
      await nodeEntry(READ_SESSION, [baseUrl, apiKey, sessionId]),
      {
        cwd: ROOT,
        timeout: 30_000,
      },
    );
    expect(JSON.parse(later.stdout)).toEqual(["again"]);

    // The deployment was named once: another clear says nothing more.
    await history.clear();
    expect(texts(await other.getMessages())).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(1);
  }, 90_000);
});

describe("a history on its own thread", () => {
  it.each([501, 404])("falls back when the message delete answers %i", async (status) => {
    const { baseUrl, apiKey } = threads.handle;
    const history = new StudioChatMessageHistory({
      baseUrl,
      apiKey,
      fetch: withoutDelete(status),
    });
    await history.addMessages([new HumanMessage("one"), new AIMessage("two")]);
    const oldThread = history.threadId!;
    await history.clear();
    expect(history.threadId).toBeUndefined();
    expect(texts(await history.getMessages())).toEqual([]);
    await expect(new StudioClient({ baseUrl, apiKey }).getThread(oldThread)).rejects.toBeInstanceOf(
      StudioNotFoundError,
    );
    await history.addMessage(new HumanMessage("three"));
    expect(history.threadId).not.toBe(oldThread);
    expect(texts(await history.getMessages())).toEqual(["three"]);
  });
});

describe("a service that deletes neither messages nor threads", () => {
  const both = [MESSAGE_DELETE, THREAD_DELETE];

  it("a plain history starts a new thread and warns that the old one still holds the messages", async () => {
    const { baseUrl, apiKey } = neither.handle;
    const history = new StudioChatMessageHistory({
      baseUrl,
      apiKey,
      fetch: withoutDelete(405, both),
    });
    await history.addMessage(new HumanMessage("kept"));
    const oldThread = history.threadId!;
    await history.clear();
    expect(history.threadId).toBeUndefined();
    expect(texts(await history.getMessages())).toEqual([]);
    expect(String(warn.mock.calls[0]?.[0])).toContain(`thread ${oldThread}`);
    expect(String(warn.mock.calls[0]?.[0])).toContain("still holds them");
    const { data } = await new StudioClient({ baseUrl, apiKey }).listMessages(oldThread);
    expect(data).toHaveLength(1);
  });

  it("a session's clear() raises: a new thread would not be the one its look-up finds", async () => {
    const { baseUrl, apiKey } = neither.handle;
    const history = new StudioChatMessageHistory({
      baseUrl,
      apiKey,
      sessionId: "stuck",
      fetch: withoutDelete(501, both),
    });
    await history.addMessage(new HumanMessage("kept"));
    const error = await history.clear().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioError);
    expect((error as Error).message).toContain('clear() cannot empty session "stuck"');
    expect(texts(await history.getMessages())).toEqual(["kept"]);
  });
});

describe("a service that deletes messages", () => {
  it("a 404 for a message someone else deleted is not taken for a missing delete", async () => {
    const { baseUrl, apiKey } = deleting.handle;
    const plain = new StudioClient({ baseUrl, apiKey });
    let raced = false;
    // Another process deletes the first message just before this history's delete arrives.
    const racing = async (input: string | URL | Request, init?: RequestInit) => {
      if (!raced && init?.method === "DELETE") {
        raced = true;
        await fetch(input, init);
      }
      return fetch(input, init);
    };
    const history = new StudioChatMessageHistory({ baseUrl, apiKey, fetch: racing });
    await history.addMessages([new HumanMessage("a"), new AIMessage("b"), new HumanMessage("c")]);
    const threadId = history.threadId!;
    await history.clear();
    expect(raced).toBe(true);
    expect(history.threadId).toBe(threadId);
    expect((await plain.getThread(threadId)).id).toBe(threadId);
    expect((await plain.listMessages(threadId)).data).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });
});
