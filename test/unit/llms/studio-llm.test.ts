/**
 * StudioLLM against an in-memory client: conversion, batching, streaming, validation and
 * serialization, with no network at all.
 */
import { inspect } from "node:util";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { GenerationChunk } from "@langchain/core/outputs";
import { describe, expect, it } from "vitest";
import type {
  TextCompletion,
  TextCompletionChunk,
  TextCompletionRequest,
} from "../../../src/api-types";
import { StudioClient } from "../../../src/client";
import type { RequestOptions } from "../../../src/client/options";
import { StudioStreamError, StudioValidationError } from "../../../src/errors";
import { StudioLLM } from "../../../src/llms";

const KEY = "sk-unit-llm-0123456789";

/** Answers like the emulator's scripted model, records every call, counts calls in flight. */
class FakeClient extends StudioClient {
  calls: { body: TextCompletionRequest; options: RequestOptions | undefined }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  /** Events a stream sends; `undefined` means "derive them from the reply". */
  streamEvents: TextCompletionChunk[] | undefined;
  streamError: Error | undefined;

  constructor() {
    super({ apiKey: KEY, proxyUrl: "http://127.0.0.1:1/inference" });
  }

  override async textCompletion(
    body: TextCompletionRequest,
    options?: RequestOptions,
  ): Promise<TextCompletion> {
    this.calls.push({ body, options });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      // Several turns of the event loop, so that concurrent calls overlap.
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      return reply(body);
    } finally {
      this.inFlight--;
    }
  }

  override streamTextCompletion(
    body: TextCompletionRequest,
    options?: RequestOptions,
  ): AsyncIterable<TextCompletionChunk> {
    this.calls.push({ body, options });
    const events = this.streamEvents ?? eventsOf(reply(body));
    const error = this.streamError;
    return (async function* () {
      for (const event of events) {
        await new Promise((resolve) => setImmediate(resolve));
        yield event;
      }
      if (error) throw error;
    })();
  }
}

