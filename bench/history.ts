/**
 * StudioChatMessageHistory against the emulator (in this process): time to load a 1,000-message
 * thread and to add 100 messages to an existing thread, and the HTTP calls each one makes (the
 * targets are the issue's: 10 list calls of 100, and one call per message with no reads); and the
 * calls a `sessionId` look-up needs in an account of 1,000 threads: a fresh client's first look-up
 * (10 list calls of 100), an unknown session afterwards (1), a known one (0), and a new session's
 * first write (1 look-up, 1 create, 1 check for a concurrent creator).
 *
 *   npx tsx bench/history.ts
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { StudioChatMessageHistory } from "../src/chat_history";
import { StudioClient } from "../src/client";
import { decodeMessage, encodeMessage } from "../src/converters/thread-messages";
import { startEmulator } from "../src/emulator";
import { findSessionThread } from "../src/threads/session-threads";
import { type BenchEntry, type BenchRow, measurePerCall, runIfMain } from "./harness";

function conversation(size: number, tag: string): BaseMessage[] {
  return Array.from({ length: size }, (_, i) =>
    i % 2 === 0
      ? new HumanMessage(`${tag} question ${i}: how does the weather look for tomorrow?`)
      : new AIMessage({
          content: `${tag} answer ${i}: mostly sunny, 22°C, light wind from the west.`,
          usage_metadata: { input_tokens: 12, output_tokens: 14, total_tokens: 26 },
          response_metadata: { model_provider: "studio", finish_reason: "stop" },
        }),
  );
}

function callsRow(what: string, calls: number, expected: number): BenchRow {
  return {
    what,
    value: calls,
    unit: "calls",
    target: `= ${expected}`,
    pass: calls === expected,
  };
}

async function run(): Promise<BenchRow[]> {
  const emulator = await startEmulator();
  const client = new StudioClient({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl });
  try {
    const big = new StudioChatMessageHistory({ client });
    await big.addMessages(conversation(1000, "load"));
    const threadId = big.threadId!;

    emulator.clearRequests();
    const loaded = await new StudioChatMessageHistory({ client, threadId }).getMessages();
    if (loaded.length !== 1000) throw new Error(`loaded ${loaded.length} messages, not 1000`);
    const loadCalls = emulator.requests.length;

    const target = new StudioChatMessageHistory({ client });
    await target.getThreadId();
    emulator.clearRequests();
    await target.addMessages(conversation(100, "add"));
    const addCalls = emulator.requests.length;

    const loadUs = await measurePerCall(
      () => new StudioChatMessageHistory({ client, threadId }).getMessages(),
      { warmup: 3, rounds: 7, iterations: 5 },
    );
    const addUs = await measurePerCall(() => target.addMessages(conversation(100, "add")), {
      warmup: 2,
      rounds: 7,
      iterations: 3,
    });

    // The codec's share of the above: encoding and decoding one message, no network.
    const sample = conversation(2, "codec")[1]!;
    const codecUs = await measurePerCall(
      async () => {
        const input = encodeMessage(sample, "00000000-0000-4000-8000-000000000000");
        const content =
          typeof input.content === "string" ? [] : input.content.map((item) => ({ ...item }));
        return decodeMessage({ id: "m", role: input.role, content, metadata: input.metadata });
      },
      { warmup: 500, rounds: 7, iterations: 2000 },
    );

    // Session look-ups in an account of exactly 1,000 threads (the ones above included).
    let existing = 0;
    for await (const _ of client.iterateThreads({ order: "asc", limit: 100 })) existing += 1;
    for (let i = existing; i < 1000; i++) {
      await client.createThread({
        title: `bench ${i}`,
        metadata: { lc_session: `user-${i}`, lc_kind: "history" },
      });
    }
    const countCalls = async (work: () => Promise<unknown>) => {
      emulator.clearRequests();
      await work();
      return emulator.requests.length;
    };
    const fresh = new StudioClient({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl });
    const session = (sessionId: string) =>
      new StudioChatMessageHistory({ client: fresh, sessionId, maxMessages: 20 });
    let firstLookup: number;
    let unknownLookup: number;
    let knownLookup: number;
    let firstWrite: number;
    let lookupUs: number;
    try {
      firstLookup = await countCalls(() => findSessionThread(fresh, "user-500", "history"));
      unknownLookup = await countCalls(() => findSessionThread(fresh, "nobody", "history"));
      knownLookup = await countCalls(() => findSessionThread(fresh, "user-500", "history"));
      firstWrite = await countCalls(() =>
        session("new-user").addMessage(new HumanMessage("Hello")),
      );
      lookupUs = await measurePerCall(
        () =>
          new StudioChatMessageHistory({
            client: new StudioClient({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl }),
            sessionId: "user-900",
            maxMessages: 1,
          }).getMessages(),
        { warmup: 1, rounds: 5, iterations: 3 },
      );
    } finally {
      await fresh.close();
    }

    return [
      { what: "history getMessages, 1,000-message thread", value: loadUs / 1000, unit: "ms/op" },
      callsRow("history getMessages, 1,000 messages: HTTP calls", loadCalls, 10),
      { what: "history addMessages, 100 messages", value: addUs / 1000, unit: "ms/op" },
      callsRow("history addMessages, 100 messages: HTTP calls", addCalls, 100),
      { what: "history codec, encode + decode one AI message", value: codecUs, unit: "µs/op" },
      callsRow("sessionId look-up, 1,000 threads, new client: HTTP calls", firstLookup, 10),
      callsRow("sessionId look-up, unknown session afterwards: HTTP calls", unknownLookup, 1),
      callsRow("sessionId look-up, known session: HTTP calls", knownLookup, 0),
      callsRow("sessionId first write of a new session: HTTP calls", firstWrite, 3),
      {
        what: "sessionId look-up + last message, new client, 1,000 threads",
        value: lookupUs / 1000,
        unit: "ms/op",
      },
    ];
  } finally {
    await client.close();
    await emulator.close();
  }
}

export const historyBench: BenchEntry = { name: "history", run };

await runIfMain(import.meta.url, historyBench);
