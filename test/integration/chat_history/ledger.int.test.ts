/**
 * Ledger tests: many writes through the emulator's faults (some applied before failing, some not),
 * then the thread is compared with what each call reported. Every message whose write returned
 * must be stored exactly once and in call order; a write that raised may be stored at most once.
 * The emulator's fault draws are seeded, so each run sees the same faults.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import type { ThreadMessage } from "../../../src/api-types";
import { StudioChatMessageHistory, StudioWriteNotConfirmedError } from "../../../src/chat_history";
import { StudioClient } from "../../../src/client";
import type { FaultSpec } from "../../../src/emulator";
import { FaultInjector } from "../../../src/emulator/faults";
import { useEmulator } from "../../helpers/emulator";
import { useInstantRetries } from "../../unit/client/retry-clock";

const emulator = useEmulator({ seed: 424242 });
// The client's retry pauses pass at once: what these tests check is what is stored, not how long
// the client waited before trying again.
const clock = useInstantRetries();
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
    // The client retried the calls that failed before work, pausing (at once, here) each time.
    expect(clock.sleeps.length).toBeGreaterThan(0);
    expect(clock.sleeps.every((ms) => ms > 0)).toBe(true);
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

/**
 * Several writers at once (three of them on one session's thread, each with its own client as
 * separate processes would have; one creating a new thread; one on its own session), under each
 * fault kind of the emulator in turn. Holds, for every kind: everything stored is acknowledged or
 * reported stored (or reported unknown), each exactly once and in each writer's call order;
 * nothing reported as not stored is stored; and retrying the raised calls with the same message
 * objects completes them without a duplicate.
 */
