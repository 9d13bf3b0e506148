/**
 * The package under the emulator's injected faults. Every scenario is reproducible by seed: the
 * emulator draws one fixed sequence of numbers per request, so the tests either keep the arrival
 * order fixed (one sequential lane per emulator) or assert what does not depend on it (how many
 * draws were faults among the first N).
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { afterAll, describe, expect, it } from "vitest";
import type { ThreadMessage } from "../../../src/api-types";
import { StudioChatMessageHistory } from "../../../src/chat_history";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { type EmulatorHandle, type FaultSpec, startEmulator } from "../../../src/emulator";
import { FaultInjector } from "../../../src/emulator/faults";
import { StudioStreamError } from "../../../src/errors";
import { useInstantRetries } from "../../unit/client/retry-clock";

const MODEL = "studio/echo-small";

// The client's pauses between retries pass on the retry clock, at once: the faults are real.
useInstantRetries();

const opened: { emulator: EmulatorHandle; client: StudioClient }[] = [];

async function open(seed: number, faults?: FaultSpec) {
  const emulator = await startEmulator({ port: 0, seed, ...(faults && { faults }) });
  const client = new StudioClient({
    apiKey: emulator.apiKey,
    proxyUrl: emulator.proxyUrl,
    baseUrl: emulator.baseUrl,
    maxRetries: 5,
  });
  opened.push({ emulator, client });
  return { emulator, client };
}

afterAll(async () => {
  for (const { emulator, client } of opened.splice(0)) {
    await client.close();
    await emulator.close();
  }
});

/** Runs `task(i)` for i in [0, count) with at most `width` in flight; never rejects. */
async function pool<T>(
  count: number,
  width: number,
  task: (i: number) => Promise<T>,
): Promise<PromiseSettledResult<T>[]> {
  const results: PromiseSettledResult<T>[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      try {
        results[i] = { status: "fulfilled", value: await task(i) };
      } catch (reason) {
        results[i] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
  return results;
}

function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { content?: unknown }[] }).messages ?? [];
  const content = messages.at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

describe("retryable faults before the work", () => {
  // 10% of each kind, drawn independently: about a third of all attempts fail.
  const FAULTS: FaultSpec = {
    rate429: 0.1,
    retryAfterSeconds: 0,
    rate500Before: 0.1,
    rate503Before: 0.1,
    resetBefore: 0.1,
  };
  const CALLS = 500;
  // One emulator per lane and one call at a time in each: the arrival order, and so which call
  // meets which fault, is fixed by the seed. Lanes run side by side to keep the backoff short.
  const LANES = 16;
  const BASE_SEED = 9000;
  const MAX_RETRIES = 5;

  /**
   * What the seeded draws promise for a lane: the attempt at which each call gets through. Six
   * faults in a row (p ~ 0.17% per call) would exhaust the retries; the seeds are chosen so that
   * no call meets that, and this is checked, so the test asserts the package, not the dice.
   */
  function expectedAttempts(seed: number, calls: number): number[] {
    const injector = new FaultInjector(seed);
    injector.set(FAULTS);
    return Array.from({ length: calls }, () => {
      for (let attempt = 1; attempt <= MAX_RETRIES + 1; attempt++) {
        if (injector.draw("/inference/chat/completions")?.before === undefined) return attempt;
      }
      return Number.POSITIVE_INFINITY;
    });
  }

  it("500 ChatStudio invokes with 429, 500, 503 and resets all succeed, each retried exactly as often as it failed", {
    timeout: 120_000,
  }, async () => {
    const lanes = await Promise.all(
      Array.from({ length: LANES }, (_, lane) => open(BASE_SEED + lane, FAULTS)),
    );
    const laneCalls = (lane: number) =>
      Array.from({ length: CALLS }, (_, i) => i).filter((i) => i % LANES === lane);

    // Precondition on the chosen seeds (see expectedAttempts).
    const expected = lanes.map((_, lane) =>
      expectedAttempts(BASE_SEED + lane, laneCalls(lane).length),
    );
    expect(expected.flat().every(Number.isFinite)).toBe(true);

    const answers = new Map<number, unknown>();
    const failures: { call: number; error: unknown }[] = [];
    await Promise.all(
      lanes.map(async ({ client }, lane) => {
        // The client was opened with maxRetries 5 (= MAX_RETRIES); retries are the client's.
        const model = new ChatStudio({ model: MODEL, client });
        for (const i of laneCalls(lane)) {
          try {
            answers.set(i, (await model.invoke(`retry probe ${i}`)).content);
          } catch (error) {
            failures.push({ call: i, error });
          }
        }
      }),
    );

    expect(failures).toEqual([]);
    expect(answers.size).toBe(CALLS);
    for (let i = 0; i < CALLS; i++) expect(answers.get(i)).toBe(`You said: retry probe ${i}`);

    // Per call, the attempts that reached the server: one per failed attempt plus the last.
    const kinds = new Map<string, number>();
    lanes.forEach(({ emulator }, lane) => {
      const injector = new FaultInjector(BASE_SEED + lane);
      injector.set(FAULTS);
      const attempts = new Map<string, (string | number | undefined)[]>();
      for (const request of emulator.requests) {
        const before = injector.draw(request.path)?.before;
        const text = lastUserText(request.body);
        attempts.set(text, [...(attempts.get(text) ?? []), before]);
        if (before !== undefined) kinds.set(String(before), (kinds.get(String(before)) ?? 0) + 1);
      }
      laneCalls(lane).forEach((i, k) => {
        const seen = attempts.get(`retry probe ${i}`) ?? [];
        expect(seen.length, `attempts of call ${i}`).toBe(expected[lane]![k]);
        expect(seen.at(-1), `last attempt of call ${i} is the clean one`).toBeUndefined();
        expect(seen.slice(0, -1).every((before) => before !== undefined)).toBe(true);
      });
    });
    // Every fault kind really happened, many times.
    for (const kind of ["429", "500", "503", "reset"]) {
      expect(kinds.get(kind) ?? 0, `faults of kind ${kind}`).toBeGreaterThan(20);
    }
  });
});

