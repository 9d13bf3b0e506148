/**
 * Scripted replies over real HTTP (plain undici, no package client): each reply kind answered as
 * a JSON body and as a stream, in order per model, with the requests recorded on the script.
 */
import { afterEach, describe, expect, it } from "vitest";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ErrorBody,
  TextCompletion,
  TextCompletionChunk,
} from "../../../src/api-types";
import { PATHS } from "../../../src/api-types";
import { startEmulator } from "../../../src/emulator";
import { useEmulator } from "../../helpers/emulator";
import { inference, parseSse } from "./http";

const emulator = useEmulator();
const MODEL = "studio/echo-small";
const user = (content: string) => ({ role: "user", content });
const search = {
  type: "function",
  function: {
    name: "search",
    parameters: { type: "object", properties: { q: { type: "string" } } },
  },
};
const answer = {
  type: "function",
  function: {
    name: "Answer",
    parameters: { type: "object", properties: { a: { type: "number" } } },
  },
};

function chat(body: Record<string, unknown>) {
  return inference<ChatCompletion & ErrorBody>(emulator.handle, PATHS.chatCompletions, {
    model: MODEL,
    messages: [user("hi")],
    ...body,
  });
}
async function chatStream(body: Record<string, unknown>) {
  const r = await inference<string>(emulator.handle, PATHS.chatCompletions, {
    model: MODEL,
    messages: [user("hi")],
    stream: true,
    ...body,
  });
  return { status: r.status, ...parseSse<ChatCompletionChunk & ErrorBody>(r.text) };
}
function text(body: Record<string, unknown>) {
  return inference<TextCompletion & ErrorBody>(emulator.handle, PATHS.textCompletions, {
    model: MODEL,
    prompt: "hi",
    ...body,
  });
}
/** The streamed content of choice 0, joined. */
const streamedText = (events: ChatCompletionChunk[]) =>
  events.map((e) => e.choices[0]?.delta.content ?? "").join("");

afterEach(async () => {
  await emulator.handle.reset();
});

describe("text replies", () => {
  it("answer in order, each request recorded on the script, for JSON and streamed calls", async () => {
    const script = emulator.handle.script(MODEL, ["First answer.", { text: "Second  answer." }]);
    expect(script.remaining).toBe(2);

    const first = await chat({ messages: [user("one")] });
    expect(first.status).toBe(200);
    expect(first.body.choices[0]).toMatchObject({
      message: { role: "assistant", content: "First answer." },
      finish_reason: "stop",
    });
    expect(first.body.usage).toEqual({ prompt_tokens: 1, completion_tokens: 4, total_tokens: 5 });

    const second = await chatStream({ messages: [user("two")] });
    expect(second.done).toBe(true);
    expect(streamedText(second.events)).toBe("Second  answer.");
    expect(second.events.map((e) => e.choices[0]?.delta.content)).toContain("  ");
    expect(second.events.at(-1)?.choices[0]?.finish_reason).toBe("stop");

    expect(script.remaining).toBe(0);
    expect(script.requests.map((r) => r.messages?.[0]?.content)).toEqual(["one", "two"]);
    expect(script.requests[1]).toMatchObject({ model: MODEL, stream: true });
  });

  it("finishReason is sent as scripted", async () => {
    emulator.handle.script(MODEL, [{ text: "cut sho", finishReason: "length" }]);
    expect((await chat({})).body.choices[0]?.finish_reason).toBe("length");
  });

  it("only the scripted model follows the script; the others still echo", async () => {
    emulator.handle.script(MODEL, ["scripted"]);
    const other = await chat({ model: "studio/echo-large", messages: [user("plain")] });
    expect(other.body.choices[0]?.message.content).toBe("You said: plain");
    expect((await chat({})).body.choices[0]?.message.content).toBe("scripted");
  });
});

