import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DONE,
  parsePayload,
  SKIP,
  SSEDecoder,
  type SSEEvent,
  SSELineParser,
} from "../../../src/client";
import { ChoiceTracker } from "../../../src/client/stream";
import { StudioStreamError } from "../../../src/errors";
import { collect, failure, intercept, makeClient, PROXY, sse, useNock } from "./helpers";

const encoder = new TextEncoder();

function decodeAll(chunks: Uint8Array[]): SSEEvent[] {
  const decoder = new SSEDecoder();
  const out: SSEEvent[] = [];
  for (const chunk of chunks) out.push(...decoder.decode(chunk));
  out.push(...decoder.end());
  return out;
}

function text(...lines: string[]): SSEEvent[] {
  const parser = new SSELineParser();
  return parser.end(parser.push(lines.join("")));
}

function ev(data: string, event?: string): SSEEvent {
  return { event, data, id: undefined };
}

describe("SSE text -> events", () => {
  it("reads a data line without a colon, an empty one, and other fields starting with data", () => {
    expect(text("data\n\n", "data:\n\n", "data: \n\n", "datum: x\ndata: y\n\n")).toEqual([
      ev(""),
      ev(""),
      ev(""),
      ev("y"),
    ]);
  });

  it("reads data with and without the space after the colon", () => {
    expect(text("data: a\n\n", "data:b\n\n", "data:  c\n\n")).toEqual([ev("a"), ev("b"), ev(" c")]);
  });

  it("accepts LF, CRLF and CR line ends", () => {
    expect(text("data: a\r\n\r\n", "data: b\r\rdata: c\n\n")).toEqual([ev("a"), ev("b"), ev("c")]);
  });

  it("joins multi-line data with \\n and skips comment lines", () => {
    expect(text(": keep-alive\n", "data: one\n", ": note\n", "data: two\n\n")).toEqual([
      ev("one\ntwo"),
    ]);
  });

  it("keeps event names and ids, ignores unknown fields and retry", () => {
    const parser = new SSELineParser();
    const events = parser.push("event: error\nid: 7\nretry: 10\nfoo: bar\ndata: x\n\n");
    expect(events).toEqual([{ event: "error", data: "x", id: "7" }]);
  });

  it("an event without data is not dispatched", () => {
    expect(text("event: ping\n\n", "data: a\n\n")).toEqual([ev("a")]);
  });

  it("delivers the last event even without its blank line", () => {
    expect(text("data: a\n\ndata: [DONE]")).toEqual([ev("a"), ev("[DONE]")]);
  });

  it("a CRLF split across two pushes is one line end", () => {
    const parser = new SSELineParser();
    const out = parser.push("data: a\r");
    parser.push("\n\r", out);
    parser.push("\ndata: b\n\n", out);
    expect(out).toEqual([ev("a"), ev("b")]);
  });

  it("counts comments (keep-alives)", () => {
    const parser = new SSELineParser();
    parser.push(": ping\n: ping\n");
    expect(parser.comments).toBe(2);
  });
});

describe("SSE bytes -> events", () => {
  it("decodes a multi-byte character split across reads", () => {
    const bytes = encoder.encode('data: {"t":"héllo 👋"}\n\n');
    const cut = bytes.indexOf(0xf0) + 2; // inside the 4-byte emoji
    const events = decodeAll([bytes.slice(0, cut), bytes.slice(cut)]);
    expect(events).toEqual([ev('{"t":"héllo 👋"}')]);
  });

  // Lines of a realistic stream, with every tolerated variant mixed in.
  const line = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 12 }).map((s) => `data: ${s.replace(/[\r\n]/g, "")}`),
    fc.string({ unit: "grapheme", maxLength: 12 }).map((s) => `data:${s.replace(/[\r\n]/g, "")}`),
    fc.constantFrom(
      ": comment",
      "event: error",
      "event: ping",
      "id: 1",
      "retry: 5",
      "data: [DONE]",
      "data: é€𝄞",
      "data",
      "data:",
      "data: ",
      "datum: x",
    ),
    fc.constant(""),
  );
  const stream = fc
    .tuple(fc.array(line, { maxLength: 30 }), fc.constantFrom("\n", "\r\n", "\r"))
    .map(([lines, eol]) => encoder.encode(lines.map((l) => l + eol).join("")));

  it("gives the same events for any split of the bytes (property)", () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 20 }), (bytes, rawCuts) => {
        const cuts = [...new Set(rawCuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks: Uint8Array[] = [];
        let from = 0;
        for (const cut of cuts) {
          chunks.push(bytes.slice(from, cut));
          from = cut;
        }
        chunks.push(bytes.slice(from));
        expect(decodeAll(chunks)).toEqual(decodeAll([bytes]));
      }),
      { numRuns: 500 },
    );
  });

  it("byte-at-a-time gives the same events as one read (property)", () => {
    fc.assert(
      fc.property(stream, (bytes) => {
        const single = [...bytes].map((b) => Uint8Array.of(b));
        expect(decodeAll(single)).toEqual(decodeAll([bytes]));
      }),
      { numRuns: 200 },
    );
  });
});

