/**
 * StudioChatMessageHistory against the emulator (in this process): time to load a 1,000-message
 * thread and to add 100 messages to an existing thread, and the HTTP calls each one makes (the
 * targets are the issue's: 10 list calls of 100, and one call per message with no reads).
 *
 *   npx tsx bench/history.ts
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { StudioChatMessageHistory } from "../src/chat_history";
import { StudioClient } from "../src/client";
import { decodeMessage, encodeMessage } from "../src/converters/thread-messages";
import { startEmulator } from "../src/emulator";
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

    return [
      { what: "history getMessages, 1,000-message thread", value: loadUs / 1000, unit: "ms/op" },
      callsRow("history getMessages, 1,000 messages: HTTP calls", loadCalls, 10),
      { what: "history addMessages, 100 messages", value: addUs / 1000, unit: "ms/op" },
      callsRow("history addMessages, 100 messages: HTTP calls", addCalls, 100),
      { what: "history codec, encode + decode one AI message", value: codecUs, unit: "µs/op" },
    ];
  } finally {
    await client.close();
    await emulator.close();
  }
}

export const historyBench: BenchEntry = { name: "history", run };

await runIfMain(import.meta.url, historyBench);
