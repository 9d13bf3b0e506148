import { describe, expect, it } from "vitest";
import type { ChatCompletion, ErrorBody, TextCompletion } from "../../../src/api-types";
import { PATHS } from "../../../src/api-types";
import { useEmulator } from "../../helpers/emulator";
import { call, inference } from "./http";

const emulator = useEmulator();
const MODEL = "studio/echo-small";
const user = (content: string) => ({ role: "user", content });

function chat(body: Record<string, unknown>) {
  return inference<ChatCompletion & ErrorBody>(emulator.handle, PATHS.chatCompletions, {
    model: MODEL,
    ...body,
  });
}
function text(body: Record<string, unknown>) {
  return inference<TextCompletion & ErrorBody>(emulator.handle, PATHS.textCompletions, {
    model: MODEL,
    ...body,
  });
}
async function reply(body: Record<string, unknown>) {
  const r = await chat(body);
  expect(r.status).toBe(200);
  return r.body.choices[0]!;
}

const weather = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather of a city",
    parameters: {
      type: "object",
      properties: {
        city: { type: "string" },
        days: { type: "integer" },
        metric: { type: "boolean" },
        unit: { type: "string", enum: ["celsius", "fahrenheit"] },
        where: { type: "object", properties: { lat: { type: "number" } } },
      },
      required: ["city"],
    },
  },
};
const time = {
  type: "function",
  function: {
    name: "get_time",
    parameters: { type: "object", properties: { zone: { type: "string" } } },
  },
};

describe("completion auth", () => {
  it("accepts X-Org-Id on completions beside the key", async () => {
    for (const path of [PATHS.chatCompletions, PATHS.textCompletions]) {
      const r = await call<ChatCompletion>("POST", `${emulator.handle.proxyUrl}${path}`, {
        body: { model: MODEL, messages: [user("hi")], prompt: "hi" },
        headers: { authorization: emulator.handle.apiKey, "x-org-id": "org-7" },
      });
      expect(r.status).toBe(200);
      expect(emulator.handle.requests.at(-1)?.headers["x-org-id"]).toBe("org-7");
    }
  });

  for (const path of [PATHS.chatCompletions, PATHS.textCompletions]) {
    const body = { model: MODEL, messages: [user("hi")], prompt: "hi" };
    it(`${path}: accepts the raw key and a Bearer key`, async () => {
      const url = `${emulator.handle.proxyUrl}${path}`;
      for (const authorization of [emulator.handle.apiKey, `Bearer ${emulator.handle.apiKey}`]) {
        expect((await call("POST", url, { body, headers: { authorization } })).status).toBe(200);
      }
    });
    it(`${path}: 401 JSON error without a key, with a wrong key, or with the studio header`, async () => {
      const url = `${emulator.handle.proxyUrl}${path}`;
      const cases: Record<string, string>[] = [
        {},
        { authorization: "wrong-key" },
        { authorization: "Bearer wrong-key" },
        { "x-service-key": emulator.handle.apiKey },
      ];
      for (const headers of cases) {
        const r = await call<ErrorBody>("POST", url, { body, headers });
        expect(r.status).toBe(401);
        expect(r.headers["content-type"]).toMatch(/application\/json/);
        expect(r.body.error).toMatchObject({
          type: "authentication_error",
          message: expect.any(String),
        });
        expect(r.text).not.toContain(emulator.handle.apiKey);
      }
    });
  }
});