describe("events -> payloads", () => {
  it("recognises [DONE]", () => {
    expect(parsePayload(ev("[DONE]"), "/p")).toBe(DONE);
  });

  it("parses JSON and treats {error} payloads and error events as errors", () => {
    expect(parsePayload(ev('{"id":"x"}'), "/p")).toEqual({ id: "x" });
    expect(parsePayload(ev('{"id":"x","error":null}'), "/p")).toEqual({ id: "x", error: null });
    expect(() => parsePayload(ev('{"error":{"message":"overloaded"}}'), "/p")).toThrow(
      /overloaded/,
    );
    expect(() => parsePayload(ev('{"error":"boom"}'), "/p")).toThrow(StudioStreamError);
    expect(() => parsePayload(ev("went wrong", "error"), "/p")).toThrow(/went wrong/);
    expect(() => parsePayload(ev("{not json"), "/p")).toThrow(/not valid JSON/);
  });

  it("skips events of kinds other than message and error (keep-alive pings)", () => {
    expect(parsePayload(ev('{"type":"ping"}', "ping"), "/p")).toBe(SKIP);
    expect(parsePayload(ev("not JSON at all", "keep-alive"), "/p")).toBe(SKIP);
    expect(parsePayload(ev('{"error":{"message":"x"}}', "heartbeat"), "/p")).toBe(SKIP);
    expect(parsePayload(ev('{"id":"x"}', "message"), "/p")).toEqual({ id: "x" });
    expect(parsePayload(ev("[DONE]", "message"), "/p")).toBe(DONE);
    expect(() => parsePayload(ev('{"message":"boom"}', "error"), "/p")).toThrow(/boom/);
  });

  it("recognises a [DONE] padded with spaces, and never a JSON object", () => {
    expect(parsePayload(ev(" [DONE] "), "/p")).toBe(DONE);
    expect(parsePayload(ev('{"id":"[DONE]"}'), "/p")).toEqual({ id: "[DONE]" });
  });
});

describe("ChoiceTracker", () => {
  it("without [DONE], is whole only when every seen choice finished", () => {
    const t = new ChoiceTracker();
    expect(t.incomplete(false, 1)).toContain("before any choice");
    t.observe([{ index: 0 }, { index: 1 }]);
    t.observe([{ index: 0, finish_reason: "stop" }]);
    expect(t.incomplete(false, 1)).toContain("choice 1");
    t.observe([{ index: 1, finish_reason: "length" }]);
    expect(t.incomplete(false, 1)).toBeUndefined();
  });

  it("[DONE] alone is no answer; [DONE] after a choice is one", () => {
    const t = new ChoiceTracker();
    expect(t.incomplete(true, 1)).toContain("before any choice arrived");
    t.observe([{ index: 0 }]);
    expect(t.incomplete(true, 1)).toBeUndefined();
  });

  it("a request for n choices needs n of them", () => {
    const t = new ChoiceTracker();
    t.observe([{ index: 0, finish_reason: "stop" }]);
    expect(t.incomplete(true, 2)).toContain("asked for 2 choices");
    expect(t.incomplete(false, 2)).toContain("asked for 2 choices");
    t.observe([{ index: 1, finish_reason: "stop" }]);
    expect(t.incomplete(true, 2)).toBeUndefined();
  });
});

