import { describe, expect, it } from "vitest";
import type { Model } from "../../../src/api-types";
import { HttpError } from "../../../src/emulator/http-error";
import {
  checkReplies,
  replyChoice,
  replyHttpError,
  replyStreamError,
  replyText,
  ScriptBook,
} from "../../../src/emulator/script";
import type { ChatScriptInput } from "../../../src/emulator/scripted-model";

const MODEL = "studio/echo-small";
const models = [
  { id: "m1", uri: MODEL },
  { id: "m2", uri: "studio/echo-text" },
] as Model[];

const base: ChatScriptInput = {
  messages: [{ role: "user", text: "hi" }],
  tools: [],
  toolChoice: "auto",
  maxTokens: undefined,
  stop: [],
  responseFormat: { type: "text" },
};
const tools = [
  { name: "search", parameters: {} },
  { name: "extract", parameters: {} },
];

describe("checkReplies", () => {
  it("reads a string as a text reply and keeps objects as written", () => {
    const replies = checkReplies(MODEL, [
      "hello",
      { toolCalls: [{ name: "search", args: { q: "x" } }], text: "Looking", delayMs: 5 },
      { structured: null },
      { error: { status: 503, headers: { "retry-after": "1" } } },
      { text: "partial", error: { status: 500, inStream: true }, finishReason: "length" },
    ]);
    expect(replies[0]).toEqual({ text: "hello" });
    expect(replies[2]).toEqual({ structured: null });
    expect(replies).toHaveLength(5);
  });

  it.each([
    [[], "replies must be a non-empty array (one reply per request)"],
    ["hi", "replies must be a non-empty array (one reply per request)"],
    [[3], "replies[0] must be a string or an object (got 3)"],
    [[{}], "replies[0] needs one of text, toolCalls, structured, refusal or error"],
    [[{ delayMs: 10 }], "replies[0] needs one of text, toolCalls, structured, refusal or error"],
    [
      ["ok", { toolcalls: [] }],
      "replies[1].toolcalls is not a known field (known: text, toolCalls, structured, refusal, error, finishReason, delayMs)",
    ],
    [[{ text: 1 }], "replies[0].text must be a string (got 1)"],
    [[{ toolCalls: [] }], "replies[0].toolCalls must be a non-empty array"],
    [
      [{ toolCalls: [{ name: "" }] }],
      'replies[0].toolCalls[0].name must be a non-empty string (got "")',
    ],
    [
      [{ toolCalls: [{ name: "f", args: [1] }] }],
      "replies[0].toolCalls[0].args must be an object or a string (got an array)",
    ],
    [
      [{ toolCalls: [{ name: "f", arguments: "{}" }] }],
      "replies[0].toolCalls[0].arguments is not a known field (known: name, args, id)",
    ],
    [
      [{ toolCalls: [{ name: "f", id: "" }] }],
      "replies[0].toolCalls[0].id must be a non-empty string",
    ],
    [
      [{ structured: 1n }],
      "replies[0].structured must be a JSON value (Do not know how to serialize a BigInt)",
    ],
    [[{ structured: () => 1 }], "replies[0].structured must be a JSON value (got function)"],
    [
      [{ structured: {}, text: "x" }],
      "replies[0].structured stands alone: drop text, toolCalls, refusal and error beside it",
    ],
    [[{ refusal: "" }], 'replies[0].refusal must be a non-empty string (got "")'],
    [[{ refusal: 1 }], "replies[0].refusal must be a non-empty string (got 1)"],
    [
      [{ refusal: "No.", text: "x" }],
      "replies[0].refusal stands alone: drop text, toolCalls, structured and error beside it",
    ],
    [
      [{ refusal: "No.", error: { status: 500 } }],
      "replies[0].refusal stands alone: drop text, toolCalls, structured and error beside it",
    ],
    [
      [{ error: { status: 200 } }],
      "replies[0].error.status must be an HTTP error status 400-599 (got 200)",
    ],
    [[{ error: { status: 500, message: 1 } }], "replies[0].error.message must be a string (got 1)"],
    [
      [{ error: { status: 500, headers: { a: 1 } } }],
      "replies[0].error.headers.a must be a string (got 1)",
    ],
    [
      [{ error: { status: 500, retry: true } }],
      "replies[0].error.retry is not a known field (known: status, message, type, code, param, headers, inStream)",
    ],
    [
      [{ error: { status: 500 }, toolCalls: [{ name: "f" }] }],
      "replies[0].error cannot come with toolCalls",
    ],
    [
      [{ error: { status: 500 }, text: "x" }],
      "replies[0].text comes with an error only when inStream is true (text sent before it)",
    ],
    [
      [{ text: "x", delayMs: -1 }],
      "replies[0].delayMs must be a number of milliseconds >= 0 (got -1)",
    ],
    [[{ text: "x", finishReason: "" }], "replies[0].finishReason must be a non-empty string"],
  ] as [unknown, string][])("refuses case %# (%s)", (replies, problem) => {
    expect(() => checkReplies(MODEL, replies)).toThrow(
      `emulator.script("studio/echo-small"): ${problem}.`,
    );
  });
});

