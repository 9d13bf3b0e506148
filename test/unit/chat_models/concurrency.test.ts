/**
 * Two claims no other test pins: `maxConcurrency` bounds `batch()` in both classes, streaming
 * and not, and StudioLLM keeps prompt order whatever order the answers come in. The server is a
 * `fetch` given to the model (so this also proves the option reaches the transport).
 */
import { describe, expect, it } from "vitest";
import { ChatStudio } from "../../../src/chat_models";
import { StudioLLM } from "../../../src/llms";

const PROXY_URL = "https://studio.test/inference";
const MODEL = "studio/echo-small";

/** A few turns of the event loop, so that requests in flight overlap. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Answers chat and text completions, plain or streamed, counting requests in flight. */
function fakeServer(hold: (text: string) => Promise<void> = () => turns(5)) {
  const state = { inFlight: 0, maxInFlight: 0, calls: 0 };
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    const messages = body.messages as { content: string }[] | undefined;
    const text = messages ? (messages.at(-1)?.content ?? "") : String(body.prompt);
    state.calls++;
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    try {
      await hold(text);
    } finally {
      state.inFlight--;
    }
    const head = { id: "x", created: 1, model: MODEL };
    const choice = messages
      ? { index: 0, message: { role: "assistant", content: `re: ${text}` }, finish_reason: "stop" }
      : { index: 0, text: `re: ${text}`, finish_reason: "stop" };
    if (!body.stream) {
      return new Response(JSON.stringify({ ...head, choices: [choice] }), {
        headers: { "content-type": "application/json" },
      });
    }
    const delta = messages
      ? { index: 0, delta: { content: `re: ${text}` }, finish_reason: "stop" }
      : choice;
    const sse = `data: ${JSON.stringify({ ...head, choices: [delta] })}\n\ndata: [DONE]\n\n`;
    return new Response(sse, { headers: { "content-type": "text/event-stream" } });
  };
  return { state, fetch };
}

const settings = (fetch: typeof globalThis.fetch) => ({
  apiKey: "sk-concurrency-0123456789",
  proxyUrl: PROXY_URL,
  fetch,
  maxRetries: 0,
});

describe("maxConcurrency bounds batch() in both classes, streaming and not", () => {
  for (const streaming of [false, true]) {
    it(`ChatStudio, streaming: ${streaming}`, async () => {
      const { state, fetch } = fakeServer();
      const model = new ChatStudio(MODEL, { ...settings(fetch), maxConcurrency: 2, streaming });
      const replies = await model.batch(["a", "b", "c", "d", "e"]);
      expect(replies.map((r) => r.text)).toEqual(["re: a", "re: b", "re: c", "re: d", "re: e"]);
      expect(state.calls).toBe(5);
      expect(state.maxInFlight).toBe(2);
    });

    it(`StudioLLM, streaming: ${streaming}`, async () => {
      const { state, fetch } = fakeServer();
      const llm = new StudioLLM(MODEL, { ...settings(fetch), maxConcurrency: 2, streaming });
      expect(await llm.batch(["a", "b", "c", "d", "e"])).toEqual([
        "re: a",
        "re: b",
        "re: c",
        "re: d",
        "re: e",
      ]);
      expect(state.maxInFlight).toBe(2);
      const { state: generated, fetch: fetch2 } = fakeServer();
      const viaGenerate = new StudioLLM(MODEL, {
        ...settings(fetch2),
        maxConcurrency: 1,
        streaming,
      });
      await viaGenerate.generate(["a", "b", "c"]);
      expect(generated.maxInFlight).toBe(1);
    });
  }

  it("without a bound, requests overlap (the check above can fail)", async () => {
    const { state, fetch } = fakeServer();
    await new StudioLLM(MODEL, settings(fetch)).generate(["a", "b", "c"]);
    expect(state.maxInFlight).toBe(3);
  });
});

describe("StudioLLM keeps prompt order whatever order the answers come in", () => {
  for (const streaming of [false, true]) {
    it(`streaming: ${streaming}`, async () => {
      // The first prompt's answer waits until the last one's has been sent.
      let releaseFirst: () => void = () => {};
      const firstHeld = new Promise<void>((resolve) => {
        releaseFirst = resolve;
      });
      const answered: string[] = [];
      const { fetch } = fakeServer(async (text) => {
        if (text === "one") await firstHeld;
        else await turns(3);
        answered.push(text);
        if (text === "three") releaseFirst();
      });
      const llm = new StudioLLM(MODEL, { ...settings(fetch), streaming });
      const result = await llm.generate(["one", "two", "three"]);
      expect(answered[0]).not.toBe("one");
      expect(answered.at(-1)).toBe("one");
      expect(result.generations.map((g) => g[0]?.text)).toEqual([
        "re: one",
        "re: two",
        "re: three",
      ]);
    });
  }
});