describe("completion validation", () => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    [
      "temperature below 0",
      { temperature: -0.1 },
      "temperature",
      /^temperature must be between 0 and 2/,
    ],
    [
      "temperature above 2",
      { temperature: 2.1 },
      "temperature",
      /^temperature must be between 0 and 2/,
    ],
    [
      "temperature not a number",
      { temperature: "hot" },
      "temperature",
      /^temperature must be a number/,
    ],
    ["top_p 0", { top_p: 0 }, "top_p", /^top_p must be in \(0, 1\]/],
    ["top_p above 1", { top_p: 1.01 }, "top_p", /^top_p must be in \(0, 1\]/],
    ["n 0", { n: 0 }, "n", /^n must be an integer between 1/],
    ["n fractional", { n: 1.5 }, "n", /^n must be an integer/],
    ["max_tokens 0", { max_tokens: 0 }, "max_tokens", /^max_tokens must be an integer >= 1/],
    ["stop of numbers", { stop: [1] }, "stop", /^stop must be an array of strings/],
    [
      "model without owner",
      { model: "echo-small" },
      "model",
      /^model must be a model uri shaped "<owner>\/<model-name>"/,
    ],
    ["model missing", { model: undefined }, "model", /^model is required/],
    [
      "logit_bias of strings",
      { logit_bias: { "50256": "x" } },
      "logit_bias.50256",
      /must be a number/,
    ],
    ["stream not boolean", { stream: "yes" }, "stream", /^stream must be a boolean/],
    [
      "tools without a name",
      { tools: [{ type: "function", function: {} }] },
      "tools[0].function.name",
      /is required/,
    ],
    [
      "tool_choice naming an unknown tool",
      { tools: [weather], tool_choice: { type: "function", function: { name: "nope" } } },
      "tool_choice.function.name",
      /not among tools/,
    ],
    [
      "response_format of another type",
      { response_format: { type: "xml" } },
      "response_format.type",
      /must be/,
    ],
  ];
  it.each(cases)("chat: %s -> 400 naming the field", async (_name, patch, param, message) => {
    const r = await chat({ messages: [user("hi")], ...patch });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
    expect(r.body.error.message).toMatch(message);
    expect(r.body.error.type).toBe("invalid_request_error");
  });

  it.each([
    ["missing", undefined],
    ["empty", []],
  ])("chat: messages %s -> 400", async (_name, messages) => {
    const r = await chat({ messages });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("messages");
  });

  it("chat: a message without content names its index", async () => {
    const r = await chat({ messages: [user("a"), { role: "user" }] });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("messages[1].content");
  });

  it("accepts the limits themselves", async () => {
    for (const patch of [
      { temperature: 0 },
      { temperature: 2 },
      { top_p: 1 },
      { top_p: 0.0001 },
      { n: 1 },
    ]) {
      expect((await chat({ messages: [user("hi")], ...patch })).status).toBe(200);
    }
  });

  it("answers 404 for a well-formed but unknown model", async () => {
    const r = await chat({ model: "acme/no-such-model", messages: [user("hi")] });
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: "model_not_found", param: "model" });
  });

  it("text: prompt is required and must be a string; sampling is checked as for chat", async () => {
    expect((await text({})).body.error.param).toBe("prompt");
    expect((await text({ prompt: ["a"] })).body.error.param).toBe("prompt");
    const r = await text({ prompt: "x", temperature: 5 });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^temperature must be between 0 and 2/);
  });

  it("answers 400 to malformed JSON", async () => {
    const r = await call<ErrorBody>("POST", `${emulator.handle.proxyUrl}${PATHS.chatCompletions}`, {
      raw: '{"model": "studio/echo-small", "messages": [',
      headers: { authorization: emulator.handle.apiKey },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_json");
  });
});