describe("replyChoice", () => {
  it("text: the text, finish_reason stop", () => {
    expect(replyChoice({ text: "Hi there" }, base)).toEqual({
      content: "Hi there",
      toolCalls: [],
      finishReason: "stop",
    });
  });

  it("tool calls: object args as JSON, string args as written, ids kept, text as content", () => {
    const choice = replyChoice(
      {
        text: "Let me look.",
        toolCalls: [
          { name: "search", args: { q: "tea" }, id: "call_a" },
          { name: "broken", args: '{"q":' },
          { name: "bare" },
        ],
      },
      base,
    );
    expect(choice).toEqual({
      content: "Let me look.",
      toolCalls: [
        { name: "search", arguments: '{"q":"tea"}', id: "call_a" },
        { name: "broken", arguments: '{"q":' },
        { name: "bare", arguments: "{}" },
      ],
      finishReason: "tool_calls",
    });
    expect(replyChoice({ toolCalls: [{ name: "bare" }] }, base).content).toBeNull();
  });

  it("finishReason overrides the derived one", () => {
    expect(replyChoice({ text: "cut", finishReason: "length" }, base).finishReason).toBe("length");
  });

  it("structured: JSON text when the request asks for a response_format", () => {
    for (const responseFormat of [
      { type: "json_object" as const },
      { type: "json_schema" as const, schema: {} },
    ]) {
      expect(
        replyChoice(
          { structured: { a: 1 } },
          { ...base, tools, toolChoice: "required", responseFormat },
        ),
      ).toEqual({ content: '{"a":1}', toolCalls: [], finishReason: "stop" });
    }
  });

  it("structured: a call of the named tool, or of the last bound tool when any call is forced", () => {
    const named = replyChoice(
      { structured: { a: 1 } },
      { ...base, tools, toolChoice: { name: "search" } },
    );
    expect(named.toolCalls).toEqual([{ name: "search", arguments: '{"a":1}' }]);
    expect(named).toMatchObject({ content: null, finishReason: "tool_calls" });
    const any = replyChoice({ structured: { a: 1 } }, { ...base, tools, toolChoice: "required" });
    expect(any.toolCalls).toEqual([{ name: "extract", arguments: '{"a":1}' }]);
  });

  it("refusal: null content, the refusal, finish_reason stop, even where a call is forced", () => {
    expect(
      replyChoice(
        { refusal: "I can't help with that." },
        { ...base, tools, toolChoice: "required" },
      ),
    ).toEqual({
      content: null,
      refusal: "I can't help with that.",
      toolCalls: [],
      finishReason: "stop",
    });
  });

  it("structured: JSON text when nothing forces a call", () => {
    expect(replyChoice({ structured: [1, "x"] }, { ...base, tools }).content).toBe('[1,"x"]');
    expect(replyChoice({ structured: "plain" }, base).content).toBe('"plain"');
  });
});