describe("tool-call replies", () => {
  it("answer the calls with the scripted ids, else numbered ones, and the text beside them", async () => {
    emulator.handle.script(MODEL, [
      {
        text: "Searching.",
        toolCalls: [
          { name: "search", args: { q: "tea" }, id: "call_tea" },
          { name: "search", args: '{"q": "cof' },
        ],
      },
    ]);
    const r = await chat({ tools: [search] });
    expect(r.body.choices[0]).toMatchObject({
      message: {
        content: "Searching.",
        tool_calls: [
          {
            id: "call_tea",
            type: "function",
            function: { name: "search", arguments: '{"q":"tea"}' },
          },
          {
            id: expect.stringMatching(/^call_\d+$/),
            type: "function",
            function: { name: "search", arguments: '{"q": "cof' },
          },
        ],
      },
      finish_reason: "tool_calls",
    });
  });

  it("stream as an id chunk per call, then argument fragments", async () => {
    emulator.handle.script(MODEL, [
      { toolCalls: [{ name: "search", args: { q: "a long search phrase" }, id: "call_x" }] },
    ]);
    const { events, done } = await chatStream({ tools: [search] });
    expect(done).toBe(true);
    const deltas = events.flatMap((e) => e.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toEqual({
      index: 0,
      id: "call_x",
      type: "function",
      function: { name: "search", arguments: "" },
    });
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((d) => d.function?.arguments).join("")).toBe('{"q":"a long search phrase"}');
    expect(events.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls");
  });
});

describe("structured replies", () => {
  const value = { a: 42 };

  it("are the content when the request asks for a response_format", async () => {
    emulator.handle.script(MODEL, [{ structured: value }, { structured: value }]);
    const schema = { type: "json_schema", json_schema: { name: "Answer", schema: {} } };
    const r = await chat({ response_format: schema, tools: [search], tool_choice: "required" });
    expect(r.body.choices[0]?.message).toMatchObject({ content: '{"a":42}' });
    const streamed = await chatStream({ response_format: { type: "json_object" } });
    expect(JSON.parse(streamedText(streamed.events))).toEqual(value);
  });

  it("are the forced tool's arguments when the request forces a call", async () => {
    emulator.handle.script(MODEL, [{ structured: value }, { structured: value }]);
    const named = await chat({
      tools: [answer, search],
      tool_choice: { type: "function", function: { name: "Answer" } },
    });
    expect(named.body.choices[0]?.message.tool_calls?.[0]?.function).toEqual({
      name: "Answer",
      arguments: '{"a":42}',
    });
    // LangChain binds its structured-output tool last and forces "any" call.
    const any = await chat({ tools: [search, answer], tool_choice: "any" });
    expect(any.body.choices[0]?.message.tool_calls?.[0]?.function.name).toBe("Answer");
  });
});

describe("refusal replies", () => {
  const refusal = "I can't help with that request.";

  it("answer null content and message.refusal, finish_reason stop", async () => {
    emulator.handle.script(MODEL, [{ refusal }]);
    const r = await chat({});
    expect(r.status).toBe(200);
    expect(r.body.choices[0]).toEqual({
      index: 0,
      message: { role: "assistant", content: null, refusal },
      logprobs: null,
      finish_reason: "stop",
    });
  });

  it("stream as delta.refusal slices after a null-content role chunk, no content", async () => {
    emulator.handle.script(MODEL, [{ refusal }]);
    const { events, done } = await chatStream({});
    expect(done).toBe(true);
    const deltas = events.map((e) => e.choices[0]?.delta as Record<string, unknown> | undefined);
    expect(deltas[0]).toEqual({ role: "assistant", content: null, refusal: "" });
    const slices = deltas.map((d) => d?.refusal).filter((x) => typeof x === "string");
    expect(slices.length).toBeGreaterThan(2);
    expect(slices.join("")).toBe(refusal);
    expect(streamedText(events)).toBe("");
    expect(events.at(-1)?.choices[0]?.finish_reason).toBe("stop");
  });

  it("answer a forced structured-output call too, and text completions get a 400", async () => {
    emulator.handle.script(MODEL, [{ refusal }, { refusal }]);
    const forced = await chat({ tools: [answer], tool_choice: "required" });
    expect(forced.body.choices[0]?.message).toEqual({ role: "assistant", content: null, refusal });
    const t = await text({});
    expect(t.status).toBe(400);
    expect(t.body.error.code).toBe("script_mismatch");
  });
});

describe("error replies", () => {
  it("answer the status with an OpenAI-style body and the scripted headers", async () => {
    emulator.handle.script(MODEL, [
      { error: { status: 429, message: "Slow down.", headers: { "retry-after": "3" } } },
      { error: { status: 500 } },
    ]);
    const limited = await chat({});
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toBe("3");
    expect(limited.body).toEqual({
      error: { message: "Slow down.", type: "rate_limit_error", code: "rate_limit_exceeded" },
    });
    // A streamed request gets the status too: servers refuse before the stream starts.
    const failed = await inference<ErrorBody>(emulator.handle, PATHS.chatCompletions, {
      model: MODEL,
      messages: [user("hi")],
      stream: true,
    });
    expect(failed.status).toBe(500);
    expect(failed.body.error).toMatchObject({
      message: "Scripted 500 error.",
      type: "server_error",
    });
  });

  it("inStream: a 200 stream with the text, an error event with the status as code, then [DONE]", async () => {
    const reply = {
      text: "Half an",
      error: { status: 503, message: "Overloaded.", inStream: true },
    };
    emulator.handle.script(MODEL, [reply, reply]);
    const { status, events, done } = await chatStream({});
    expect(status).toBe(200);
    expect(done).toBe(true);
    expect(streamedText(events.slice(0, -1))).toBe("Half an");
    expect(events.at(-1)).toEqual({
      error: { message: "Overloaded.", type: "server_error", code: 503 },
    });
    expect(events.some((e) => e.choices?.[0]?.finish_reason)).toBe(false);
    // Not streamed, the same reply is the status.
    expect((await chat({})).status).toBe(503);
  });

  it("a reply's delay comes before the answer", async () => {
    emulator.handle.script(MODEL, [{ text: "late", delayMs: 150 }]);
    const started = performance.now();
    const r = await chat({});
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(r.body.choices[0]?.message.content).toBe("late");
  });
});

describe("script bookkeeping", () => {
  it("a used-up script answers a 400 saying so, and records that request too", async () => {
    const script = emulator.handle.script(MODEL, ["only"]);
    await chat({});
    const extra = await chat({ messages: [user("again")] });
    expect(extra.status).toBe(400);
    expect(extra.body.error).toMatchObject({ code: "script_exhausted" });
    expect(extra.body.error.message).toContain('The script of "studio/echo-small" is used up');
    expect(script.requests).toHaveLength(2);
  });

  it("a request the server refuses takes no reply", async () => {
    const script = emulator.handle.script(MODEL, ["kept"]);
    expect((await chat({ temperature: 5 })).status).toBe(400);
    expect(script.remaining).toBe(1);
    expect(script.requests).toHaveLength(0);
    expect((await chat({})).body.choices[0]?.message.content).toBe("kept");
  });

  it("n choices all carry the reply", async () => {
    emulator.handle.script(MODEL, ["same"]);
    const r = await chat({ n: 2 });
    expect(r.body.choices.map((c) => c.message.content)).toEqual(["same", "same"]);
  });

  it("reset() drops scripts; a new script replaces the model's old one", async () => {
    const old = emulator.handle.script(MODEL, ["old"]);
    emulator.handle.script(MODEL, ["new"]);
    expect((await chat({})).body.choices[0]?.message.content).toBe("new");
    expect(old.requests).toHaveLength(0);
    emulator.handle.script(MODEL, ["dropped"]);
    await emulator.handle.reset();
    expect((await chat({ messages: [user("echo")] })).body.choices[0]?.message.content).toBe(
      "You said: echo",
    );
  });

  it("script() refuses bad replies and unknown models where they are written", () => {
    expect(() => emulator.handle.script(MODEL, [{ toolCalls: [{ name: "" }] }])).toThrow(
      'emulator.script("studio/echo-small"): replies[0].toolCalls[0].name must be a non-empty string (got "").',
    );
    expect(() => emulator.handle.script("acme/nothing", ["x"])).toThrow(/no such model/);
  });

  it("an emulator forwarding to an upstream has no scripts", async () => {
    const forwarding = await startEmulator({ upstream: "http://127.0.0.1:9" });
    try {
      expect(() => forwarding.script(MODEL, ["x"])).toThrow(/forwards completions to `upstream`/);
    } finally {
      await forwarding.close();
    }
  });
});

describe("text completions", () => {
  it("take text and structured replies, plain and streamed; a tool-call reply is a 400", async () => {
    emulator.handle.script(MODEL, [
      "Plain text.",
      { structured: { a: 1 } },
      { text: "Streamed text." },
      { text: "Cut", error: { status: 500, inStream: true } },
      { toolCalls: [{ name: "search" }] },
    ]);
    expect((await text({})).body.choices[0]).toMatchObject({
      text: "Plain text.",
      finish_reason: "stop",
    });
    expect((await text({})).body.choices[0]?.text).toBe('{"a":1}');

    const streamed = await inference<string>(emulator.handle, PATHS.textCompletions, {
      model: MODEL,
      prompt: "hi",
      stream: true,
    });
    const { events, done } = parseSse<TextCompletionChunk>(streamed.text);
    expect(done).toBe(true);
    expect(events.map((e) => e.choices[0]?.text).join("")).toBe("Streamed text.");

    const cut = await inference<string>(emulator.handle, PATHS.textCompletions, {
      model: MODEL,
      prompt: "hi",
      stream: true,
    });
    const failed = parseSse<TextCompletionChunk & ErrorBody>(cut.text);
    expect(failed.events.at(-1)).toMatchObject({ error: { code: 500 } });

    const mismatch = await text({});
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toMatchObject({ code: "script_mismatch" });
  });
});