describe("streaming calls", () => {
  useNock();
  const body = { model: "owner/model", messages: [{ role: "user" as const, content: "hi" }] };
  const delta = (content: string, finish: string | null = null) => ({
    id: "c",
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  });

  it("ends on [DONE] and ignores what follows", async () => {
    intercept(PROXY, "POST", "/chat/completions", () => [
      200,
      `${sse(delta("a"), delta("b", "stop"), "[DONE]")}data: {"junk":true}\n\n`,
    ]);
    const chunks = await collect(makeClient().streamChatCompletion(body));
    expect(chunks.map((c) => c.choices[0]?.delta?.content)).toEqual(["a", "b"]);
  });

  it("accepts a stream without [DONE] when every choice finished", async () => {
    intercept(PROXY, "POST", "/chat/completions", () => [200, sse(delta("a"), delta("b", "stop"))]);
    expect(await collect(makeClient().streamChatCompletion(body))).toHaveLength(2);
  });

  it("a stream cut before [DONE] and before finish_reason is an error", async () => {
    intercept(PROXY, "POST", "/chat/completions", () => [200, sse(delta("a"), delta("b"))]);
    const seen: string[] = [];
    let error: unknown;
    try {
      for await (const chunk of makeClient().streamChatCompletion(body)) {
        seen.push(chunk.choices[0]?.delta?.content ?? "");
      }
    } catch (e) {
      error = e;
    }
    expect(seen).toEqual(["a", "b"]);
    expect(error).toBeInstanceOf(StudioStreamError);
    expect((error as Error).message).toMatch(/before \[DONE\]/);
  });

  it("a JSON answer to a stream request is an error that says so", async () => {
    intercept(PROXY, "POST", "/chat/completions", () => [
      200,
      { id: "x", choices: [] },
      { "content-type": "application/json" },
    ]);
    const error = await failure(makeClient().streamChatCompletion(body));
    expect(error).toBeInstanceOf(StudioStreamError);
    expect(error.message).toContain("not text/event-stream");
  });

  it("an empty 200 stream is an error", async () => {
    intercept(PROXY, "POST", "/chat/completions", () => [200, ""]);
    const error = await failure(makeClient().streamChatCompletion(body));
    expect(error).toBeInstanceOf(StudioStreamError);
  });

  it("an error payload mid-stream is raised after the chunks before it", async () => {
    intercept(PROXY, "POST", "/chat/completions", () => [
      200,
      sse(delta("a"), { error: { message: "model crashed" } }),
    ]);
    const error = await failure(makeClient().streamChatCompletion(body));
    expect(error).toBeInstanceOf(StudioStreamError);
    expect(error.message).toContain("model crashed");
  });

  it("a chunk of the wrong shape names the field", async () => {
    intercept(PROXY, "POST", "/chat/completions", () => [200, sse({ id: "c", choices: "no" })]);
    const error = await failure(makeClient().streamChatCompletion(body));
    expect(error).toBeInstanceOf(StudioStreamError);
    expect(error.message).toContain("field choices");
  });

  it("skips named events of unknown kinds and gives every chunk", async () => {
    intercept(PROXY, "POST", "/chat/completions", () => [
      200,
      `event: ping\ndata: {"type":"ping"}\n\n${sse(delta("a"))}event: ping\ndata: :)\n\n${sse(
        delta("b", "stop"),
        "[DONE]",
      )}`,
    ]);
    const chunks = await collect(makeClient().streamChatCompletion(body));
    expect(chunks.map((c) => c.choices[0]?.delta?.content)).toEqual(["a", "b"]);
  });

  it("keeps usage from a final chunk with empty choices", async () => {
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
    intercept(PROXY, "POST", "/chat/completions", () => [
      200,
      sse(delta("a", "stop"), { id: "c", choices: [], usage }, "[DONE]"),
    ]);
    const chunks = await collect(makeClient().streamChatCompletion(body));
    expect(chunks[1]?.usage).toEqual(usage);
  });

  it("a non-2xx answer to a stream request is an API error", async () => {
    intercept(PROXY, "POST", "/chat/completions", () => [401, { error: { message: "bad key" } }]);
    const error = await failure(makeClient().streamChatCompletion(body));
    expect(error.name).toBe("StudioAuthenticationError");
  });

  it("is lazy: nothing is sent until iteration starts", async () => {
    const calls = intercept(PROXY, "POST", "/chat/completions", () => [
      200,
      sse(delta("a", "stop")),
    ]);
    const iterable = makeClient().streamChatCompletion(body);
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toHaveLength(0);
    await collect(iterable);
    expect(calls).toHaveLength(1);
  });
});

describe("size of a pending event", () => {
  it("counts what is held for an event that has not ended", () => {
    const decoder = new SSEDecoder();
    decoder.decode(encoder.encode("data: abc\ndata: de"));
    expect(decoder.pending).toBe("abc".length + "data: de".length);
    decoder.decode(encoder.encode("f\n\n"));
    expect(decoder.pending).toBe(0);
  });
});
