/**
 * Issue 19: what a session look-up costs does not depend on the account's size. Each "process" is
 * a fresh module graph (`vi.resetModules`), so nothing is cached but what a new process would have;
 * histories are built from client options, as most people write them, and every call is counted
 * by the `fetch` they are given. The same counts at 200 and at 2,000 threads.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { StudioChatMessageHistory as History } from "../../../src/chat_history";
import { StudioClient } from "../../../src/client";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator();

interface Counted {
  calls: number;
}

/** A module graph of its own, as a new process has, and a fetch that counts its calls. */
async function freshProcess() {
  vi.resetModules();
  const { StudioChatMessageHistory } = await import("../../../src/chat_history");
  const counted: Counted = { calls: 0 };
  const options = {
    baseUrl: emulator.handle.baseUrl,
    apiKey: emulator.handle.apiKey,
    fetch: (input: string | URL | Request, init?: RequestInit) => {
      counted.calls += 1;
      return fetch(input, init);
    },
  };
  const history = (sessionId: string): History =>
    new StudioChatMessageHistory({ ...options, sessionId, confirmDelayMs: 0 });
  const count = async (work: () => Promise<unknown>) => {
    counted.calls = 0;
    await work();
    return counted.calls;
  };
  return { history, count };
}

/** Grows the account to `size` threads: a few sessions, the rest other threads. */
async function growAccount(size: number): Promise<void> {
  const seed = new StudioClient({
    baseUrl: emulator.handle.baseUrl,
    apiKey: emulator.handle.apiKey,
  });
  let existing = 0;
  for await (const _ of seed.iterateThreads({ order: "asc", limit: 100 })) existing += 1;
  let next = existing;
  const worker = async () => {
    while (next < size) {
      const i = next++;
      await seed.createThread({ title: `other ${i}`, metadata: { owner: `user-${i}` } });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await seed.close();
}

async function costs() {
  const existing = await freshProcess();
  const read = await existing.count(async () => {
    expect((await existing.history("ada").getMessages()).map((m) => m.content)).toEqual([
      "Hi, I am Ada.",
      "Hello Ada.",
    ]);
  });
  // A second history built from options in the same process: the session is known.
  const warmRead = await existing.count(() => existing.history("ada").getMessages());

  const fresh = await freshProcess();
  const proveNew = await fresh.count(async () => {
    expect(await fresh.history(`new-${crypto.randomUUID()}`).getMessages()).toEqual([]);
  });
  const writer = await freshProcess();
  const firstTurn = await writer.count(() =>
    writer
      .history(`new-${crypto.randomUUID()}`)
      .addMessages([new HumanMessage("Q"), new AIMessage("A")]),
  );
  return { read, warmRead, proveNew, firstTurn };
}

describe("session look-up cost does not grow with the account (issue 19)", () => {
  beforeAll(async () => {
    await emulator.handle.reset();
    const { history } = await freshProcess();
    await history("ada").addMessages([
      new HumanMessage("Hi, I am Ada."),
      new AIMessage("Hello Ada."),
    ]);
  });

  it("the same number of calls at 200 and at 2,000 threads, within the bounds", async () => {
    await growAccount(200);
    const small = await costs();
    await growAccount(2_000);
    const large = await costs();

    expect(large).toEqual(small);
    // Fresh process, existing session: its dataset listed, its messages read.
    expect(large.read).toBe(2);
    // Fresh process, new session: its empty dataset, and the account's record that proves it new.
    expect(large.proveNew).toBe(2);
    // Fresh process, a new session's first turn: those two, the create, and the race check.
    expect(large.firstTurn).toBe(4);
    // Warm process, a second history built from options: only the read.
    expect(large.warmRead).toBe(1);
  });
});
