import { describe, expect, it } from "vitest";
import {
  applyLimits,
  type ChatScriptInput,
  chatReplyText,
  chooseTools,
  estimateTokens,
  fillFromSchema,
  findJsonObject,
  scriptChat,
  scriptText,
  tokenize,
} from "../../../src/emulator/scripted-model";

const base: ChatScriptInput = {
  messages: [],
  tools: [],
  toolChoice: "auto",
  maxTokens: undefined,
  stop: [],
  responseFormat: { type: "text" },
};
const user = (text: string) => ({ role: "user", text });

describe("tokenize", () => {
  it("splits into words and runs of whitespace that join back to the text", () => {
    expect(tokenize("a  b\n\tc ")).toEqual(["a", "  ", "b", "\n\t", "c", " "]);
    expect(tokenize("")).toEqual([]);
    const text = "héllo 🌍  wörld\n";
    expect(tokenize(text).join("")).toBe(text);
  });
});

describe("chatReplyText", () => {
  it("quotes the last user message, with the system prefix cut at 40 code points", () => {
    expect(chatReplyText([user("a"), { role: "assistant", text: "b" }, user("c")])).toBe(
      "You said: c",
    );
    const system = "🌍".repeat(50);
    expect(chatReplyText([{ role: "system", text: system }, user("x")])).toBe(
      `[${"🌍".repeat(40)}] You said: x`,
    );
    expect(chatReplyText([{ role: "developer", text: "dev" }, user("x")])).toBe(
      "[dev] You said: x",
    );
    expect(chatReplyText([{ role: "system", text: "s" }])).toBe("[s] You said: ");
  });

  it("quotes tool results after a tool message", () => {
    expect(chatReplyText([user("q"), { role: "tool", text: "42" }])).toBe("Tool said: 42");
    expect(
      chatReplyText([user("q"), { role: "tool", text: "a" }, { role: "tool", text: "b" }]),
    ).toBe("Tool said: a; b");
  });
});

describe("applyLimits", () => {
  it("cuts at the earliest stop string, then at max tokens", () => {
    expect(applyLimits("one two three", undefined, ["three", "two"])).toEqual({
      text: "one ",
      finishReason: "stop",
    });
    expect(applyLimits("one two three", 3, [])).toEqual({
      text: "one two",
      finishReason: "length",
    });
    expect(applyLimits("one two", 3, [])).toEqual({ text: "one two", finishReason: "stop" });
    expect(applyLimits("one two three", 3, ["three"])).toEqual({
      text: "one two",
      finishReason: "length",
    });
    expect(applyLimits("one two three", 5, ["three"])).toEqual({
      text: "one two ",
      finishReason: "stop",
    });
    expect(applyLimits("abc", undefined, [""])).toEqual({ text: "abc", finishReason: "stop" });
  });
});

describe("findJsonObject", () => {
  it("finds the first balanced object that parses, as written", () => {
    expect(findJsonObject('x {"a": {"b": "}"}} y {"c": 1}')).toEqual({
      raw: '{"a": {"b": "}"}}',
      value: { a: { b: "}" } },
    });
    expect(findJsonObject('{not json} then {"ok": true}')?.value).toEqual({ ok: true });
    expect(findJsonObject("no braces")).toBeUndefined();
    expect(findJsonObject("{unclosed")).toBeUndefined();
    expect(findJsonObject('{"esc": "a\\"}b"}')?.value).toEqual({ esc: 'a"}b' });
  });
});

describe("fillFromSchema", () => {
  it("numbers 1, strings x, booleans true, first enum value, recursively", () => {
    expect(
      fillFromSchema({
        type: "object",
        properties: {
          n: { type: "number" },
          i: { type: "integer" },
          s: { type: "string" },
          b: { type: "boolean" },
          e: { type: "string", enum: ["red", "blue"] },
          c: { const: "fixed" },
          a: { type: "array", items: { type: "string" } },
          o: { type: "object", properties: { deep: { type: "boolean" } } },
          nullable: { type: ["string", "null"] },
          union: { anyOf: [{ type: "null" }, { type: "number" }] },
        },
      }),
    ).toEqual({
      n: 1,
      i: 1,
      s: "x",
      b: true,
      e: "red",
      c: "fixed",
      a: ["x"],
      o: { deep: true },
      nullable: "x",
      union: 1,
    });
    expect(fillFromSchema(undefined)).toEqual({});
  });
});

describe("chooseTools", () => {
  const tools = [
    { name: "alpha", parameters: {} },
    { name: "beta", parameters: {} },
  ];
  it("follows the notes' rules", () => {
    const pick = (
      text: string,
      toolChoice: ChatScriptInput["toolChoice"] = "auto",
      extra: ChatScriptInput["messages"] = [],
    ) =>
      chooseTools({ ...base, tools, toolChoice, messages: [user(text), ...extra] }).map(
        (t) => t.name,
      );
    expect(pick("beta then alpha")).toEqual(["beta", "alpha"]);
    expect(pick("alphabet")).toEqual([]);
    expect(pick("hello")).toEqual([]);
    expect(pick("USE it")).toEqual(["alpha"]);
    expect(pick("hello", "required")).toEqual(["alpha"]);
    expect(pick("alpha", { name: "beta" })).toEqual(["beta"]);
    expect(pick("alpha", "none")).toEqual([]);
    expect(pick("alpha", "auto", [{ role: "tool", text: "r" }])).toEqual([]);
    expect(pick("alpha", "required", [{ role: "tool", text: "r" }])).toEqual(["alpha"]);
    expect(chooseTools({ ...base, messages: [user("use alpha")] })).toEqual([]);
  });
});

describe("scriptChat", () => {
  it("answers json_object with the message's JSON as written, else {text}", () => {
    const json = { ...base, responseFormat: { type: "json_object" as const } };
    expect(scriptChat({ ...json, messages: [user('a {"k":  1} b')] }).content).toBe('{"k":  1}');
    expect(scriptChat({ ...json, messages: [user("plain")], maxTokens: 1 }).content).toBe(
      '{"text":"You said: plain"}',
    );
  });

  it("gives tool calls arguments from JSON in the message, compact", () => {
    const choice = scriptChat({
      ...base,
      tools: [{ name: "f", parameters: { type: "object", properties: { q: { type: "string" } } } }],
      messages: [user('f {"q":   "v"}')],
    });
    expect(choice).toEqual({
      content: null,
      toolCalls: [{ name: "f", arguments: '{"q":"v"}' }],
      finishReason: "tool_calls",
    });
  });
});

describe("scriptText and estimateTokens", () => {
  it("echoes the prompt in front of the limited reply", () => {
    expect(scriptText({ prompt: "p", maxTokens: 1, stop: [], echo: true })).toEqual({
      text: "pYou",
      finishReason: "length",
    });
    expect(scriptText({ prompt: "p", maxTokens: undefined, stop: [], echo: false }).text).toBe(
      "You said: p",
    );
  });
  it("counts one token per four characters, at least one", () => {
    expect([0, 1, 4, 5, 8, 9].map(estimateTokens)).toEqual([1, 1, 1, 2, 2, 3]);
  });
});