describe("ledger: several writers under every fault kind", () => {
  // The emulator's seed: a reset restarts its fault draws, so they can be replayed here.
  const SEED = 424242;
  const WRITES = 6;
  const kinds: [string, FaultSpec, { timeout?: number }][] = [
    ["429 before work", { rate429: 0.3, retryAfterSeconds: 0, match: "/v1/threads" }, {}],
    ["500 before work", { rate500Before: 0.3, match: "/v1/threads" }, {}],
    ["503 before work", { rate503Before: 0.3, match: "/v1/threads" }, {}],
    ["500 after commit", { rate500After: 0.3, match: "/v1/threads" }, {}],
    ["reset before work", { resetBefore: 0.3, match: "/v1/threads" }, {}],
    ["reset after commit", { resetAfter: 0.3, match: "/v1/threads" }, {}],
    // Every message call takes longer than the client waits: each write times out and lands later.
    ["latency beyond the client timeout", { latencyMs: 250, match: "/messages" }, { timeout: 100 }],
  ];

  interface Call {
    writer: string;
    messages: BaseMessage[];
    texts: string[];
    error?: StudioWriteNotConfirmedError;
  }

  function textOf(message: ThreadMessage): string {
    const text = message.content[0]?.text;
    return typeof text === "string" ? text : (text?.value ?? "");
  }

  it.each(kinds)(
    "%s",
    async (_kind, faults, clientOptions) => {
      await emulator.handle.reset();
      const make = () =>
        new StudioClient({
          baseUrl: emulator.handle.baseUrl,
          apiKey: emulator.handle.apiKey,
          maxRetries: 1,
          timeout: clientOptions.timeout ?? 5_000,
        });
      const writers: Record<string, StudioChatMessageHistory> = {};
      const own = (name: string, fields: Record<string, unknown>) => {
        const c = make();
        clients.push(c);
        writers[name] = new StudioChatMessageHistory({ client: c, confirmDelayMs: 5, ...fields });
      };
      own("A", { sessionId: "shared" });
      own("B", { sessionId: "shared" });
      own("C", { sessionId: "shared" });
      own("D", { title: "fresh" });
      own("E", { sessionId: "solo" });
      // The shared session's first turn is written before the faults start.
      await writers.A!.addMessage(new HumanMessage("A-start"));

      emulator.handle.clearRequests();
      emulator.handle.setFaults({ ...faults });
      const calls: Call[] = [];
      await Promise.all(
        Object.entries(writers).map(async ([writer, history]) => {
          let n = 0;
          for (let k = 0; k < WRITES; k++) {
            const texts = Array.from({ length: (k % 3) + 1 }, () => `${writer}-${n++}`);
            const messages = texts.map((t, i) => (i % 2 ? new AIMessage(t) : new HumanMessage(t)));
            const call: Call = { writer, messages, texts };
            calls.push(call);
            try {
              await history.addMessages(messages);
            } catch (error) {
              if (!(error instanceof StudioWriteNotConfirmedError)) throw error;
              call.error = error;
            }
          }
        }),
      );
      const faulted = [...emulator.handle.requests];
      emulator.handle.setFaults(undefined);

      // The faults did fire.
      const injector = new FaultInjector(SEED);
      injector.set({ ...faults });
      const hits = faulted
        .map((r) => injector.draw(r.path))
        .filter((d) => d && (d.before || d.after || d.latencyMs > 0)).length;
      expect(hits).toBeGreaterThan(5);

      const plain = make();
      clients.push(plain);
      const storedByThread = async () => {
        const where = new Map<string, { threadId: string; position: number }[]>();
        for await (const thread of plain.iterateThreads({ order: "asc", limit: 100 })) {
          let position = 0;
          for await (const m of plain.iterateMessages(thread.id, { order: "asc", limit: 100 })) {
            const text = textOf(m);
            where.set(text, [
              ...(where.get(text) ?? []),
              { threadId: thread.id, position: position++ },
            ]);
          }
        }
        return where;
      };

      const where = await storedByThread();
      for (const [text, places] of where) expect(places, `${text} stored once`).toHaveLength(1);
      const written = new Set(calls.flatMap((c) => c.texts));
      for (const text of where.keys()) {
        if (text !== "A-start") expect(written.has(text), `${text} was written`).toBe(true);
      }
      for (const call of calls) {
        const stored = call.texts.map((t) => where.has(t));
        if (!call.error) {
          expect(stored.every(Boolean), `${call.texts} acknowledged and stored`).toBe(true);
          continue;
        }
        const e = call.error;
        expect(e.stored.length + e.notStored.length + e.unknown.length).toBe(call.texts.length);
        for (const i of e.stored) expect(stored[i], `${call.texts[i]} reported stored`).toBe(true);
        for (const i of e.notStored) {
          expect(stored[i], `${call.texts[i]} reported not stored`).toBe(false);
        }
      }
      // Each writer's messages sit in its own thread, in call order.
      for (const [writer, history] of Object.entries(writers)) {
        const mine = calls.filter((c) => c.writer === writer).flatMap((c) => c.texts);
        const places = mine.filter((t) => where.has(t)).map((t) => where.get(t)![0]!);
        if (places.length === 0) continue;
        expect(new Set(places.map((p) => p.threadId)).size).toBe(1);
        if (history.threadId !== undefined) expect(places[0]!.threadId).toBe(history.threadId);
        const positions = places.map((p) => p.position);
        expect(positions).toEqual([...positions].sort((a, b) => a - b));
      }
      // The three writers of the shared session wrote to one thread.
      const shared = new Set(
        ["A", "B", "C"].map((w) => writers[w]!.threadId).filter((id) => id !== undefined),
      );
      expect(shared.size).toBe(1);

      // Retrying each raised call with the same message objects completes it, never duplicating.
      for (const call of calls.filter((c) => c.error)) {
        await writers[call.writer]!.addMessages(call.messages);
      }
      const after = await storedByThread();
      for (const text of written)
        expect(after.get(text), `${text} once after retry`).toHaveLength(1);
      expect(after.size).toBe(written.size + 1);
    },
    120_000,
  );
});