describe("streams cut mid-way", () => {
  const STREAMS = 200;
  const SEED = 4242;
  const FAULTS: FaultSpec = { streamCut: 0.3 };

  it("each of 200 streams either completes with the full answer or raises StudioStreamError", {
    timeout: 60_000,
  }, async () => {
    const { emulator, client } = await open(SEED, FAULTS);
    const streamed = new ChatStudio({ model: MODEL, client });
    const streamingInvoke = new ChatStudio({ model: MODEL, client, streaming: true });
    // Long enough that a cut after at most four events always leaves the answer short.
    const prompt = (i: number) => `stream probe ${i} with quite a few words to spell out`;

    const results = await pool(STREAMS, 16, async (i) => {
      if (i % 2 === 0) {
        let text = "";
        for await (const chunk of await streamed.stream(prompt(i))) text += chunk.content;
        return text;
      }
      return (await streamingInvoke.invoke(prompt(i))).content;
    });

    // Cuts happen after the first byte, so nothing is retried: one request, one draw, per stream.
    expect(emulator.requests.length).toBe(STREAMS);
    const injector = new FaultInjector(SEED);
    injector.set(FAULTS);
    let cuts = 0;
    for (let i = 0; i < STREAMS; i++) {
      if (injector.draw("/inference/chat/completions")?.cutAfter !== undefined) cuts++;
    }
    expect(cuts).toBeGreaterThan(30);

    let errors = 0;
    results.forEach((result, i) => {
      if (result.status === "fulfilled") {
        expect(result.value, `stream ${i}`).toBe(`You said: ${prompt(i)}`);
      } else {
        errors++;
        expect(result.reason, `stream ${i}`).toBeInstanceOf(StudioStreamError);
      }
    });
    expect(errors).toBe(cuts);
  });
});

