import { describe, expect, it } from "vitest";
import type { TextCompletion, TextCompletionChunk } from "../../../src/api-types";
import {
  convertTextChunkToGenerationChunks,
  convertTextCompletionToGenerations,
  TextStreamAccumulator,
  textGenerationInfo,
} from "../../../src/converters/text-completions";
import { addTokenUsage, convertUsageToTokenUsage } from "../../../src/converters/usage";

const MODEL = "acme/small";

const completion = (choices: TextCompletion["choices"]): TextCompletion => ({
  id: "cmpl-1",
  object: "text_completion",
  created: 1,
  model: "acme/small",
  choices,
  usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
});

const event = (
  choices: TextCompletionChunk["choices"],
  usage?: TextCompletionChunk["usage"],
): TextCompletionChunk => ({ id: "cmpl-1", model: "acme/small", choices, usage });

describe("textGenerationInfo", () => {
  it("names the provider, model and finish reason", () => {
    expect(textGenerationInfo("stop", "acme/small")).toEqual({
      model_provider: "studio",
      model: "acme/small",
      model_name: "acme/small",
      finish_reason: "stop",
    });
  });

  it("leaves out an unknown finish reason", () => {
    expect(textGenerationInfo(null, MODEL)).toEqual({
      model_provider: "studio",
      model: MODEL,
      model_name: MODEL,
    });
  });

  it("names the requested model when the server's answer does not", () => {
    const { model: _omitted, ...withoutModel } = completion([
      { index: 0, text: "x", finish_reason: "stop" },
    ]);
    const [generation] = convertTextCompletionToGenerations(withoutModel, "acme/asked");
    expect(generation?.generationInfo).toMatchObject({
      model: "acme/asked",
      model_name: "acme/asked",
    });
  });
});

describe("convertTextCompletionToGenerations", () => {
  it("returns one generation per choice, in choice order, each with its finish reason", () => {
    const generations = convertTextCompletionToGenerations(
      completion([
        { index: 1, text: "second", finish_reason: "length" },
        { index: 0, text: "first", finish_reason: "stop" },
      ]),
      MODEL,
    );
    expect(generations).toEqual([
      {
        text: "first",
        generationInfo: {
          model_provider: "studio",
          model: "acme/small",
          model_name: "acme/small",
          finish_reason: "stop",
        },
      },
      {
        text: "second",
        generationInfo: {
          model_provider: "studio",
          model: "acme/small",
          model_name: "acme/small",
          finish_reason: "length",
        },
      },
    ]);
  });

  it("returns nothing for a response without choices", () => {
    expect(convertTextCompletionToGenerations(completion([]), MODEL)).toEqual([]);
  });

  it("keeps a refusal a server reports on a text choice in generationInfo.refusal", () => {
    const [generation] = convertTextCompletionToGenerations(
      completion([{ index: 0, text: "", finish_reason: "stop", refusal: "No." }]),
      MODEL,
    );
    expect(generation?.text).toBe("");
    expect(generation?.generationInfo?.refusal).toBe("No.");
  });
});

describe("token usage", () => {
  it("converts the wire usage to camelCase", () => {
    expect(
      convertUsageToTokenUsage({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }),
    ).toEqual({ promptTokens: 1, completionTokens: 2, totalTokens: 3 });
    expect(convertUsageToTokenUsage(null)).toBeUndefined();
    expect(convertUsageToTokenUsage(undefined)).toBeUndefined();
  });

  it("sums, treating a missing side as not reported", () => {
    const a = { promptTokens: 1, completionTokens: 2, totalTokens: 3 };
    const b = { promptTokens: 10, completionTokens: 20, totalTokens: 30 };
    expect(addTokenUsage(a, b)).toEqual({
      promptTokens: 11,
      completionTokens: 22,
      totalTokens: 33,
    });
    expect(addTokenUsage(undefined, b)).toEqual(b);
    expect(addTokenUsage(undefined, b)).not.toBe(b);
    expect(addTokenUsage(a, undefined)).toBe(a);
    expect(addTokenUsage(undefined, undefined)).toBeUndefined();
  });
});

describe("convertTextChunkToGenerationChunks", () => {
  it("gives text-only chunks until a choice finishes", () => {
    const [part] = convertTextChunkToGenerationChunks(
      event([{ index: 0, text: "Hel", finish_reason: null }]),
      MODEL,
    );
    expect(part?.index).toBe(0);
    expect(part?.chunk.text).toBe("Hel");
    expect(part?.chunk.generationInfo).toBeUndefined();
  });

  it("puts the finish reason on the finishing chunk", () => {
    const parts = convertTextChunkToGenerationChunks(
      event([
        { index: 0, text: "lo", finish_reason: "stop" },
        { index: 1, finish_reason: "length" },
      ]),
      MODEL,
    );
    expect(
      parts.map((p) => [p.index, p.chunk.text, p.chunk.generationInfo?.finish_reason]),
    ).toEqual([
      [0, "lo", "stop"],
      [1, "", "length"],
    ]);
  });

  it("gives nothing for a usage-only event", () => {
    expect(
      convertTextChunkToGenerationChunks(
        event([], { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }),
        MODEL,
      ),
    ).toEqual([]);
  });
});

describe("TextStreamAccumulator", () => {
  it("folds interleaved choices into the generations a whole response gives", () => {
    const accumulator = new TextStreamAccumulator(MODEL);
    accumulator.add(event([{ index: 1, text: "B", finish_reason: null }]));
    accumulator.add(event([{ index: 0, text: "A", finish_reason: null }]));
    accumulator.add(event([{ index: 0, text: "a", finish_reason: "stop" }]));
    accumulator.add(event([{ index: 1, text: "b", finish_reason: "length" }]));
    accumulator.add(event([], { prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 }));

    expect(accumulator.generations()).toEqual(
      convertTextCompletionToGenerations(
        completion([
          { index: 0, text: "Aa", finish_reason: "stop" },
          { index: 1, text: "Bb", finish_reason: "length" },
        ]),
        MODEL,
      ),
    );
    expect(accumulator.usage).toEqual({ prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 });
  });

  it("keeps the last usage of a server that repeats its running total, never a sum", () => {
    const accumulator = new TextStreamAccumulator(MODEL);
    accumulator.add(
      event([{ index: 0, text: "a", finish_reason: null }], {
        prompt_tokens: 2,
        completion_tokens: 1,
        total_tokens: 3,
      }),
    );
    accumulator.add(
      event([{ index: 0, text: "b", finish_reason: "stop" }], {
        prompt_tokens: 2,
        completion_tokens: 2,
        total_tokens: 4,
      }),
    );
    expect(accumulator.usage).toEqual({ prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 });
  });

  it("returns each event's chunks for the token callbacks", () => {
    const accumulator = new TextStreamAccumulator(MODEL);
    const parts = accumulator.add(
      event([
        { index: 0, text: "x", finish_reason: null },
        { index: 1, text: "y", finish_reason: null },
      ]),
    );
    expect(parts.map((p) => [p.index, p.chunk.text])).toEqual([
      [0, "x"],
      [1, "y"],
    ]);
    expect(accumulator.usage).toBeUndefined();
  });
});
