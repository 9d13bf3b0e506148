/**
 * ChatStudio's own cost per call and per streamed chunk, side by side with: a bare undici
 * request, the thinnest possible `BaseChatModel` over bare undici (LangChain's own per-call cost:
 * the floor), and `ChatOpenAI` pointed at the same emulator. Interleaved rounds, one process.
 *
 * The emulator runs in a child process by default, so its work does not land on the measured
 * thread and hide the client-side differences; `--in-process` runs it in this process instead.
 * Ratios against the floor and ChatOpenAI are medians of per-round ratios (see `pairedRatioRow`).
 * The ceilings are against ChatOpenAI; the floor rows are context (what LangChain itself costs).
 *
 *   npx tsx bench/chat.ts [--in-process]
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { ChatOpenAI } from "@langchain/openai";
import { Pool } from "undici";
import { ChatStudio } from "../src/chat_models";
import { startEmulator } from "../src/emulator";
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

const MODEL = "studio/echo-small";
/** Ceilings, not targets: ChatStudio's overhead against ChatOpenAI's on the same server. */
const MAX_RATIO_PER_CALL = 0.5;
const MAX_RATIO_PER_CHUNK = 0.75;
const QUESTION = "Hello, how are you today?";
/** "You said: " + 5,000 words and the spaces between them: about 10,000 tokens, one per chunk. */
const LONG_QUESTION = Array.from({ length: 5_000 }, (_, i) => `w${i % 100}`).join(" ");

interface Server {
  proxyUrl: string;
  apiKey: string;
  stop(): Promise<void>;
}

async function startInProcessEmulator(): Promise<Server> {
  const handle = await startEmulator({ port: 0, recordRequests: false });
  return { proxyUrl: handle.proxyUrl, apiKey: handle.apiKey, stop: () => handle.close() };
}

/** One POST with undici on a keep-alive pool; nothing else. */
class BareUndici {
  readonly pool: Pool;
  readonly path: string;
  readonly headers: Record<string, string>;

  constructor(proxyUrl: string, apiKey: string) {
    const url = new URL(proxyUrl);
    this.pool = new Pool(url.origin);
    this.path = `${url.pathname}/chat/completions`;
    this.headers = { "content-type": "application/json", authorization: apiKey };
  }

  async complete(content: string): Promise<string> {
    const response = await this.pool.request({
      method: "POST",
      path: this.path,
      headers: this.headers,
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content }] }),
    });
    const body = (await response.body.json()) as { choices: { message: { content: string } }[] };
    return body.choices[0]?.message.content ?? "";
  }
}

const ROLES: Record<string, string> = { human: "user", ai: "assistant", system: "system" };

/**
 * The floor: the least a `BaseChatModel` can do over bare undici. `_generate` is one request and
 * a JSON parse; `_streamResponseChunks` splits events with an index scan and parses each one.
 */
class FloorChatModel extends BaseChatModel {
  readonly #http: BareUndici;

  constructor(http: BareUndici) {
    super({});
    this.#http = http;
  }

  _llmType(): string {
    return "floor";
  }

  #body(messages: BaseMessage[], stream: boolean): string {
    return JSON.stringify({
      model: MODEL,
      messages: messages.map((m) => ({ role: ROLES[m.type] ?? m.type, content: m.content })),
      stream,
    });
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const response = await this.#http.pool.request({
      method: "POST",
      path: this.#http.path,
      headers: this.#http.headers,
      body: this.#body(messages, false),
    });
    const body = (await response.body.json()) as { choices: { message: { content: string } }[] };
    const text = body.choices[0]?.message.content ?? "";
    return { generations: [{ text, message: new AIMessage(text) }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    _options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const response = await this.#http.pool.request({
      method: "POST",
      path: this.#http.path,
      headers: this.#http.headers,
      body: this.#body(messages, true),
    });
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const bytes of response.body) {
      buffer += decoder.decode(bytes as Uint8Array, { stream: true });
      let start = 0;
      for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n", start)) {
        const data = buffer.slice(start + 6, end);
        start = end + 2;
        if (data === "[DONE]") return;
        const chunk = JSON.parse(data) as { choices: { delta?: { content?: string } }[] };
        const text = chunk.choices[0]?.delta?.content ?? "";
        const generation = new ChatGenerationChunk({ text, message: new AIMessageChunk(text) });
        yield generation;
        await runManager?.handleLLMNewToken(text);
      }
      buffer = buffer.slice(start);
    }
  }
}

