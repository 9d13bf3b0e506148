/**
 * Ledger tests: many writes through the emulator's faults (some applied before failing, some not),
 * then the thread is compared with what each call reported. Every message whose write returned
 * must be stored exactly once and in call order; a write that raised may be stored at most once.
 * The emulator's fault draws are seeded, so each run sees the same faults.
 */
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { StudioChatMessageHistory, StudioWriteNotConfirmedError } from "../../../src/chat_history";
import { StudioClient } from "../../../src/client";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator({ seed: 424242 });
const clients: StudioClient[] = [];

function client(): StudioClient {
  const c = new StudioClient({
    baseUrl: emulator.handle.baseUrl,
    apiKey: emulator.handle.apiKey,
    maxRetries: 6,
    timeout: 10_000,
  });
  clients.push(c);
  return c;
}

afterEach(async () => {
  emulator.handle.setFaults(undefined);
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

interface Entry {
  texts: string[];
  /** undefined: the call returned; else how many of its messages it reported stored. */
  raisedStoredCount: number | undefined;
}

function checkLedger(ledger: Entry[], stored: string[]): void {
  const counts = new Map<string, number>();
  for (const text of stored) counts.set(text, (counts.get(text) ?? 0) + 1);
  for (const [text, count] of counts) expect(count, `${text} stored ${count} times`).toBe(1);

  // Texts are numbered in call order, so the stored sequence must be increasing.
  const order = stored.map((t) => Number(t.split("-")[1]));
  expect(order).toEqual([...order].sort((a, b) => a - b));

  for (const entry of ledger) {
    const present = entry.texts.map((t) => counts.get(t) === 1);
    if (entry.raisedStoredCount === undefined) {
      expect(present.every(Boolean), `returned write ${entry.texts.join(",")} is stored`).toBe(
        true,
      );
    } else {
      const known = entry.raisedStoredCount;
      expect(present.slice(0, known).every(Boolean)).toBe(true);
      expect(present.slice(known + 1).some(Boolean)).toBe(false);
    }
  }
}

async function record(texts: string[], write: Promise<void>): Promise<Entry> {
  try {
    await write;
    return { texts, raisedStoredCount: undefined };
  } catch (error) {
    if (!(error instanceof StudioWriteNotConfirmedError)) throw error;
    return { texts, raisedStoredCount: error.storedCount };
  }
}

describe("history writes under after-commit and before-commit faults", () => {
  it("appends: every returned message exactly once, in order", async () => {
    const history = new StudioChatMessageHistory({ client: client(), confirmDelayMs: 0 });
    await history.getThreadId();
    emulator.handle.clearRequests();
    emulator.handle.setFaults({
      rate500After: 0.15,
      resetAfter: 0.1,
      rate500Before: 0.05,
      resetBefore: 0.05,
      match: "/messages",
    });

    const ledger: Entry[] = [];
    let n = 0;
    for (let call = 0; call < 60; call++) {
      const size = (call % 4) + 1;
      const texts = Array.from({ length: size }, () => `m-${n++}`);
      ledger.push(await record(texts, history.addMessages(texts.map((t) => new HumanMessage(t)))));
    }
    // A few calls fired together: the queue must still apply them in call order.
    const together = Array.from({ length: 10 }, () => [`m-${n++}`]);
    ledger.push(
      ...(await Promise.all(
        together.map((texts) => record(texts, history.addMessage(new HumanMessage(texts[0]!)))),
      )),
    );
    emulator.handle.setFaults(undefined);

    const stored = (await history.getMessages()).map((m) => String(m.content));
    checkLedger(ledger, stored);
    expect(ledger.filter((e) => e.raisedStoredCount === undefined).length).toBeGreaterThan(50);

    // The faults did fire, and were settled by reading the thread back.
    const posts = emulator.handle.requests.filter((r) => r.method === "POST").length;
    const checks = emulator.handle.requests.filter(
      (r) => r.method === "GET" && r.query.order === "desc",
    ).length;
    expect(posts).toBeGreaterThan(n);
    expect(checks).toBeGreaterThan(10);
  }, 120_000);

  it("creates threads: no thread twice, no message twice", async () => {
    const shared = client();
    emulator.handle.setFaults({
      rate500After: 0.15,
      resetAfter: 0.1,
      rate500Before: 0.05,
      match: "/v1/threads",
    });
    const outcomes: { history: StudioChatMessageHistory; entry: Entry }[] = [];
    let n = 0;
    for (let i = 0; i < 30; i++) {
      const history = new StudioChatMessageHistory({
        client: shared,
        confirmDelayMs: 0,
        datasetId: "ledger",
      });
      const texts = [`t-${n++}`, `t-${n++}`, `t-${n++}`];
      const entry = await record(texts, history.addMessages(texts.map((t) => new HumanMessage(t))));
      outcomes.push({ history, entry });
    }
    emulator.handle.setFaults(undefined);

    const keys = new Map<string, number>();
    let threads = 0;
    for await (const thread of StudioChatMessageHistory.listThreads(
      { datasetId: "ledger" },
      { client: shared },
    )) {
      const key = String(thread.metadata?.lc_thread_key);
      keys.set(key, (keys.get(key) ?? 0) + 1);
      threads += 1;
    }
    expect([...keys.values()].every((count) => count === 1)).toBe(true);
    expect(threads).toBeLessThanOrEqual(30);

    for (const { history, entry } of outcomes) {
      if (entry.raisedStoredCount !== undefined && history.threadId === undefined) continue;
      const stored = (await history.getMessages()).map((m) => String(m.content));
      checkLedger([entry], stored);
      if (entry.raisedStoredCount === undefined) expect(stored).toEqual(entry.texts);
    }
    const created = emulator.handle.requests.filter(
      (r) => r.method === "POST" && r.path.endsWith("/v1/threads"),
    ).length;
    expect(created).toBeGreaterThan(30);
  }, 120_000);
});