describe("history writes under after-commit faults", () => {
  const HISTORIES = 3;
  const WRITES_PER_HISTORY = 100;
  // After-commit faults (the write is stored, the caller never hears it) mixed with faults before
  // the work (nothing stored), on thread creation, message writes and the reads that confirm them.
  const FAULTS: FaultSpec = {
    rate500After: 0.1,
    resetAfter: 0.1,
    rate500Before: 0.1,
    resetBefore: 0.05,
    match: "/v1/threads",
  };

  interface Write {
    history: number;
    texts: string[];
    outcome?: "returned" | "raised";
    error?: unknown;
  }

  /** Messages of every kind; a write is one message, every seventh a batch of three. */
  function writeFor(history: number, k: number): { texts: string[]; messages: BaseMessage[] } {
    const tag = `h${history} w${k}`;
    if (k % 7 === 6) {
      const texts = [`${tag} q`, `${tag} call`, `${tag} result`];
      return {
        texts,
        messages: [
          new HumanMessage(texts[0]!),
          new AIMessage({
            content: texts[1]!,
            tool_calls: [{ id: `call_${tag}`, name: "lookup", args: { k }, type: "tool_call" }],
          }),
          new ToolMessage({ content: texts[2]!, tool_call_id: `call_${tag}` }),
        ],
      };
    }
    const text = `${tag} msg`;
    return { texts: [text], messages: [k % 2 ? new AIMessage(text) : new HumanMessage(text)] };
  }

  function textOf(message: BaseMessage): string {
    return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  }

  function storedText(message: ThreadMessage): string {
    const item = message.content[0];
    return typeof item?.text === "string" ? item.text : (item?.text?.value ?? "");
  }

  it("a ledger of 300 writes: every returned write stored exactly once and in order, every raised one at most once, and getMessages shows exactly what is stored", {
    timeout: 120_000,
  }, async () => {
    const { emulator, client } = await open(777, FAULTS);
    const histories = Array.from(
      { length: HISTORIES },
      () => new StudioChatMessageHistory({ client, confirmDelayMs: 5 }),
    );
    const ledger: Write[] = [];
    // All writes are issued at once: each history must apply its own in call order.
    await Promise.all(
      histories.flatMap((history, h) =>
        Array.from({ length: WRITES_PER_HISTORY }, (_, k) => {
          const { texts, messages } = writeFor(h, k);
          const write: Write = { history: h, texts };
          ledger.push(write);
          return history.addMessages(messages).then(
            () => {
              write.outcome = "returned";
            },
            (error: unknown) => {
              write.outcome = "raised";
              write.error = error;
            },
          );
        }),
      ),
    );
    expect(ledger.every((w) => w.outcome !== undefined)).toBe(true);
    const returned = ledger.filter((w) => w.outcome === "returned");
    expect(returned.length).toBeGreaterThan(200);

    // The log is in draw order, so each request's fault is known: the scenario really committed
    // writes whose callers were told they failed.
    const injector = new FaultInjector(777);
    injector.set(FAULTS);
    let afterCommitWrites = 0;
    for (const request of emulator.requests) {
      const draw = injector.draw(request.path);
      if (request.method === "POST" && draw?.before === undefined && draw?.after !== undefined)
        afterCommitWrites++;
    }
    expect(afterCommitWrites).toBeGreaterThan(20);

    // Reads under these faults were exercised by every confirmation above; the final reads run
    // without faults so that the outcome does not depend on the arrival order of the writes.
    emulator.setFaults(undefined);
    for (let h = 0; h < HISTORIES; h++) {
      const threadId = histories[h]!.threadId;
      const mine = ledger.filter((w) => w.history === h);
      if (threadId === undefined) {
        // Only possible when even the thread creation could not be confirmed.
        expect(mine.every((w) => w.outcome === "raised")).toBe(true);
        continue;
      }
      const stored: string[] = [];
      for await (const message of client.iterateMessages(threadId, { order: "asc", limit: 100 }))
        stored.push(storedText(message));

      const count = (text: string) => stored.filter((s) => s === text).length;
      for (const write of mine) {
        for (const text of write.texts) {
          if (write.outcome === "returned") expect(count(text), text).toBe(1);
          else expect(count(text), text).toBeLessThanOrEqual(1);
        }
      }
      // Nothing stored that was not written, and call order kept.
      const order = mine.flatMap((w) => w.texts);
      const positions = stored.map((text) => order.indexOf(text));
      expect(positions.every((p) => p >= 0)).toBe(true);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));

      // What getMessages shows is exactly what is stored, from the writer and from a fresh reader.
      expect((await histories[h]!.getMessages()).map(textOf)).toEqual(stored);
      const reader = new StudioChatMessageHistory({ client, threadId });
      expect((await reader.getMessages()).map(textOf)).toEqual(stored);
    }
  });
});