describe("replyText", () => {
  it("text or structured JSON; tool calls cannot answer a text completion", () => {
    expect(replyText({ text: "abc" })).toEqual({ text: "abc", finishReason: "stop" });
    expect(replyText({ structured: { a: [1] }, finishReason: "length" })).toEqual({
      text: '{"a":[1]}',
      finishReason: "length",
    });
    const error = (() => {
      try {
        replyText({ toolCalls: [{ name: "f" }] });
      } catch (e) {
        return e;
      }
    })() as HttpError;
    expect(error).toBeInstanceOf(HttpError);
    expect(error.status).toBe(400);
    expect(error.code).toBe("script_mismatch");
  });

  it("a refusal cannot answer a text completion (it has no refusal field)", () => {
    expect(() => replyText({ refusal: "No." })).toThrow(
      "The scripted reply has a refusal, which a text completion cannot answer",
    );
  });
});

describe("scripted errors", () => {
  it("as a response: the OpenAI-style body, defaults by status, headers kept", () => {
    const plain = replyHttpError({ status: 503 });
    expect(plain.toBody()).toEqual({
      error: {
        message: "Scripted 503 error.",
        type: "server_error",
        code: "service_unavailable",
      },
    });
    const full = replyHttpError({
      status: 429,
      message: "Slow down",
      type: "tokens",
      code: "rate_limit_exceeded",
      param: "model",
      headers: { "retry-after": "2" },
    });
    expect(full.toBody()).toEqual({
      error: { message: "Slow down", type: "tokens", code: "rate_limit_exceeded", param: "model" },
    });
    expect(full.headers).toEqual({ "retry-after": "2" });
  });

  it("in a stream: the status as the event's code", () => {
    expect(replyStreamError({ status: 500, message: "GPU fell over", inStream: true })).toEqual({
      error: { message: "GPU fell over", type: "server_error", code: 500 },
    });
  });
});

describe("ScriptBook", () => {
  it("answers a model's requests in order, records each, then refuses with a 400 saying so", () => {
    const book = new ScriptBook();
    const script = book.set(MODEL, ["one", "two"], models);
    expect(book.take("studio/echo-text", { model: "studio/echo-text" })).toBeUndefined();
    expect(book.take(MODEL, { model: MODEL, prompt: "a" })).toEqual({ text: "one" });
    expect(script.remaining).toBe(1);
    expect(book.take(MODEL, { model: MODEL, prompt: "b" })).toEqual({ text: "two" });
    expect(script.remaining).toBe(0);
    let refused: unknown;
    try {
      book.take(MODEL, { model: MODEL, prompt: "c" });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(HttpError);
    expect((refused as HttpError).status).toBe(400);
    expect((refused as HttpError).code).toBe("script_exhausted");
    expect((refused as HttpError).message).toBe(
      'The script of "studio/echo-small" is used up: its 2 replies answered the requests before this one (request 3). Script one reply per request the code under test makes, or call emulator.reset() to drop the script.',
    );
    expect(script.requests.map((r) => r.prompt)).toEqual(["a", "b", "c"]);
  });

  it("a new script replaces the model's old one; clear() drops them all", () => {
    const book = new ScriptBook();
    const first = book.set(MODEL, ["old"], models);
    const second = book.set(MODEL, ["new"], models);
    expect(book.take(MODEL, { model: MODEL })).toEqual({ text: "new" });
    expect(first.requests).toHaveLength(0);
    expect(second.requests).toHaveLength(1);
    book.set(MODEL, ["again"], models);
    book.clear();
    expect(book.take(MODEL, { model: MODEL })).toBeUndefined();
  });

  it("refuses a model the emulator does not serve, naming those it does", () => {
    expect(() => new ScriptBook().set("acme/none", ["x"], models)).toThrow(
      'emulator.script("acme/none"): no such model; the emulator serves studio/echo-small, studio/echo-text.',
    );
  });
});