describe("the scripted model", () => {
  it("replies `You said: <last user message>` with the chat completion shape", async () => {
    const r = await chat({
      messages: [user("first"), { role: "assistant", content: "ok" }, user("Hello there")],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-/),
      object: "chat.completion",
      created: expect.any(Number),
      model: MODEL,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "You said: Hello there" },
          finish_reason: "stop",
        },
      ],
    });
    expect(Number.isInteger(r.body.created)).toBe(true);
  });

  it("prefixes the first 40 characters of the system message", async () => {
    const system = "You are a pirate. Answer every question in pirate speak, always.";
    const choice = await reply({ messages: [{ role: "system", content: system }, user("Hi")] });
    expect(choice.message.content).toBe(`[${system.slice(0, 40)}] You said: Hi`);
  });

  it("reads text content parts", async () => {
    const choice = await reply({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "from" },
            { type: "text", text: "parts" },
          ],
        },
      ],
    });
    expect(choice.message.content).toBe("You said: from parts");
  });

  it("truncates at max_tokens (a token is a word or a run of whitespace) with finish_reason length", async () => {
    const choice = await reply({ messages: [user("one two   three")], max_tokens: 5 });
    // "You" " " "said:" " " "one"
    expect(choice.message.content).toBe("You said: one");
    expect(choice.finish_reason).toBe("length");
    const whole = await reply({ messages: [user("one")], max_tokens: 5 });
    expect(whole).toMatchObject({ message: { content: "You said: one" }, finish_reason: "stop" });
  });

  it("cuts at the first stop string", async () => {
    const choice = await reply({ messages: [user("alpha beta gamma")], stop: ["gamma", "beta"] });
    expect(choice).toMatchObject({
      message: { content: "You said: alpha " },
      finish_reason: "stop",
    });
  });

  it("gives n identical choices", async () => {
    const r = await chat({ messages: [user("hi")], n: 3 });
    expect(r.body.choices.map((c) => [c.index, c.message.content])).toEqual([
      [0, "You said: hi"],
      [1, "You said: hi"],
      [2, "You said: hi"],
    ]);
  });

  it("answers `Tool said: <content>` after tool messages (all of a parallel run)", async () => {
    const call1 = {
      id: "call_a",
      type: "function",
      function: { name: "get_weather", arguments: "{}" },
    };
    const call2 = {
      id: "call_b",
      type: "function",
      function: { name: "get_time", arguments: "{}" },
    };
    const choice = await reply({
      tools: [weather, time],
      messages: [
        user("use get_weather and get_time"),
        { role: "assistant", content: null, tool_calls: [call1, call2] },
        { role: "tool", tool_call_id: "call_a", content: "sunny" },
        { role: "tool", tool_call_id: "call_b", content: "noon" },
      ],
    });
    expect(choice).toMatchObject({
      message: { content: "Tool said: sunny; noon" },
      finish_reason: "stop",
    });
    expect(choice.message.tool_calls ?? []).toEqual([]);
  });

  it("calls every tool named in the message, in the order named, each with the JSON that fits it", async () => {
    const choice = await reply({
      tools: [weather, time],
      messages: [
        user('Please get_time {"zone": "UTC"} and get_weather for {"city": "Paris", "days": 3}'),
      ],
    });
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    const calls = choice.message.tool_calls!;
    expect(calls.map((c) => c.function.name)).toEqual(["get_time", "get_weather"]);
    for (const c of calls) {
      expect(c.id).toMatch(/^call_\d+$/);
      expect(c.type).toBe("function");
    }
    expect(calls.map((c) => JSON.parse(c.function.arguments))).toEqual([
      { zone: "UTC" },
      { city: "Paris", days: 3 },
    ]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
  });

  it("fills a tool's arguments from its schema when no JSON in the message fits it", async () => {
    const choice = await reply({
      tools: [weather, time],
      // Unknown key for get_time, missing required `city` for get_weather.
      messages: [user('get_time and get_weather {"days": 2}')],
    });
    expect(choice.message.tool_calls!.map((c) => JSON.parse(c.function.arguments))).toEqual([
      { zone: "x" },
      { city: "x", days: 1, metric: true, unit: "celsius", where: { lat: 1 } },
    ]);
  });

  it("after tool results, calls the next named tool not yet called, then answers", async () => {
    const called = (name: string, id: string) => ({
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name, arguments: "{}" } }],
    });
    const asked = user("get_time then get_weather");
    const second = await reply({
      tools: [weather, time],
      messages: [
        asked,
        called("get_time", "c1"),
        { role: "tool", tool_call_id: "c1", content: "noon" },
      ],
    });
    expect(second.message.tool_calls!.map((c) => c.function.name)).toEqual(["get_weather"]);
    const third = await reply({
      tools: [weather, time],
      messages: [
        asked,
        called("get_time", "c1"),
        { role: "tool", tool_call_id: "c1", content: "noon" },
        called("get_weather", "c2"),
        { role: "tool", tool_call_id: "c2", content: "sunny" },
      ],
    });
    expect(third).toMatchObject({
      message: { content: "Tool said: sunny" },
      finish_reason: "stop",
    });
  });

  it.each(["required", "any"])(
    "after tool results with tool_choice %s, calls the first tool not yet called (a responseFormat agent's output tool)",
    async (tool_choice) => {
      const output = {
        type: "function",
        function: {
          name: "extract",
          parameters: {
            type: "object",
            properties: { answer: { type: "string" } },
            required: ["answer"],
          },
        },
      };
      const choice = await reply({
        tools: [time, output],
        tool_choice,
        messages: [
          user("what is the get_time?"),
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "c1", type: "function", function: { name: "get_time", arguments: "{}" } },
            ],
          },
          { role: "tool", tool_call_id: "c1", content: "noon" },
        ],
      });
      expect(
        choice.message.tool_calls!.map((c) => [c.function.name, c.function.arguments]),
      ).toEqual([["extract", '{"answer":"x"}']]);
    },
  );

  it("does not match a tool name inside a longer word", async () => {
    const choice = await reply({ tools: [time], messages: [user("what is get_timezone?")] });
    expect(choice.finish_reason).toBe("stop");
  });

  it("fills arguments from the schema when the message has no JSON", async () => {
    const choice = await reply({ tools: [weather], messages: [user("get_weather please")] });
    expect(JSON.parse(choice.message.tool_calls![0]!.function.arguments)).toEqual({
      city: "x",
      days: 1,
      metric: true,
      unit: "celsius",
      where: { lat: 1 },
    });
  });

  it.each([
    ["the word tool", "ask a tool", "auto"],
    ["the word call", "Call something", "auto"],
    ["the word use", "use whatever", "auto"],
    ["tool_choice required", "nothing here", "required"],
  ])("calls the first tool for %s", async (_name, message, tool_choice) => {
    const choice = await reply({ tools: [time, weather], tool_choice, messages: [user(message)] });
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.tool_calls!.map((c) => c.function.name)).toEqual(["get_time"]);
  });

  it("calls the tool tool_choice names, and none with tool_choice none", async () => {
    const named = await reply({
      tools: [time, weather],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      messages: [user("hello")],
    });
    expect(named.message.tool_calls!.map((c) => c.function.name)).toEqual(["get_weather"]);
    const none = await reply({
      tools: [time],
      tool_choice: "none",
      messages: [user("use get_time")],
    });
    expect(none).toMatchObject({
      message: { content: "You said: use get_time" },
      finish_reason: "stop",
    });
  });

  it("answers in text without a reason to call a tool", async () => {
    const choice = await reply({ tools: [weather], messages: [user("hello")] });
    expect(choice).toMatchObject({
      message: { content: "You said: hello" },
      finish_reason: "stop",
    });
  });

  it("json_object: the first JSON object of the last user message, as written", async () => {
    const choice = await reply({
      response_format: { type: "json_object" },
      messages: [user('Extract {"name": "Ada",  "age": 36} and {"other": 1}')],
    });
    expect(choice).toMatchObject({
      message: { content: '{"name": "Ada",  "age": 36}' },
      finish_reason: "stop",
    });
  });

  it("json_object: otherwise {}", async () => {
    const choice = await reply({
      response_format: { type: "json_object" },
      messages: [{ role: "system", content: "Be JSON" }, user("no json {here")],
    });
    expect(choice.message.content).toBe("{}");
  });

  it("json_schema: the message's JSON object that fits the schema, as written", async () => {
    const choice = await reply({
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "person",
          strict: true,
          schema: {
            type: "object",
            properties: { name: { type: "string" }, age: { type: "integer" } },
            required: ["name"],
          },
        },
      },
      messages: [user('{"city": "Oslo"} then {"name": "Ada",  "age": 36}')],
    });
    expect(choice.message.content).toBe('{"name": "Ada",  "age": 36}');
  });

  it.each([
    ["no json_schema", { type: "json_schema" }, "response_format.json_schema"],
    [
      "no name",
      { type: "json_schema", json_schema: { schema: {} } },
      "response_format.json_schema.name",
    ],
    [
      "a schema that is not an object",
      { type: "json_schema", json_schema: { name: "n", schema: "x" } },
      "response_format.json_schema.schema",
    ],
  ])("json_schema with %s is a 400 naming the field", async (_name, response_format, field) => {
    const r = await chat({ response_format, messages: [user("hi")] });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain(field);
  });

  it("json_schema: filled from the schema when the message has no JSON", async () => {
    const choice = await reply({
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "p",
          schema: { type: "object", properties: { name: { type: "string" } } },
        },
      },
      messages: [user("who?")],
    });
    expect(JSON.parse(choice.message.content!)).toEqual({ name: "x" });
  });

  it("reports usage at about one token per four characters, at least one", async () => {
    const r = await chat({ messages: [user("abcdefgh")] });
    // prompt: 8 chars -> 2; completion: "You said: abcdefgh" = 18 chars -> 5
    expect(r.body.usage).toEqual({ prompt_tokens: 2, completion_tokens: 5, total_tokens: 7 });
    const tiny = await text({ prompt: "a", max_tokens: 1 });
    expect(tiny.body.usage).toMatchObject({ prompt_tokens: 1, completion_tokens: 1 });
  });
});

