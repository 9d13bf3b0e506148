import { describe, expect, it } from "vitest";
import type { ChatCompletionChunk, TextCompletionChunk } from "../../../src/api-types";
import { PATHS } from "../../../src/api-types";
import { useEmulator } from "../../helpers/emulator";
import { inference, parseSse } from "./http";

const emulator = useEmulator();
const MODEL = "studio/echo-small";

async function chatStream(body: Record<string, unknown>) {
  const r = await inference(emulator.handle, PATHS.chatCompletions, {
    model: MODEL,
    stream: true,
    ...body,
  });
  expect(r.status).toBe(200);
  expect(r.headers["content-type"]).toMatch(/^text\/event-stream/);
  expect(r.text.endsWith("data: [DONE]\n\n")).toBe(true);
  return parseSse<ChatCompletionChunk>(r.text);
}

describe("chat streaming", () => {
  it("role chunk, one chunk per token, finish chunk, usage chunk when asked, [DONE]", async () => {
    const { events, done } = await chatStream({
      messages: [{ role: "user", content: "Hi  there" }],
      stream_options: { include_usage: true },
    });
    expect(done).toBe(true);
    const id = events[0]!.id;
    for (const e of events) {
      expect(e).toMatchObject({
        id,
        object: "chat.completion.chunk",
        created: expect.any(Number),
        model: MODEL,
      });
    }
    expect(events[0]!.choices).toEqual([
      { index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null },
    ]);
    const tokens = events.slice(1, -2).map((e) => e.choices[0]!.delta!.content);
    expect(tokens).toEqual(["You", " ", "said:", " ", "Hi", "  ", "there"]);
    for (const e of events.slice(1, -2)) expect(e.choices[0]!.finish_reason).toBeNull();
    expect(events.at(-2)!.choices).toEqual([
      { index: 0, delta: {}, logprobs: null, finish_reason: "stop" },
    ]);
    expect(events.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
    });
  });

  it("sends no usage chunk unless stream_options.include_usage is true", async () => {
    for (const stream_options of [undefined, {}, { include_usage: false }]) {
      const { events } = await chatStream({
        messages: [{ role: "user", content: "Hi" }],
        ...(stream_options ? { stream_options } : {}),
      });
      expect(events.at(-1)!.choices).toEqual([
        { index: 0, delta: {}, logprobs: null, finish_reason: "stop" },
      ]);
      expect(events.some((e) => "usage" in e)).toBe(false);
    }
  });

  it("rejects stream_options that are not an object with a boolean include_usage", async () => {
    for (const stream_options of ["yes", { include_usage: "true" }]) {
      const r = await inference<{ error: { message: string } }>(
        emulator.handle,
        PATHS.chatCompletions,
        { model: MODEL, stream: true, messages: [{ role: "user", content: "Hi" }], stream_options },
      );
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/stream_options/);
    }
  });

  it("streams max_tokens truncation with finish_reason length, and n choices one after another", async () => {
    const { events } = await chatStream({
      messages: [{ role: "user", content: "a b c d" }],
      max_tokens: 3,
      n: 2,
    });
    const byChoice = [0, 1].map((i) => events.filter((e) => e.choices[0]?.index === i));
    for (const chunks of byChoice) {
      expect(chunks[0]!.choices[0]!.delta!.role).toBe("assistant");
      expect(chunks.map((c) => c.choices[0]!.delta?.content ?? "").join("")).toBe("You said:");
      expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("length");
    }
  });

  it("streams tool calls as argument fragments that concatenate to the full arguments", async () => {
    const tools = ["get_weather", "get_time"].map((name) => ({
      type: "function",
      function: {
        name,
        parameters: {
          type: "object",
          properties: { city: { type: "string" }, days: { type: "integer" }, nested: {} },
        },
      },
    }));
    const args = { city: "São Paulo 🌧", days: 10, nested: { deep: [1, 2, 3] } };
    const { events } = await chatStream({
      tools,
      messages: [
        { role: "user", content: `get_weather and get_time with ${JSON.stringify(args)}` },
      ],
    });
    const calls = new Map<
      number,
      { id?: string; type?: string; name?: string; arguments: string; pieces: number }
    >();
    for (const e of events.slice(1, -1)) {
      for (const delta of e.choices[0]!.delta?.tool_calls ?? []) {
        const entry = calls.get(delta.index) ?? { arguments: "", pieces: 0 };
        if (delta.id) {
          // The first fragment of a call carries its id, type and name.
          expect(entry.pieces).toBe(0);
          entry.id = delta.id;
          entry.type = delta.type;
          entry.name = delta.function?.name;
        } else {
          expect(delta.function?.name).toBeUndefined();
        }
        entry.arguments += delta.function?.arguments ?? "";
        entry.pieces += 1;
        calls.set(delta.index, entry);
      }
    }
    expect([...calls.keys()]).toEqual([0, 1]);
    for (const [index, name] of ["get_weather", "get_time"].entries()) {
      const c = calls.get(index)!;
      expect(c).toMatchObject({ id: expect.stringMatching(/^call_\d+$/), type: "function", name });
      expect(c.pieces).toBeGreaterThan(2);
      expect(JSON.parse(c.arguments)).toEqual(args);
    }
    expect(events.at(-1)!.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("streams a 10,000-token reply completely and in order", async () => {
    const words = Array.from({ length: 4_998 }, (_, i) => `w${i}`).join(" ");
    const { events, done } = await chatStream({
      messages: [{ role: "user", content: `${words} ` }],
    });
    expect(done).toBe(true);
    const tokens = events.slice(1, -1).map((e) => e.choices[0]!.delta!.content);
    expect(tokens).toHaveLength(10_000);
    expect(tokens.join("")).toBe(`You said: ${words} `);
  });
});

describe("text streaming", () => {
  it("one chunk per token, a finish chunk, a usage chunk when asked, and [DONE]", async () => {
    const r = await inference(emulator.handle, PATHS.textCompletions, {
      model: MODEL,
      stream: true,
      prompt: "Hi",
      echo: true,
      stream_options: { include_usage: true },
    });
    const { events, done } = parseSse<TextCompletionChunk>(r.text);
    expect(done).toBe(true);
    for (const e of events) expect(e).toMatchObject({ object: "text_completion", model: MODEL });
    const body = events.slice(0, -2);
    expect(body.map((e) => e.choices[0]!.text).join("")).toBe("HiYou said: Hi");
    for (const e of body) expect(e.choices[0]).toMatchObject({ index: 0, finish_reason: null });
    expect(events.at(-2)!.choices).toEqual([
      { index: 0, text: "", logprobs: null, finish_reason: "stop" },
    ]);
    expect(events.at(-1)).toMatchObject({
      choices: [],
      usage: { total_tokens: expect.any(Number) },
    });
  });

  it("ends with the finish chunk when usage is not asked for", async () => {
    const r = await inference(emulator.handle, PATHS.textCompletions, {
      model: MODEL,
      stream: true,
      prompt: "Hi",
    });
    const { events } = parseSse<TextCompletionChunk>(r.text);
    expect(events.at(-1)!.choices).toEqual([
      { index: 0, text: "", logprobs: null, finish_reason: "stop" },
    ]);
    expect(events.some((e) => "usage" in e)).toBe(false);
  });
});
