import { describe, expect, it } from "vitest";
import {
  applyLimits,
  argumentsFor,
  type ChatScriptInput,
  chatReplyText,
  chooseTools,
  estimateTokens,
  fillFromSchema,
  findJsonObject,
  findJsonObjects,
  fitsSchema,
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

  it("follows local $refs, and honours minItems, minLength and numeric bounds", () => {
    const schema = {
      type: "object",
      properties: {
        item: { $ref: "#/$defs/Item" },
        list: { type: "array", items: { $ref: "#/definitions/Tag" }, minItems: 2 },
        code: { type: "string", minLength: 3 },
        big: { type: "integer", minimum: 5 },
        small: { type: "number", maximum: 0.5 },
      },
      $defs: { Item: { type: "object", properties: { id: { type: "integer" } } } },
      definitions: { Tag: { type: "string", enum: ["a", "b"] } },
    };
    expect(fillFromSchema(schema)).toEqual({
      item: { id: 1 },
      list: ["a", "a"],
      code: "xxx",
      big: 5,
      small: 0.5,
    });
  });
});

describe("findJsonObjects, fitsSchema and argumentsFor", () => {
  const schema = {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer" } },
    required: ["city"],
  };
  it("lists top-level objects only, in order", () => {
    expect(findJsonObjects('{"a": {"b": 1}} x {"c": 2}').map((o) => o.value)).toEqual([
      { a: { b: 1 } },
      { c: 2 },
    ]);
  });
  it("fits when no key is unknown and every required key is present", () => {
    expect(fitsSchema({ city: "Oslo" }, schema)).toBe(true);
    expect(fitsSchema({ city: "Oslo", days: 2 }, schema)).toBe(true);
    expect(fitsSchema({ days: 2 }, schema)).toBe(false);
    expect(fitsSchema({ city: "Oslo", extra: 1 }, schema)).toBe(false);
    expect(fitsSchema({ anything: 1 }, { type: "object" })).toBe(true);
    expect(fitsSchema({ anything: 1 }, undefined)).toBe(true);
  });
  it("takes the first fitting object as written, else fills from the schema", () => {
    expect(argumentsFor('{"zone": 1} {"city":  "Oslo"}', schema).raw).toBe('{"city":  "Oslo"}');
    expect(argumentsFor('{"zone": 1}', schema)).toEqual({
      raw: '{"city":"x","days":1}',
      value: { city: "x", days: 1 },
    });
  });
});

describe("chooseTools", () => {
  const tools = [
    { name: "alpha", parameters: {} },
    { name: "beta", parameters: {} },
  ];
  const called = (...names: string[]) => ({ role: "assistant", text: "", toolCalls: names });
  const result = { role: "tool", text: "r" };
  const pick = (
    text: string,
    toolChoice: ChatScriptInput["toolChoice"] = "auto",
    extra: ChatScriptInput["messages"] = [],
  ) =>
    chooseTools({ ...base, tools, toolChoice, messages: [user(text), ...extra] }).map(
      (t) => t.name,
    );

  it("before any tool result: the named tools, else the forced one, else the first on a hint", () => {
    expect(pick("beta then alpha")).toEqual(["beta", "alpha"]);
    expect(pick("alphabet")).toEqual([]);
    expect(pick("hello")).toEqual([]);
    expect(pick("USE it")).toEqual(["alpha"]);
    expect(pick("hello", "required")).toEqual(["alpha"]);
    expect(pick("hello", { name: "beta" })).toEqual(["beta"]);
    expect(pick("alpha", { name: "beta" })).toEqual(["alpha"]);
    expect(pick("alpha", "none")).toEqual([]);
    expect(chooseTools({ ...base, messages: [user("use alpha")] })).toEqual([]);
  });

  it("after tool results: the next named tool not yet called, else the first uncalled when forced", () => {
    expect(pick("alpha", "auto", [called("alpha"), result])).toEqual([]);
    expect(pick("beta and alpha", "auto", [called("beta"), result])).toEqual(["alpha"]);
    expect(pick("alpha", "required", [called("alpha"), result])).toEqual(["beta"]);
    expect(pick("alpha", { name: "alpha" }, [called("alpha"), result])).toEqual(["beta"]);
    expect(pick("alpha", "required", [called("alpha", "beta"), result, result])).toEqual([]);
  });

  it("counts only the calls made since the last user message", () => {
    const earlier = [user("alpha"), called("alpha"), result, { role: "assistant", text: "done" }];
    const messages = [...earlier, user("alpha again"), called("beta"), result];
    expect(chooseTools({ ...base, tools, messages }).map((t) => t.name)).toEqual(["alpha"]);
  });
});

describe("scriptChat", () => {
  it("answers json_object with the message's JSON as written, else {}", () => {
    const json = { ...base, responseFormat: { type: "json_object" as const } };
    expect(scriptChat({ ...json, messages: [user('a {"k":  1} b')] }).content).toBe('{"k":  1}');
    expect(scriptChat({ ...json, messages: [user("plain")], maxTokens: 1 }).content).toBe("{}");
  });

  it("answers json_schema with the message's fitting JSON, else an object filled from the schema", () => {
    const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
    const json = { ...base, responseFormat: { type: "json_schema" as const, schema } };
    expect(scriptChat({ ...json, messages: [user('{"x": 1} {"n": 2}')] }).content).toBe('{"n": 2}');
    expect(scriptChat({ ...json, messages: [user('{"x": 1}')] }).content).toBe('{"n":1}');
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