describe("text completion", () => {
  it("replies `You said: <prompt>` in the text form", async () => {
    const r = await text({ prompt: "Hello" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: expect.stringMatching(/^cmpl-/),
      object: "text_completion",
      created: expect.any(Number),
      model: MODEL,
      choices: [{ index: 0, text: "You said: Hello", finish_reason: "stop" }],
      usage: { prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 },
    });
  });

  it("echo prefixes the prompt; max_tokens, stop and n apply to the generated part", async () => {
    expect((await text({ prompt: "Hi.", echo: true })).body.choices[0]!.text).toBe(
      "Hi.You said: Hi.",
    );
    const cut = await text({ prompt: "a b c", echo: true, max_tokens: 3 });
    expect(cut.body.choices[0]).toMatchObject({ text: "a b cYou said:", finish_reason: "length" });
    const stopped = await text({ prompt: "a b c", stop: [" b"] });
    expect(stopped.body.choices[0]).toMatchObject({ text: "You said: a", finish_reason: "stop" });
    const many = await text({ prompt: "x", n: 2 });
    expect(many.body.choices.map((c) => c.index)).toEqual([0, 1]);
  });
});

describe("refused as OpenAI-compatible servers refuse", () => {
  const call = (id: string, name = "get_weather") => ({
    id,
    type: "function",
    function: { name, arguments: "{}" },
  });
  const asks = { role: "assistant", content: null, tool_calls: [call("call_a"), call("call_b")] };
  const result = (id: string) => ({ role: "tool", tool_call_id: id, content: "ok" });
  const UNANSWERED =
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ";
  const ORPHAN =
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";

  async function refused(messages: unknown[]) {
    const r = await chat({ tools: [weather], messages });
    expect(r.status).toBe(400);
    return r.body.error;
  }

  it("tool calls not answered by the tool messages right after them", async () => {
    expect(await refused([user("hi"), asks, result("call_a"), user("and?")])).toEqual({
      message: `${UNANSWERED}call_b`,
      type: "invalid_request_error",
      param: "messages[1].tool_calls",
      code: "invalid_request",
    });
    expect((await refused([user("hi"), asks])).message).toBe(`${UNANSWERED}call_a, call_b`);
    // An answer that comes late, after another message, does not count.
    const late = await refused([user("hi"), asks, result("call_a"), user("x"), result("call_b")]);
    expect(late.message).toBe(`${UNANSWERED}call_b`);
  });

  it("a tool message answering no call of the assistant message before it", async () => {
    expect(await refused([user("hi"), result("call_z")])).toEqual({
      message: ORPHAN,
      type: "invalid_request_error",
      param: "messages[1].tool_call_id",
      code: "invalid_request",
    });
    const twice = [user("hi"), asks, result("call_a"), result("call_b"), result("call_a")];
    expect((await refused(twice)).param).toBe("messages[4].tool_call_id");
  });

  it("answers a conversation whose calls are all answered, in any order", async () => {
    const r = await chat({
      tools: [weather],
      messages: [user("hi"), asks, result("call_b"), result("call_a"), user("thanks")],
    });
    expect(r.status).toBe(200);
  });

  it("a prompt over the model's window: context_length_exceeded with both token counts", async () => {
    // 8192 tokens at four characters each fit; one character more does not.
    const fits = await chat({ messages: [user("a".repeat(8192 * 4))] });
    expect(fits.status).toBe(200);
    const over = await chat({ messages: [user("a".repeat(8192 * 4 - 10)), user("b".repeat(11))] });
    expect(over.status).toBe(400);
    expect(over.body.error).toEqual({
      message:
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 8193 tokens. Please reduce the length of the messages.",
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    });
    const prompt = await text({ prompt: "a".repeat(40_000) });
    expect(prompt.status).toBe(400);
    expect(prompt.body.error).toMatchObject({
      message:
        "This model's maximum context length is 8192 tokens. However, your prompt resulted in 10000 tokens. Please reduce the length of the prompt.",
      code: "context_length_exceeded",
    });
  });
});

describe("strictToolMessages: false", () => {
  const lenient = useEmulator({ strictToolMessages: false });

  it("answers tool calls left unanswered and tool messages answering nothing", async () => {
    const r = await inference<ChatCompletion>(lenient.handle, PATHS.chatCompletions, {
      model: MODEL,
      tools: [weather],
      messages: [
        user("hi"),
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "c1", type: "function", function: { name: "get_weather", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "nope", content: "sunny" },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.choices[0]?.message.content).toBe("Tool said: sunny");
  });
});
