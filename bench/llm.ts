/**
 * Per-call time of `StudioLLM.invoke` against the thinnest possible `LLM` subclass (its `_call`
 * is one undici request and a JSON parse), in interleaved rounds on the same emulator. The
 * emulator runs in a child process so its work does not land on the measured thread and hide
 * the client-side overhead being compared. Context, not a target: the package's ceilings are set
 * against ChatOpenAI (bench/chat.ts).
 *
 *   npx tsx bench/llm.ts
 */
import { LLM } from "@langchain/core/language_models/llms";
import { Pool } from "undici";
import { StudioLLM } from "../src/llms";
import { startChildEmulator } from "./emulator-child";
import {
  type BenchEntry,
  type BenchRow,
  informational,
  measureRounds,
  median,
  pairedRatioRow,
  runIfMain,
} from "./harness";

const MODEL = "studio/echo-text";
const PROMPT = "Hello, how are you today?";
const MAX_TOKENS = 16;

/** The reference: nothing but a request, a JSON parse and core's own `LLM` plumbing. */
class BareUndiciLLM extends LLM {
  readonly #pool: Pool;
  readonly #path: string;
  readonly #headers: Record<string, string>;

  constructor(proxyUrl: string, apiKey: string) {
    super({});
    const url = new URL(proxyUrl);
    this.#pool = new Pool(url.origin);
    this.#path = `${url.pathname}/text/completions`;
    this.#headers = { "content-type": "application/json", authorization: apiKey };
  }

  _llmType(): string {
    return "bare-undici";
  }

  async _call(prompt: string): Promise<string> {
    const response = await this.#pool.request({
      method: "POST",
      path: this.#path,
      headers: this.#headers,
      body: JSON.stringify({ model: MODEL, prompt, max_tokens: MAX_TOKENS }),
    });
    const body = (await response.body.json()) as { choices: { text: string }[] };
    return body.choices[0]?.text ?? "";
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

export const llmBench: BenchEntry = {
  name: "llm",
  async run(): Promise<BenchRow[]> {
    const child = await startChildEmulator();
    const bare = new BareUndiciLLM(child.proxyUrl, child.apiKey);
    const studio = new StudioLLM({
      model: MODEL,
      apiKey: child.apiKey,
      proxyUrl: child.proxyUrl,
      maxTokens: MAX_TOKENS,
    });
    try {
      const expected = await bare.invoke(PROMPT);
      const got = await studio.invoke(PROMPT);
      if (got !== expected) throw new Error(`the two answers differ: ${got} vs ${expected}`);
      // Many short rounds, order alternating, and the ratio as the median of per-round ratios:
      // on a shared machine a burst of load then spoils a few rounds of both candidates alike,
      // and a change of the machine's regime cannot tip the verdict (see `pairedRatioRow`).
      const times = await measureRounds(
        { bare: () => bare.invoke(PROMPT), studio: () => studio.invoke(PROMPT) },
        { warmup: 1000, rounds: 80, iterations: 50 },
      );
      return [
        informational(
          pairedRatioRow(
            "StudioLLM.invoke (emulator, non-streaming)",
            times.studio,
            "µs/call",
            "bare-undici LLM",
            times.bare,
            Number.POSITIVE_INFINITY,
          ),
        ),
        { what: "bare-undici LLM.invoke (reference)", value: median(times.bare), unit: "µs/call" },
      ];
    } finally {
      await studio.client.close();
      await bare.close();
      await child.stop();
    }
  },
};

await runIfMain(import.meta.url, llmBench);
