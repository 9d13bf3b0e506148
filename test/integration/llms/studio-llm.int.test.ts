/**
 * StudioLLM against the emulator: the real class, client, transport and server, on loopback.
 */
import { StringOutputParser } from "@langchain/core/output_parsers";
import type { GenerationChunk } from "@langchain/core/outputs";
import { PromptTemplate } from "@langchain/core/prompts";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RecordedRequest } from "../../../src/emulator";
import { StudioServerError, StudioStreamError, StudioValidationError } from "../../../src/errors";
import { StudioLLM, type StudioLLMFields } from "../../../src/llms";
import { useEmulator } from "../../helpers/emulator";
import { useInstantRetries } from "../../unit/client/retry-clock";

const MODEL = "studio/echo-text";
const emulator = useEmulator();
// The pauses between retries pass on the retry clock, at once, and are recorded.
const clock = useInstantRetries();

function makeLLM(fields: Partial<StudioLLMFields> = {}): StudioLLM {
  const { apiKey, proxyUrl } = emulator.handle;
  return new StudioLLM({ model: MODEL, apiKey, proxyUrl, ...fields });
}

function completionRequests(): RecordedRequest[] {
  return emulator.handle.requests.filter((r) => r.path.endsWith("/text/completions"));
}

afterEach(() => {
  emulator.handle.setFaults(undefined);
  emulator.handle.clearRequests();
  vi.unstubAllEnvs();
});