function reply(body: TextCompletionRequest): TextCompletion {
  const n = body.n ?? 1;
  const text = `${body.echo ? body.prompt : ""}You said: ${body.prompt}`;
  const promptTokens = Math.max(1, Math.ceil(body.prompt.length / 4));
  const completionTokens = Math.max(1, Math.ceil(text.length / 4)) * n;
  return {
    id: "cmpl-x",
    object: "text_completion",
    created: 1,
    model: body.model,
    choices: Array.from({ length: n }, (_, index) => ({
      index,
      text: `${text}${n > 1 ? ` #${index}` : ""}`,
      finish_reason: "stop",
    })),
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}

/** A completion as a stream: each choice in two pieces, interleaved, then usage. */
function eventsOf(completion: TextCompletion): TextCompletionChunk[] {
  const base = { id: completion.id, model: completion.model };
  const events: TextCompletionChunk[] = [];
  for (const choice of completion.choices) {
    events.push({
      ...base,
      choices: [{ index: choice.index, text: choice.text.slice(0, 4), finish_reason: null }],
    });
  }
  for (const choice of completion.choices) {
    events.push({
      ...base,
      choices: [{ index: choice.index, text: choice.text.slice(4), finish_reason: "stop" }],
    });
  }
  events.push({ ...base, choices: [], usage: completion.usage });
  return events;
}

function makeLLM(fields: Partial<ConstructorParameters<typeof StudioLLM>[0]> = {}) {
  const client = new FakeClient();
  const llm = new StudioLLM({ model: "acme/small", client, ...fields });
  return { llm, client };
}

describe("StudioLLM: invoke and generate", () => {
  it("invoke returns the text of the first choice", async () => {
    const { llm, client } = makeLLM();
    await expect(llm.invoke("hi")).resolves.toBe("You said: hi");
    expect(client.calls).toHaveLength(1);
    expect(client.calls[0]?.body).toEqual({ model: "acme/small", prompt: "hi" });
  });

  it("generate gives n generations per prompt, each with its finish reason", async () => {
    const { llm } = makeLLM({ n: 2 });
    const result = await llm.generate(["a", "b", "c"]);
    expect(result.generations).toHaveLength(3);
    for (const [i, prompt] of ["a", "b", "c"].entries()) {
      const generations = result.generations[i] ?? [];
      expect(generations.map((g) => g.text)).toEqual([
        `You said: ${prompt} #0`,
        `You said: ${prompt} #1`,
      ]);
      for (const generation of generations) {
        expect(generation.generationInfo).toMatchObject({
          finish_reason: "stop",
          model_name: "acme/small",
          model_provider: "studio",
        });
      }
    }
  });

  it("sums token usage over the batch", async () => {
    const { llm } = makeLLM({ n: 2 });
    const prompts = ["short", "a longer prompt here"];
    const result = await llm.generate(prompts);
    const expected = prompts
      .map((prompt) => reply({ model: "acme/small", prompt, n: 2 }).usage!)
      .reduce(
        (sum, u) => ({
          promptTokens: sum.promptTokens + u.prompt_tokens,
          completionTokens: sum.completionTokens + u.completion_tokens,
          totalTokens: sum.totalTokens + u.total_tokens,
        }),
        { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      );
    expect(result.llmOutput?.tokenUsage).toEqual(expected);
  });

  it("runs a batch concurrently, no more than maxConcurrency at once", async () => {
    const limited = makeLLM({ maxConcurrency: 2 });
    await limited.llm.generate(["1", "2", "3", "4", "5", "6"]);
    expect(limited.client.calls).toHaveLength(6);
    expect(limited.client.maxInFlight).toBe(2);

    const unlimited = makeLLM();
    await unlimited.llm.generate(["1", "2", "3", "4", "5", "6"]);
    expect(unlimited.client.maxInFlight).toBe(6);
  });

  it("keeps prompt order whatever order the answers come in", async () => {
    const { llm } = makeLLM();
    const result = await llm.generate(["x", "y", "z"]);
    expect(result.generations.map((g) => g[0]?.text)).toEqual([
      "You said: x",
      "You said: y",
      "You said: z",
    ]);
  });

  it("echo returns the prompt followed by the completion", async () => {
    const { llm, client } = makeLLM({ echo: true });
    await expect(llm.invoke("Once ")).resolves.toBe("Once You said: Once ");
    expect(client.calls[0]?.body.echo).toBe(true);
  });

  it("passes the call's signal and maxRetries to the client", async () => {
    const { llm, client } = makeLLM();
    const controller = new AbortController();
    await llm.invoke("hi", { signal: controller.signal, maxRetries: 4 });
    expect(client.calls[0]?.options).toMatchObject({ maxRetries: 4 });
    expect(client.calls[0]?.options?.signal).toBeInstanceOf(AbortSignal);
  });

  it("raises a clear error when the response has no choices", async () => {
    const client = new FakeClient();
    client.textCompletion = async () => ({ id: "x", created: 1, model: "acme/small", choices: [] });
    const llm = new StudioLLM({ model: "acme/small", client });
    await expect(llm.invoke("hi")).rejects.toThrow(/no choices/);
  });
});

describe("StudioLLM: streaming", () => {
  it("stream yields the text in pieces, the finish reason on the last chunk", async () => {
    const { llm, client } = makeLLM();
    const pieces: string[] = [];
    for await (const piece of await llm.stream("hello")) pieces.push(piece);
    expect(pieces.join("")).toBe("You said: hello");
    expect(pieces.length).toBeGreaterThan(1);
    expect(client.calls[0]?.body).toEqual({
      model: "acme/small",
      prompt: "hello",
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("_streamResponseChunks: finish reason and usage on the last chunk, tokens to callbacks", async () => {
    const { llm } = makeLLM();
    const tokens: string[] = [];
    const runManager = {
      handleLLMNewToken: async (token: string) => {
        tokens.push(token);
      },
    } as unknown as CallbackManagerForLLMRun;
    const chunks: GenerationChunk[] = [];
    for await (const chunk of llm._streamResponseChunks("hello", {}, runManager)) {
      chunks.push(chunk);
    }
    expect(chunks.map((c) => c.text).join("")).toBe("You said: hello");
    expect(tokens.join("")).toBe("You said: hello");
    expect(chunks.slice(0, -1).every((c) => c.generationInfo?.finish_reason === undefined)).toBe(
      true,
    );
    expect(chunks.at(-1)?.generationInfo).toMatchObject({
      finish_reason: "stop",
      model_provider: "studio",
      tokenUsage: { promptTokens: 2, totalTokens: expect.any(Number) },
    });
  });

  it("with n > 1 a stream yields choice 0 and reports every choice's tokens", async () => {
    const { llm } = makeLLM({ n: 2 });
    const seen: [string, number | undefined][] = [];
    const runManager = {
      handleLLMNewToken: async (token: string, idx?: { completion: number }) => {
        seen.push([token, idx?.completion]);
      },
    } as unknown as CallbackManagerForLLMRun;
    let text = "";
    for await (const chunk of llm._streamResponseChunks("q", {}, runManager)) text += chunk.text;
    expect(text).toBe("You said: q #0");
    expect(
      seen
        .filter(([, i]) => i === 1)
        .map(([t]) => t)
        .join(""),
    ).toBe("You said: q #1");
  });

  it("streaming: true makes generate stream under the hood, with n and usage", async () => {
    const { llm, client } = makeLLM({ streaming: true, n: 2 });
    const tokens: { token: string; prompt: number; completion: number }[] = [];
    const result = await llm.generate(["a", "b"], {
      callbacks: [
        {
          handleLLMNewToken(token: string, idx: { prompt: number; completion: number }) {
            tokens.push({ token, ...idx });
          },
        },
      ],
    });
    expect(client.calls.every((c) => c.body.stream === true)).toBe(true);
    expect(result.generations.map((g) => g.map((x) => x.text))).toEqual([
      ["You said: a #0", "You said: a #1"],
      ["You said: b #0", "You said: b #1"],
    ]);
    expect(result.generations[1]?.[1]?.generationInfo?.finish_reason).toBe("stop");
    expect(result.llmOutput?.tokenUsage).toMatchObject({ promptTokens: 2 });
    const ofB1 = tokens.filter((t) => t.prompt === 1 && t.completion === 1).map((t) => t.token);
    expect(ofB1.join("")).toBe("You said: b #1");
  });

  it("a cut stream is an error, not a short answer", async () => {
    const { llm, client } = makeLLM();
    client.streamEvents = [
      { id: "x", choices: [{ index: 0, text: "You said", finish_reason: null }] },
    ];
    client.streamError = new StudioStreamError("/text/completions", "ended before [DONE]");
    const read = async () => {
      let text = "";
      for await (const piece of await llm.stream("hi")) text += piece;
      return text;
    };
    await expect(read()).rejects.toBeInstanceOf(StudioStreamError);
  });

  it("an aborted signal stops before any request", async () => {
    const { llm, client } = makeLLM();
    const controller = new AbortController();
    controller.abort();
    await expect(llm.invoke("hi", { signal: controller.signal })).rejects.toThrow();
    const stream = llm._streamResponseChunks("hi", { signal: controller.signal });
    await expect(stream.next()).rejects.toThrow();
    expect(client.calls).toHaveLength(0);
  });
});

describe("StudioLLM: validation", () => {
  it.each([
    [{ temperature: 3 }, "temperature"],
    [{ topP: 0 }, "topP"],
    [{ n: 0 }, "n"],
    [{ maxTokens: 1.5 }, "maxTokens"],
    [{ presencePenalty: Number.NaN }, "presencePenalty"],
    [{ stop: "x" }, "stop"],
    [{ logitBias: { a: "1" } }, "logitBias.a"],
    [{ model: "no-slash" }, "model"],
    [{ echo: "yes" }, "echo"],
    [{ streaming: 1 }, "streaming"],
    [{ maxConcurrency: 0 }, "maxConcurrency"],
    [{ maxConcurrency: 1.5 }, "maxConcurrency"],
  ])("constructor rejects %o naming %s", (fields, field) => {
    const client = new FakeClient();
    const build = () =>
      new StudioLLM({ model: "acme/small", client, ...(fields as Record<string, unknown>) });
    expect(build).toThrow(StudioValidationError);
    try {
      build();
    } catch (error) {
      expect((error as StudioValidationError).field).toBe(field);
    }
  });

  it("requires a model", () => {
    expect(() => new StudioLLM({} as { model: string })).toThrow(/model/);
  });

  it.each([
    [{ temperature: -1 }, "temperature"],
    [{ n: 2.5 }, "n"],
    [{ echo: "no" }, "echo"],
  ])("call option %o is rejected before any request", async (options, field) => {
    const { llm, client } = makeLLM();
    const error = await llm.invoke("hi", options as Record<string, unknown>).catch((e) => e);
    expect(error).toBeInstanceOf(StudioValidationError);
    expect((error as StudioValidationError).field).toBe(field);
    const streamError = await (async () => {
      for await (const _ of await llm.stream("hi", options as Record<string, unknown>)) {
        // nothing arrives
      }
    })().catch((e) => e);
    expect(streamError).toBeInstanceOf(StudioValidationError);
    expect(client.calls).toHaveLength(0);
  });
});

describe("StudioLLM: LangChain conventions", () => {
  it("names itself", () => {
    const { llm } = makeLLM();
    expect(StudioLLM.lc_name()).toBe("StudioLLM");
    expect(llm._llmType()).toBe("studio");
    expect(llm.lc_serializable).toBe(true);
    expect(llm.lc_secrets).toEqual({ apiKey: "STUDIO_API_KEY" });
  });

  it("builds invocation params: call option, else field, then modelKwargs", () => {
    const { llm } = makeLLM({
      temperature: 0.5,
      maxTokens: 10,
      echo: false,
      stop: ["\n"],
      modelKwargs: { seed: 7, top_p: 0.9 },
    });
    expect(llm.invocationParams({ temperature: 0, echo: true, topP: 0.2 })).toEqual({
      model: "acme/small",
      temperature: 0,
      max_tokens: 10,
      top_p: 0.9,
      stop: ["\n"],
      echo: true,
      seed: 7,
    });
  });

  it("gives LangSmith params with model type llm", () => {
    const { llm } = makeLLM({ temperature: 0.3, maxTokens: 20, stop: ["END"] });
    expect(llm.getLsParams({})).toEqual({
      ls_provider: "studio",
      ls_model_name: "acme/small",
      ls_model_type: "llm",
      ls_temperature: 0.3,
      ls_max_tokens: 20,
      ls_stop: ["END"],
    });
  });

  it("identifying params name the model and settings, not the key", () => {
    const llm = new StudioLLM({ model: "acme/small", apiKey: KEY, temperature: 1 });
    expect(llm._identifyingParams()).toEqual({
      model_name: "acme/small",
      model: "acme/small",
      temperature: 1,
    });
  });

  it("serializes the key as a secret reference, never the key", () => {
    const llm = new StudioLLM({
      model: "acme/small",
      apiKey: KEY,
      proxyUrl: "http://127.0.0.1:9/inference",
      temperature: 0.2,
      echo: true,
    });
    const json = JSON.stringify(llm);
    expect(json).not.toContain(KEY);
    const parsed = JSON.parse(json);
    expect(parsed.id).toEqual(["langchain", "llms", "studio", "StudioLLM"]);
    expect(parsed.kwargs).toMatchObject({
      model: "acme/small",
      api_key: { lc: 1, type: "secret", id: ["STUDIO_API_KEY"] },
      temperature: 0.2,
      echo: true,
    });
    expect(JSON.stringify(llm.toJSON())).not.toContain(KEY);
    expect(JSON.stringify(llm.getLsParams({}))).not.toContain(KEY);
    expect(JSON.stringify(llm.invocationParams())).not.toContain(KEY);
    expect(inspect(llm, { depth: 5 })).not.toContain(KEY);
    expect(Object.keys(llm)).not.toContain("apiKey");
  });

  it("does not serialize a given client", () => {
    const { llm } = makeLLM();
    const json = JSON.stringify(llm);
    expect(json).not.toContain(KEY);
    expect(JSON.parse(json).kwargs.client).toBeUndefined();
  });
});
