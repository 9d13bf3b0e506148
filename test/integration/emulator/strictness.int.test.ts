/**
 * The strictness table (docs/emulator.md, "Strict where servers are strict"): each request an
 * OpenAI-compatible server refuses gets its 400 here too, with OpenAI's error body, before any
 * scripted reply is taken; and the nearest request a server accepts still passes, so the rule is
 * no wider than the server's. Run in process: the rules live in the pipeline, not the transport
 * (in-process.test.ts shows the two answer alike).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PATHS } from "../../../src/api-types";
import { createInProcessEmulator, type EmulatorHandle } from "../../../src/emulator";

const MODEL = "studio/echo-small";
const user = (content: string) => ({ role: "user", content });
const fn = (name: string) => ({
  type: "function",
  function: { name, parameters: { type: "object", properties: {} } },
});
const call = (id: string, name = "get_weather") => ({
  id,
  type: "function",
  function: { name, arguments: "{}" },
});

let emulator: EmulatorHandle;
let lenient: EmulatorHandle;
beforeAll(async () => {
  emulator = await createInProcessEmulator();
  lenient = await createInProcessEmulator({ strictToolMessages: false });
});
afterAll(async () => {
  await emulator.close();
  await lenient.close();
});
afterEach(async () => {
  await emulator.reset();
});

async function send(
  body: Record<string, unknown>,
  options: { on?: EmulatorHandle; path?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const on = options.on ?? emulator;
  const response = await on.fetch(`${on.proxyUrl}${options.path ?? PATHS.chatCompletions}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: on.apiKey },
    body: JSON.stringify({ model: MODEL, messages: [user("hi")], ...body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text.startsWith("data: ") ? { stream: text } : JSON.parse(text),
  };
}

/** Sends `body` with a script set: refused with exactly `error`, and no reply was taken. */
async function expectRefused(
  body: Record<string, unknown>,
  error: { message: string; param: string; code: string },
  path?: string,
) {
  const script = emulator.script(MODEL, ["scripted"]);
  const r = await send(body, path === undefined ? {} : { path });
  expect(r.status).toBe(400);
  expect(r.body).toEqual({ error: { ...error, type: "invalid_request_error" } });
  expect(script.remaining).toBe(1);
  await emulator.reset();
}

async function expectAccepted(body: Record<string, unknown>, on?: EmulatorHandle) {
  const r = await send(body, on === undefined ? {} : { on });
  expect(r.body).not.toHaveProperty("error");
  expect(r.status).toBe(200);
}

describe("strict where servers are strict", () => {
  it("a message with an unknown role (OpenAI)", async () => {
    await expectRefused(
      { messages: [user("hi"), { role: "human", content: "there" }] },
      {
        message:
          "Invalid value: 'human'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
        param: "messages[1].role",
        code: "invalid_value",
      },
    );
    await expectAccepted({
      messages: [
        { role: "developer", content: "be brief" },
        { role: "system", content: "be kind" },
        user("hi"),
      ],
    });
  });

  it("tool_choice that forces a call (required, any, a named tool) with no tools (OpenAI, vLLM)", async () => {
    const error = {
      message:
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      param: "tool_choice",
      code: "invalid_value",
    };
    await expectRefused({ tool_choice: "required" }, error);
    await expectRefused({ tool_choice: "any" }, error);
    await expectRefused({ tool_choice: { type: "function", function: { name: "f" } } }, error);
    await expectRefused({ tools: [], tool_choice: "required" }, error);
    await expectAccepted({ tool_choice: "auto" });
    await expectAccepted({ tool_choice: "none" });
    await expectAccepted({ tools: [fn("f")], tool_choice: "required" });
  });

  it("a tool name outside ^[a-zA-Z0-9_-]{1,64}$, e.g. 'get weather' (OpenAI)", async () => {
    await expectRefused(
      { tools: [fn("ok"), fn("get weather")] },
      {
        message:
          "Invalid 'tools[1].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
        param: "tools[1].function.name",
        code: "invalid_value",
      },
    );
    await expectRefused(
      { tools: [fn("")] },
      {
        message:
          "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
        param: "tools[0].function.name",
        code: "invalid_value",
      },
    );
    await expectRefused(
      { tools: [fn("a".repeat(65))] },
      {
        message:
          "Invalid 'tools[0].function.name': string too long. Expected a string with maximum length 64, but got a string with length 65 instead.",
        param: "tools[0].function.name",
        code: "string_above_max_length",
      },
    );
    await expectAccepted({ tools: [fn("get_weather-2"), fn("A".repeat(64))] });
  });

  it("two tools with one name (Anthropic, Gemini, behind OpenAI-compatible gateways)", async () => {
    await expectRefused(
      { tools: [fn("search"), fn("lookup"), fn("search")] },
      {
        message:
          "Invalid 'tools': tool names must be unique; 'search' is declared at tools[0] and tools[2].",
        param: "tools[2].function.name",
        code: "invalid_value",
      },
    );
  });

  it("an assistant message with neither content nor tool calls (OpenAI)", async () => {
    const error = {
      message: "Invalid value for 'content': expected a string, got null.",
      param: "messages[1].content",
      code: "invalid_value",
    };
    await expectRefused(
      { messages: [user("hi"), { role: "assistant", content: null }, user("again")] },
      error,
    );
    await expectRefused({ messages: [user("hi"), { role: "assistant" }, user("again")] }, error);
    await expectRefused(
      { messages: [user("hi"), { role: "assistant", content: null, tool_calls: [] }, user("x")] },
      error,
    );
    await expectAccepted({
      messages: [user("hi"), { role: "assistant", content: "" }, user("again")],
    });
    await expectAccepted({
      tools: [fn("get_weather")],
      messages: [
        user("hi"),
        { role: "assistant", content: null, tool_calls: [call("c1")] },
        { role: "tool", tool_call_id: "c1", content: "sunny" },
      ],
    });
    await expectAccepted({
      messages: [user("hi"), { role: "assistant", content: null, refusal: "No." }, user("x")],
    });
  });

  it("stream_options without stream, on chat and text completions (OpenAI, vLLM)", async () => {
    const error = {
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      param: "stream_options",
      code: "invalid_value",
    };
    await expectRefused({ stream_options: { include_usage: true } }, error);
    await expectRefused({ stream: false, stream_options: { include_usage: true } }, error);
    await expectRefused(
      { prompt: "hi", stream_options: { include_usage: true } },
      error,
      PATHS.textCompletions,
    );
    await expectAccepted({ stream_options: null });
    await expectAccepted({ stream: true, stream_options: { include_usage: true } });
  });

  it("a tool message answering no earlier tool call (OpenAI); strictToolMessages: false accepts it", async () => {
    const body = {
      tools: [fn("get_weather")],
      messages: [
        user("hi"),
        { role: "assistant", content: null, tool_calls: [call("c1")] },
        { role: "tool", tool_call_id: "c1", content: "sunny" },
        { role: "tool", tool_call_id: "c9", content: "stray" },
      ],
    };
    await expectRefused(body, {
      message:
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
      param: "messages[3].tool_call_id",
      code: "invalid_request",
    });
    await expectAccepted(body, lenient);
  });
});