describe("StudioLLM on the emulator", () => {
  it("invoke returns the scripted completion", async () => {
    await expect(makeLLM().invoke("Hello there")).resolves.toBe("You said: Hello there");
    expect(completionRequests()).toHaveLength(1);
    expect(completionRequests()[0]?.body).toEqual({ model: MODEL, prompt: "Hello there" });
  });

  it("reads the key and the address from the environment, as the client does", async () => {
    vi.stubEnv("STUDIO_API_KEY", emulator.handle.apiKey);
    vi.stubEnv("STUDIO_PROXY_URL", emulator.handle.proxyUrl);
    await expect(new StudioLLM({ model: MODEL }).invoke("env")).resolves.toBe("You said: env");
  });

  it("a batch of prompts with n = 2 gives 2 generations each and the summed usage", async () => {
    const prompts = ["one", "two words", "three little words", "and a fourth, somewhat longer"];
    const llm = makeLLM({ n: 2, maxConcurrency: 2 });
    const result = await llm.generate(prompts);

    expect(result.generations).toHaveLength(prompts.length);
    for (const [i, prompt] of prompts.entries()) {
      const generations = result.generations[i] ?? [];
      expect(generations).toHaveLength(2);
      for (const generation of generations) {
        expect(generation.text).toBe(`You said: ${prompt}`);
        expect(generation.generationInfo).toMatchObject({
          finish_reason: "stop",
          model_name: MODEL,
          model_provider: "studio",
        });
      }
    }

    // The same prompts straight through a client give the emulator's own usage figures.
    const { StudioClient } = await import("../../../src/client");
    const client = new StudioClient({
      apiKey: emulator.handle.apiKey,
      proxyUrl: emulator.handle.proxyUrl,
    });
    const usages = await Promise.all(
      prompts.map(
        async (prompt) => (await client.textCompletion({ model: MODEL, prompt, n: 2 })).usage,
      ),
    );
    await client.close();
    expect(result.llmOutput?.tokenUsage).toEqual({
      promptTokens: usages.reduce((s, u) => s + (u?.prompt_tokens ?? 0), 0),
      completionTokens: usages.reduce((s, u) => s + (u?.completion_tokens ?? 0), 0),
      totalTokens: usages.reduce((s, u) => s + (u?.total_tokens ?? 0), 0),
    });
  });

  it("batch() runs every input and keeps their order", async () => {
    const inputs = Array.from({ length: 6 }, (_, i) => `prompt ${i}`);
    const outputs = await makeLLM().batch(inputs, { maxConcurrency: 3 });
    expect(outputs).toEqual(inputs.map((p) => `You said: ${p}`));
  });

  it("streams the completion token by token", async () => {
    const pieces: string[] = [];
    for await (const piece of await makeLLM().stream("stream me please")) pieces.push(piece);
    expect(pieces.join("")).toBe("You said: stream me please");
    expect(pieces.length).toBeGreaterThan(3);
    expect(completionRequests()[0]?.body).toMatchObject({ stream: true });
  });

  it("the last streamed chunk carries the finish reason and the usage", async () => {
    const chunks: GenerationChunk[] = [];
    for await (const chunk of makeLLM()._streamResponseChunks("count me", {})) chunks.push(chunk);
    expect(chunks.at(-1)?.generationInfo).toMatchObject({
      finish_reason: "stop",
      tokenUsage: { promptTokens: 2, completionTokens: 5, totalTokens: 7 },
    });
  });

  it("streams ask for usage (stream_options); streamUsage: false asks for none and gets none", async () => {
    for await (const _ of makeLLM()._streamResponseChunks("count me", {})) {
      // read it all
    }
    expect(completionRequests()[0]?.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
    emulator.handle.clearRequests();
    const chunks: GenerationChunk[] = [];
    for await (const chunk of makeLLM({ streamUsage: false })._streamResponseChunks(
      "count me",
      {},
    )) {
      chunks.push(chunk);
    }
    expect(completionRequests()[0]?.body).not.toHaveProperty("stream_options");
    expect(chunks.at(-1)?.generationInfo?.tokenUsage).toBeUndefined();
  });

  it("the generations name the model, its provider and the finish reason", async () => {
    const result = await makeLLM().generate(["hi"]);
    expect(result.generations[0]?.[0]?.generationInfo).toEqual({
      model_provider: "studio",
      model: MODEL,
      model_name: MODEL,
      finish_reason: "stop",
    });
  });

  it("streaming: true gives the same generations and usage as a plain call", async () => {
    const prompts = ["alpha", "beta gamma"];
    const tokens: string[] = [];
    const streamed = await makeLLM({ streaming: true, n: 2 }).generate(prompts, {
      callbacks: [{ handleLLMNewToken: (token: string) => void tokens.push(token) }],
    });
    const plain = await makeLLM({ n: 2 }).generate(prompts);
    expect(streamed.generations).toEqual(plain.generations);
    expect(streamed.llmOutput).toEqual(plain.llmOutput);
    expect(tokens.join("")).toBe(
      prompts.flatMap((p) => [`You said: ${p}`, `You said: ${p}`]).join(""),
    );
  });

  it("stop cuts at the first stop string", async () => {
    const result = await makeLLM({ stop: [" said"] }).generate(["anything"]);
    expect(result.generations[0]?.[0]?.text).toBe("You");
    expect(result.generations[0]?.[0]?.generationInfo?.finish_reason).toBe("stop");
    expect(completionRequests()[0]?.body).toMatchObject({ stop: [" said"] });
  });

  it("maxTokens ends with finish reason length, as a call option too", async () => {
    const result = await makeLLM().generate(["one two three"], { maxTokens: 3 });
    expect(result.generations[0]?.[0]).toMatchObject({
      text: "You said:",
      generationInfo: { finish_reason: "length" },
    });
  });

  it("echo returns the prompt followed by the completion", async () => {
    await expect(makeLLM({ echo: true }).invoke("Repeat: ")).resolves.toBe(
      "Repeat: You said: Repeat: ",
    );
    let streamed = "";
    for await (const piece of await makeLLM().stream("Hi. ", { echo: true })) streamed += piece;
    expect(streamed).toBe("Hi. You said: Hi. ");
  });

  it("a prompt template piped into StudioLLM piped into a string parser", async () => {
    const chain = PromptTemplate.fromTemplate("Tell me about {topic}.")
      .pipe(makeLLM())
      .pipe(new StringOutputParser());
    await expect(chain.invoke({ topic: "otters" })).resolves.toBe(
      "You said: Tell me about otters.",
    );
    const pieces: string[] = [];
    for await (const piece of await chain.stream({ topic: "owls" })) pieces.push(piece);
    expect(pieces.join("")).toBe("You said: Tell me about owls.");
  });

  it("rejects invalid values before sending anything", async () => {
    await expect(makeLLM().invoke("x", { temperature: 5 })).rejects.toBeInstanceOf(
      StudioValidationError,
    );
    expect(completionRequests()).toHaveLength(0);
  });

  it("retries in one layer: maxRetries 2 against a server always answering 503 is 3 attempts", async () => {
    emulator.handle.setFaults({ rate503Before: 1, match: "/text/completions" });
    await expect(makeLLM({ maxRetries: 2 }).invoke("x")).rejects.toBeInstanceOf(StudioServerError);
    expect(completionRequests()).toHaveLength(3);
    // The retries waited on the client's backoff (the emulator's 503 has no Retry-After):
    // 0.5 s, then 1 s, each less up to 25% jitter, passed at once on the retry clock.
    expect(clock.sleeps).toHaveLength(2);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(375);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(500);
    expect(clock.sleeps[1]).toBeGreaterThanOrEqual(750);
    expect(clock.sleeps[1]).toBeLessThanOrEqual(1000);
  });

  it("a stream the server cuts raises StudioStreamError", async () => {
    emulator.handle.setFaults({ streamCut: 1, match: "/text/completions" });
    const read = async () => {
      for await (const _ of await makeLLM({ maxRetries: 0 }).stream("a b c d e f g h i j k l")) {
        // keep reading
      }
    };
    await expect(read()).rejects.toBeInstanceOf(StudioStreamError);
  });
});

describe("StudioLLM: abort", () => {
  const slow = useEmulator({ chunkDelayMs: 20 });

  it("aborting mid-stream stops the stream with an error", async () => {
    const llm = new StudioLLM({
      model: MODEL,
      apiKey: slow.handle.apiKey,
      proxyUrl: slow.handle.proxyUrl,
    });
    const controller = new AbortController();
    const prompt = Array.from({ length: 50 }, (_, i) => `word${i}`).join(" ");
    const pieces: string[] = [];
    const read = async () => {
      for await (const piece of await llm.stream(prompt, { signal: controller.signal })) {
        pieces.push(piece);
        if (pieces.length === 2) controller.abort();
      }
    };
    const error = await read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe("AbortError");
    // The whole answer is 103 tokens; reading stopped soon after the abort (events already
    // buffered on a loaded machine may still be handed out, hence the loose bound).
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    expect(pieces.length).toBeLessThan(50);
  });

  it("aborting a streaming generate stops it too", async () => {
    const llm = new StudioLLM({
      model: MODEL,
      apiKey: slow.handle.apiKey,
      proxyUrl: slow.handle.proxyUrl,
      streaming: true,
    });
    const controller = new AbortController();
    let tokens = 0;
    const pending = llm.generate(["a b c d e f g h i j k l m n o p q r s t u v w x y z"], {
      signal: controller.signal,
      callbacks: [
        {
          handleLLMNewToken() {
            tokens++;
            if (tokens === 3) controller.abort();
          },
        },
      ],
    });
    const error = await pending.catch((e: unknown) => e);
    expect((error as Error).name).toBe("AbortError");
    // The whole answer is 55 tokens.
    expect(tokens).toBeLessThan(40);
  });
});