async function drain(stream: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const _ of stream) count++;
  return count;
}

export const chatBench: BenchEntry = {
  name: "chat",
  async run(): Promise<BenchRow[]> {
    const inProcess = process.argv.includes("--in-process");
    const server = inProcess ? await startInProcessEmulator() : await startChildEmulator();
    const { proxyUrl, apiKey } = server;
    const bare = new BareUndici(proxyUrl, apiKey);
    const floorHttp = new BareUndici(proxyUrl, apiKey);
    const floor = new FloorChatModel(floorHttp);
    const studio = new ChatStudio({ model: MODEL, apiKey, proxyUrl });
    const openai = new ChatOpenAI({
      model: MODEL,
      apiKey,
      maxRetries: 0,
      configuration: { baseURL: proxyUrl },
    });
    const where = inProcess ? "emulator in process" : "emulator in a child process";
    try {
      const expected = await bare.complete(QUESTION);
      for (const [name, model] of [
        ["floor", floor],
        ["ChatStudio", studio],
        ["ChatOpenAI", openai],
      ] as const) {
        const got = (await model.invoke(QUESTION)).text;
        if (got !== expected) throw new Error(`${name} answered ${got} instead of ${expected}`);
      }
      const chunkCounts = {
        floor: await drain(await floor.stream(LONG_QUESTION)),
        studio: await drain(await studio.stream(LONG_QUESTION)),
        openai: await drain(await openai.stream(LONG_QUESTION)),
      };
      if (chunkCounts.studio < 10_000) {
        throw new Error(`expected about 10,000 chunks per stream, got ${chunkCounts.studio}`);
      }

      const perCall = await measureRounds(
        {
          bare: () => bare.complete(QUESTION),
          floor: () => floor.invoke(QUESTION),
          studio: () => studio.invoke(QUESTION),
          openai: () => openai.invoke(QUESTION),
        },
        { warmup: 1000, rounds: 80, iterations: 50 },
      );
      const perStream = await measureRounds(
        {
          floor: async () => drain(await floor.stream(LONG_QUESTION)),
          studio: async () => drain(await studio.stream(LONG_QUESTION)),
          openai: async () => drain(await openai.stream(LONG_QUESTION)),
        },
        { warmup: 5, rounds: 30, iterations: 1 },
      );
      const perChunk = (name: "floor" | "studio" | "openai") =>
        perStream[name].map((us) => us / chunkCounts[name]);

      return [
        {
          what: `chat: bare undici request (${where})`,
          value: median(perCall.bare),
          unit: "µs/call",
        },
        { what: "chat: floor BaseChatModel.invoke", value: median(perCall.floor), unit: "µs/call" },
        { what: "chat: ChatOpenAI.invoke", value: median(perCall.openai), unit: "µs/call" },
        informational(
          pairedRatioRow(
            "chat: ChatStudio.invoke",
            perCall.studio,
            "µs/call",
            "floor",
            perCall.floor,
            Number.POSITIVE_INFINITY,
          ),
        ),
        pairedRatioRow(
          "chat: ChatStudio.invoke",
          perCall.studio,
          "µs/call",
          "ChatOpenAI",
          perCall.openai,
          MAX_RATIO_PER_CALL,
        ),
        {
          what: `chat: floor stream (${chunkCounts.floor} chunks)`,
          value: median(perChunk("floor")),
          unit: "µs/chunk",
        },
        { what: "chat: ChatOpenAI stream", value: median(perChunk("openai")), unit: "µs/chunk" },
        informational(
          pairedRatioRow(
            "chat: ChatStudio stream",
            perChunk("studio"),
            "µs/chunk",
            "floor",
            perChunk("floor"),
            Number.POSITIVE_INFINITY,
          ),
        ),
        pairedRatioRow(
          "chat: ChatStudio stream",
          perChunk("studio"),
          "µs/chunk",
          "ChatOpenAI",
          perChunk("openai"),
          MAX_RATIO_PER_CHUNK,
        ),
      ];
    } finally {
      await studio.client.close();
      await bare.pool.close();
      await floorHttp.pool.close();
      await server.stop();
    }
  },
};

await runIfMain(import.meta.url, chatBench);
