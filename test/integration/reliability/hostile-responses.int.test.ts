/**
 * Broken and hostile servers, scripted byte by byte on loopback: gateway pages, wrong shapes,
 * nulls, empty and huge bodies, odd stream events, bad tool-call JSON, prototype-polluting keys,
 * UTF-8 split across reads. Each must end in a typed error or a correct result, within a bound.
 */
import type { ServerResponse } from "node:http";
import { AIMessage, type AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { StudioChatMessageHistory, StudioWriteNotConfirmedError } from "../../../src/chat_history";
import { ChatStudio } from "../../../src/chat_models";
import { StudioClient } from "../../../src/client";
import { startEmulator } from "../../../src/emulator";
import {
  StudioAPIError,
  StudioConnectionError,
  StudioError,
  StudioResponseError,
  StudioServerError,
  StudioStreamError,
} from "../../../src/errors";
import { StudioLLM } from "../../../src/llms";
import { useInstantRetries } from "../../unit/client/retry-clock";
import {
  chatChunks,
  chatCompletion,
  type Handler,
  type Loopback,
  sendJson,
  sseBytes,
  startLoopback,
  writePieces,
} from "./loopback";

// The pauses between retries pass on the retry clock, at once.
useInstantRetries();

const MODEL = "studio/echo-small";
const BOUND = { timeout: 10_000 };

let server: Loopback;
const clients: StudioClient[] = [];

beforeAll(async () => {
  server = await startLoopback(() => {});
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  // Nothing may have written to Object.prototype; clean up so one failure does not cascade.
  const polluted = "polluted" in Object.prototype;
  delete (Object.prototype as Record<string, unknown>).polluted;
  expect(polluted, "Object.prototype was polluted").toBe(false);
});

function serve(handler: Handler): void {
  server.setHandler(handler);
}

function makeClient(options: ConstructorParameters<typeof StudioClient>[0] = {}): StudioClient {
  const c = new StudioClient({
    apiKey: "hostile-test-key",
    proxyUrl: server.origin,
    baseUrl: server.origin,
    maxRetries: 0,
    timeout: 5000,
    ...options,
  });
  clients.push(c);
  return c;
}

function chat(options: ConstructorParameters<typeof StudioClient>[0] = {}, streaming = false) {
  return new ChatStudio({ model: MODEL, client: makeClient(options), streaming });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to fail");
}

async function streamText(model: ChatStudio, input = "hi"): Promise<string> {
  let text = "";
  for await (const chunk of await model.stream(input)) text += chunk.content;
  return text;
}

function raw(status: number, body: string | Buffer, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}

const GATEWAY_PAGE = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title>
<style>body{font-family:sans-serif}</style></head><body><center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx/1.25.3</center><script>var x = "<b>";</script></body></html>`;

describe("non-JSON bodies", () => {
  it(
    "an HTML gateway page with status 200: StudioResponseError with a short readable excerpt",
    BOUND,
    async () => {
      serve(raw(200, GATEWAY_PAGE, { "content-type": "text/html" }));
      const error = await failure(chat().invoke("hi"));
      expect(error).toBeInstanceOf(StudioResponseError);
      expect(error.message).toContain("502 Bad Gateway");
      expect(error.message).not.toContain("<html");
      expect(error.message.length).toBeLessThan(600);
    },
  );

  it(
    "an HTML gateway page with status 502: StudioServerError carrying status and excerpt, retried as a 5xx",
    BOUND,
    async () => {
      serve(raw(502, GATEWAY_PAGE, { "content-type": "text/html" }));
      const before = server.seen.length;
      const error = await failure(chat({ maxRetries: 1 }).invoke("hi"));
      expect(error).toBeInstanceOf(StudioServerError);
      expect((error as StudioAPIError).status).toBe(502);
      expect(error.message).toContain("nginx/1.25.3");
      expect(error.message).not.toContain("<style");
      expect(server.seen.length - before).toBe(2);
    },
  );

  it("plain text on a studio call (history) is a StudioResponseError too", BOUND, async () => {
    serve(raw(200, "OK", { "content-type": "text/plain" }));
    const history = new StudioChatMessageHistory({ client: makeClient(), threadId: "t1" });
    const error = await failure(history.getMessages());
    expect(error).toBeInstanceOf(StudioResponseError);
    expect(error.message).toContain("OK");
  });
});

describe("JSON of the wrong shape, nulls, empty bodies", () => {
  const cases: [string, string][] = [
    ["a JSON null", "null"],
    ["an array", "[1,2,3]"],
    ["choices as a string", JSON.stringify({ ...chatCompletion("x"), choices: "nope" })],
    ["choices null", JSON.stringify({ ...chatCompletion("x"), choices: null })],
    ["a null choice", JSON.stringify({ ...chatCompletion("x"), choices: [null] })],
    [
      "a null message",
      JSON.stringify({
        ...chatCompletion("x"),
        choices: [{ index: 0, message: null, finish_reason: "stop" }],
      }),
    ],
    ["usage of strings", JSON.stringify({ ...chatCompletion("x"), usage: { prompt_tokens: "1" } })],
    [
      "tool_calls not a list",
      JSON.stringify({
        ...chatCompletion("x"),
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: "", tool_calls: {} },
            finish_reason: "stop",
          },
        ],
      }),
    ],
    ["no choices at all", JSON.stringify({ ...chatCompletion("x"), choices: [] })],
    ["an empty body", ""],
    ["a truncated JSON document", '{"id":"chatcmpl-1","choices":[{"index":0,'],
  ];
  for (const [name, body] of cases) {
    it(`${name}: a StudioResponseError, no crash`, BOUND, async () => {
      serve(raw(200, body, { "content-type": "application/json" }));
      const error = await failure(chat().invoke("hi"));
      expect(error).toBeInstanceOf(StudioResponseError);
      expect(error.message).toMatch(/chat\/completions/);
    });
  }

  it(
    "content null (a tool-call-only answer) is a correct empty answer, not an error",
    BOUND,
    async () => {
      serve((_req, res) =>
        sendJson(res, 200, {
          ...chatCompletion(""),
          choices: [
            { index: 0, message: { role: "assistant", content: null }, finish_reason: "stop" },
          ],
        }),
      );
      const message = await chat().invoke("hi");
      expect(message.content).toBe("");
    },
  );

  it(
    "an empty body with status 500: StudioServerError saying there was no message",
    BOUND,
    async () => {
      serve(raw(500, ""));
      const error = await failure(chat().invoke("hi"));
      expect(error).toBeInstanceOf(StudioServerError);
      expect(error.message).toContain("500");
    },
  );

  it("an error body of an unexpected shape still yields the status", BOUND, async () => {
    serve(raw(400, JSON.stringify({ error: null, message: 42, detail: { nested: true } })));
    const error = await failure(chat().invoke("hi"));
    expect(error).toBeInstanceOf(StudioAPIError);
    expect((error as StudioAPIError).status).toBe(400);
  });

  it(
    "thread and message lists with nulls: typed errors, and metadata null is fine",
    BOUND,
    async () => {
      const history = new StudioChatMessageHistory({ client: makeClient(), threadId: "t1" });
      serve((_req, res) => sendJson(res, 200, { object: "list", data: null, hasMore: false }));
      expect(await failure(history.getMessages())).toBeInstanceOf(StudioResponseError);

      serve((_req, res) =>
        sendJson(res, 200, {
          object: "list",
          data: [{ id: "m1", role: "user", content: null }],
          hasMore: false,
        }),
      );
      expect(await failure(history.getMessages())).toBeInstanceOf(StudioResponseError);

      serve((_req, res) =>
        sendJson(res, 200, {
          object: "list",
          data: [
            {
              id: "m1",
              role: "user",
              content: [{ type: "text", text: "hello" }],
              metadata: null,
              attachments: null,
            },
          ],
          hasMore: false,
        }),
      );
      const messages = await history.getMessages();
      expect(messages.map((m) => m.content)).toEqual(["hello"]);
    },
  );

  it(
    "a created thread without an id: the history write raises a typed error, once",
    BOUND,
    async () => {
      serve((_req, res) => sendJson(res, 200, { id: null, object: "thread" }));
      const before = server.seen.length;
      const history = new StudioChatMessageHistory({ client: makeClient() });
      // The history reports the unconfirmed write; the bad answer is its cause.
      const error = await failure(history.addMessage(new HumanMessage("hi")));
      expect(error).toBeInstanceOf(StudioWriteNotConfirmedError);
      expect((error as { cause?: unknown }).cause).toBeInstanceOf(StudioResponseError);
      expect(server.seen.length - before).toBe(1);
      expect(history.threadId).toBeUndefined();
    },
  );

  it(
    "hasMore forever with the same cursor stops with a typed error instead of looping",
    BOUND,
    async () => {
      serve((_req, res) =>
        sendJson(res, 200, {
          object: "list",
          data: [{ id: "m1", role: "user", content: [{ type: "text", text: "again" }] }],
          firstId: "m1",
          lastId: "m1",
          hasMore: true,
        }),
      );
      const history = new StudioChatMessageHistory({ client: makeClient(), threadId: "t1" });
      expect(await failure(history.getMessages())).toBeInstanceOf(StudioResponseError);
    },
  );

  it("a body cut short of its Content-Length: a connection error, not a hang", BOUND, async () => {
    serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "5000" });
      res.write('{"id":"chatcmpl-1",');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const error = await failure(chat().invoke("hi"));
    expect(error).toBeInstanceOf(StudioError);
    expect([StudioConnectionError, StudioResponseError].some((c) => error instanceof c)).toBe(true);
  });
});

describe("huge bodies", () => {
  const CAP = 64 * 1024;
  const big = JSON.stringify(chatCompletion("x".repeat(CAP * 4)));

  for (const transport of ["undici", "fetch"] as const) {
    const options = (extra: object = {}) => ({
      maxResponseBytes: CAP,
      ...(transport === "fetch" && { fetch: globalThis.fetch }),
      ...extra,
    });

    it(
      `${transport}: a body over maxResponseBytes (declared length) is a clear StudioResponseError`,
      BOUND,
      async () => {
        serve(raw(200, big, { "content-type": "application/json" }));
        const error = await failure(chat(options()).invoke("hi"));
        expect(error).toBeInstanceOf(StudioResponseError);
        expect(error.message).toContain("maxResponseBytes");
      },
    );

    it(
      `${transport}: a chunked body over maxResponseBytes is cut off with the same error`,
      BOUND,
      async () => {
        serve(async (_req, res) => {
          res.writeHead(200, { "content-type": "application/json" });
          const bytes = Buffer.from(big);
          const pieces = [];
          for (let i = 0; i < bytes.length; i += 8192) pieces.push(bytes.subarray(i, i + 8192));
          await writePieces(res, pieces).catch(() => undefined);
        });
        const error = await failure(chat(options()).invoke("hi"));
        expect(error).toBeInstanceOf(StudioResponseError);
        expect(error.message).toContain("maxResponseBytes");
      },
    );
  }

  it("a huge error body still gives the status, read only up to a bound", BOUND, async () => {
    serve(raw(503, JSON.stringify({ error: { message: "m".repeat(4 * 1024 * 1024) } })));
    const error = await failure(chat().invoke("hi"));
    expect(error).toBeInstanceOf(StudioServerError);
    expect((error as StudioAPIError).status).toBe(503);
    expect(error.message.length).toBeLessThan(100_000);
  });

  it(
    "a stream event that never ends is cut off at maxResponseBytes, not buffered without bound",
    BOUND,
    async () => {
      const TOTAL = 16 * 1024 * 1024;
      let written = 0;
      serve(async (_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write('data: {"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"');
        const piece = Buffer.alloc(64 * 1024, "a");
        while (written < TOTAL && !res.destroyed) {
          const ok = res.write(piece);
          written += piece.length;
          if (!ok) await new Promise<void>((resolve) => onDrainOrClose(res, resolve));
        }
        res.end();
      });
      const error = await failure(streamText(chat({ maxResponseBytes: 1024 * 1024 })));
      expect(error).toBeInstanceOf(StudioError);
      expect(error.message).toContain("maxResponseBytes");
      // The client hung up instead of reading everything the server had.
      expect(written).toBeLessThan(TOTAL);
    },
  );
});

function onDrainOrClose(res: ServerResponse, done: () => void): void {
  const finish = () => {
    res.off("drain", finish);
    res.off("close", finish);
    done();
  };
  res.on("drain", finish);
  res.on("close", finish);
}

describe("odd stream events", () => {
  const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: MODEL };
  const good = chatChunks(["Hel", "lo"]);

  function sse(text: string): Handler {
    return (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(text);
    };
  }
  const events = (payloads: unknown[]) =>
    payloads.map((p) => `data: ${typeof p === "string" ? p : JSON.stringify(p)}\n\n`).join("");

  it(
    "comments, retry and id fields, CRLF line ends and unknown chunk fields are ignored",
    BOUND,
    async () => {
      const withExtras = good.map((chunk) => ({
        ...chunk,
        system_fingerprint: "fp_1",
        service_tier: "default",
        choices: chunk.choices.map((c) => ({
          ...c,
          logprobs: null,
          delta: { ...c.delta, refusal: null, reasoning_content: null, audio: { id: "a" } },
        })),
      }));
      const text = `: keep-alive\r\nretry: 1000\r\n\r\n${withExtras
        .map((c, i) => `id: ${i}\r\ndata:${JSON.stringify(c)}\r\n\r\n: ping\r\n\r\n`)
        .join("")}data: [DONE]\r\n\r\n`;
      serve(sse(text));
      expect(await streamText(chat())).toBe("Hello");
    },
  );

  it("keep-alive chunks with no choices are skipped", BOUND, async () => {
    const empty = { ...base, choices: [] };
    serve(sse(events([good[0], empty, good[1], empty, good[2], good[3], "[DONE]"])));
    expect(await streamText(chat())).toBe("Hello");
  });

  it(
    "named events of unknown kinds (keep-alive pings) are skipped: the full answer",
    BOUND,
    async () => {
      const pings =
        `event: ping\ndata: {"type":"ping"}\n\n` +
        `event: keep-alive\ndata: not even JSON\n\n` +
        `event: ping\ndata: {"id":"x","choices":[{"index":0,"delta":{"content":"!"}}]}\n\n`;
      serve(
        sse(
          pings +
            events([good[0], good[1]]) +
            pings +
            events([good[2], good[3]]) +
            `event: message\ndata: [DONE]\n\n`,
        ),
      );
      expect(await streamText(chat())).toBe("Hello");
      serve(sse(events([good[0], good[1]]) + pings + events([good[2], good[3], "[DONE]"])));
      const message = await chat({}, true).invoke("hi");
      expect(message.content).toBe("Hello");
      expect(message.response_metadata.finish_reason).toBe("stop");
    },
  );

  const unknownKinds: [string, string][] = [
    ["a payload of another API's shape", `data: {"type":"response.created","response":{}}\n\n`],
    ["a chunk whose choices are null", `data: ${JSON.stringify({ ...base, choices: null })}\n\n`],
    ["an empty data line", "data:\n\n"],
    ["a number", "data: 42\n\n"],
  ];
  for (const [name, event] of unknownKinds) {
    it(
      `${name}: ignored or a StudioStreamError, never a crash or a wrong answer`,
      BOUND,
      async () => {
        serve(sse(events([good[0], good[1]]) + event + events([good[2], good[3], "[DONE]"])));
        try {
          expect(await streamText(chat())).toBe("Hello");
        } catch (error) {
          expect(error).toBeInstanceOf(StudioStreamError);
        }
      },
    );
  }

  it(
    "an error payload mid-stream is a StudioStreamError carrying the server's message",
    BOUND,
    async () => {
      serve(
        sse(
          events([
            good[0],
            good[1],
            { error: { message: "model overloaded", type: "server_error" } },
          ]),
        ),
      );
      const error = await failure(streamText(chat()));
      expect(error).toBeInstanceOf(StudioStreamError);
      expect(error.message).toContain("model overloaded");
    },
  );

  it(
    "a stream that ends without [DONE] and without finish_reason is an error, never a short answer",
    BOUND,
    async () => {
      serve(sse(events([good[0], good[1]])));
      const error = await failure(streamText(chat()));
      expect(error).toBeInstanceOf(StudioStreamError);
      const viaInvoke = await failure(chat({}, true).invoke("hi"));
      expect(viaInvoke).toBeInstanceOf(StudioStreamError);
    },
  );

  it("a streamed body answered to a non-streamed call is a typed error", BOUND, async () => {
    serve(sse(events([...good, "[DONE]"])));
    expect(await failure(chat().invoke("hi"))).toBeInstanceOf(StudioResponseError);
  });

  it(
    "a StudioLLM stream with an event of an unknown kind skips it: the full answer",
    BOUND,
    async () => {
      const textChunk = (text: string, finish: string | null) => ({
        id: "cmpl-1",
        object: "text_completion",
        created: 1,
        model: MODEL,
        choices: [{ index: 0, text, finish_reason: finish }],
      });
      serve(
        sse(
          events([textChunk("Hel", null)]) +
            `event: ping\ndata: {"type":"ping"}\n\n` +
            events([textChunk("lo", "stop"), "[DONE]"]),
        ),
      );
      const llm = new StudioLLM({ model: MODEL, client: makeClient() });
      let text = "";
      for await (const piece of await llm.stream("hi")) text += piece;
      expect(text).toBe("Hello");
    },
  );
});

describe("tool calls from the server", () => {
  const toolAnswer = (args: string) => ({
    ...chatCompletion(""),
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "lookup", arguments: args } },
          ],
        },
        finish_reason: "tool_calls",
      },
    ],
  });

  function streamedToolCall(fragments: string[]): unknown[] {
    const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: MODEL };
    return [
      { ...base, choices: [{ index: 0, delta: { role: "assistant" }, finish_reason: null }] },
      ...fragments.map((args, i) => ({
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                i === 0
                  ? {
                      index: 0,
                      id: "call_1",
                      type: "function",
                      function: { name: "lookup", arguments: args },
                    }
                  : { index: 0, function: { arguments: args } },
              ],
            },
            finish_reason: null,
          },
        ],
      })),
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
      "[DONE]",
    ];
  }

  async function streamedMessage(model: ChatStudio): Promise<AIMessageChunk> {
    let merged: AIMessageChunk | undefined;
    for await (const chunk of await model.stream("hi"))
      merged = merged ? merged.concat(chunk) : chunk;
    if (!merged) throw new Error("no chunks");
    return merged;
  }

  const BAD_ARGS = ['{"city": "Paris",,}', "{not json", '"just a string"', "[1, 2]", "null"];
  for (const args of BAD_ARGS) {
    it(
      `arguments ${JSON.stringify(args)}: kept as an invalid tool call, not thrown`,
      BOUND,
      async () => {
        serve((_req, res) => sendJson(res, 200, toolAnswer(args)));
        const message = await chat().invoke("hi");
        const ok = message.tool_calls ?? [];
        const invalid = message.invalid_tool_calls ?? [];
        // A non-object is never handed to a tool as its arguments.
        for (const call of ok) {
          expect(
            typeof call.args === "object" && call.args !== null && !Array.isArray(call.args),
            `tool_calls[].args ${JSON.stringify(call.args)} is not an object`,
          ).toBe(true);
        }
        expect(ok.length + invalid.length).toBe(1);
        if (args.startsWith("{")) {
          expect(invalid).toHaveLength(1);
          expect(invalid[0]).toMatchObject({ id: "call_1", name: "lookup", args });
        }
      },
    );
  }

  it(
    "streamed: fragments that do not join into JSON end up in invalid_tool_calls",
    BOUND,
    async () => {
      serve((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(sseBytes(streamedToolCall(['{"city": ', '"Paris",,', "}"]), false));
      });
      const merged = await streamedMessage(chat());
      expect(merged.tool_calls ?? []).toHaveLength(0);
      expect(merged.invalid_tool_calls).toHaveLength(1);
      expect(merged.invalid_tool_calls?.[0]).toMatchObject({ id: "call_1", name: "lookup" });

      const invoked = await chat({}, true).invoke("hi");
      expect(invoked.tool_calls ?? []).toHaveLength(0);
      expect(invoked.invalid_tool_calls).toHaveLength(1);
    },
  );

  const HOSTILE_ARGS =
    '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "prototype": {"polluted": "yes"}, "city": "Paris"}';

  it(
    "__proto__ / constructor / prototype keys in tool arguments pollute nothing",
    BOUND,
    async () => {
      serve((_req, res) => sendJson(res, 200, toolAnswer(HOSTILE_ARGS)));
      const message = await chat().invoke("hi");
      const args = message.tool_calls?.[0]?.args as Record<string, unknown>;
      expect(args.city).toBe("Paris");
      expect(args.polluted).toBeUndefined();
      expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it("the same keys in streamed argument fragments pollute nothing", BOUND, async () => {
    const half = Math.floor(HOSTILE_ARGS.length / 2);
    serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(
        sseBytes(streamedToolCall([HOSTILE_ARGS.slice(0, half), HOSTILE_ARGS.slice(half)]), false),
      );
    });
    const merged = await streamedMessage(chat());
    const args = merged.tool_calls?.[0]?.args as Record<string, unknown>;
    expect(args.city).toBe("Paris");
    expect(args.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("prototype keys in thread metadata", () => {
  it(
    "a server's message metadata with __proto__ / constructor keys decodes without pollution",
    BOUND,
    async () => {
      const record = JSON.stringify({
        data: {
          additional_kwargs: JSON.parse('{"__proto__": {"polluted": "yes"}, "ok": 1}'),
          response_metadata: JSON.parse('{"constructor": {"prototype": {"polluted": "yes"}}}'),
        },
      });
      const body = `{"object":"list","hasMore":false,"data":[
      {"id":"m1","role":"user","content":[{"type":"text","text":"foreign"}],
       "metadata":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}},
      {"id":"m2","role":"assistant","content":[{"type":"text","text":"ours"}],
       "metadata":{"lc_type":"ai","lc_id":"c1","lc_data_0":${JSON.stringify(record)},"__proto__":"x"}}]}`;
      serve(raw(200, body, { "content-type": "application/json" }));
      const history = new StudioChatMessageHistory({ client: makeClient(), threadId: "t1" });
      try {
        const messages = await history.getMessages();
        expect(messages.map((m) => m.content)).toEqual(["foreign", "ours"]);
        const kwargs = messages[1]!.additional_kwargs as Record<string, unknown>;
        expect(kwargs.polluted).toBeUndefined();
        expect(kwargs.ok).toBe(1);
      } catch (error) {
        // Refusing such metadata is acceptable; crashing or polluting is not.
        expect(error).toBeInstanceOf(StudioError);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it("messages carrying such keys round-trip through a real thread unchanged", BOUND, async () => {
    const emulator = await startEmulator({ port: 0 });
    try {
      const client = new StudioClient({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl });
      clients.push(client);
      const args = JSON.parse(
        '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "n": 1}',
      ) as Record<string, unknown>;
      const kwargs = JSON.parse('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown>;
      const original = [
        new HumanMessage({ content: "look it up", additional_kwargs: kwargs }),
        new AIMessage({
          content: "",
          tool_calls: [{ id: "call_1", name: "lookup", args, type: "tool_call" }],
        }),
      ];
      const history = new StudioChatMessageHistory({ client });
      await history.addMessages(original);
      const loaded = await new StudioChatMessageHistory({
        client,
        threadId: history.threadId!,
      }).getMessages();
      const loadedArgs = (loaded[1] as AIMessage).tool_calls?.[0]?.args as Record<string, unknown>;
      expect(loadedArgs.n).toBe(1);
      expect(loadedArgs.polluted).toBeUndefined();
      expect(JSON.stringify(loadedArgs)).toBe(JSON.stringify(args));
      expect(JSON.stringify(loaded[0]!.additional_kwargs)).toBe(JSON.stringify(kwargs));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    } finally {
      await emulator.close();
    }
  });
});

describe("prototype keys sent to the emulator", () => {
  it(
    "raw bodies with __proto__ / constructor keys in metadata, filters and tool schemas pollute nothing and are stored as data",
    BOUND,
    async () => {
      const emulator = await startEmulator({ port: 0 });
      try {
        const post = (path: string, body: string) =>
          fetch(`${emulator.baseUrl}${path}`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-service-key": emulator.apiKey },
            body,
          });
        const hostile =
          '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}';
        const bodies: [string, string][] = [
          ["/v1/threads", `{"metadata": ${hostile}}`],
          ["/v1/threads", '{"metadata": {"__proto__": "x", "constructor": "y", "prototype": "z"}}'],
          [
            "/v1/threads",
            `{"messages": [{"role": "user", "content": "hi", "metadata": ${hostile}}], "toolResources": ${hostile}}`,
          ],
          [
            "/v1/assistants",
            `{"assistantName": "a", "metadata": ${hostile}, "userFilters": ${hostile}, "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": ${hostile}}}}]}`,
          ],
        ];
        for (const [path, body] of bodies) {
          const response = await post(path, body);
          // Refusing (4xx) or storing is fine; a 5xx would mean the emulator tripped over it.
          expect(response.status, `${path} ${body}`).toBeLessThan(500);
          await response.arrayBuffer();
        }
        const stored = await post("/v1/threads", '{"metadata": {"__proto__": "x", "k": "v"}}');
        const thread = (await stored.json()) as { metadata?: Record<string, unknown> };
        if (stored.status === 200) {
          expect(Object.getPrototypeOf(thread.metadata)).toBe(Object.prototype);
          expect(thread.metadata?.k).toBe("v");
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        // The emulator still answers normally afterwards.
        const client = new StudioClient({ apiKey: emulator.apiKey, proxyUrl: emulator.proxyUrl });
        clients.push(client);
        expect((await new ChatStudio({ model: MODEL, client }).invoke("still fine")).content).toBe(
          "You said: still fine",
        );
      } finally {
        await emulator.close();
      }
    },
  );
});

describe("UTF-8 split across reads", () => {
  const TEXT = "héllo wörld 😀 中文 ✓ — naïve";

  it("a JSON body written one byte per read decodes exactly", BOUND, async () => {
    const bytes = Buffer.from(JSON.stringify(chatCompletion(TEXT)));
    serve(async (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      await writePieces(
        res,
        [...bytes].map((b) => Uint8Array.of(b)),
      );
    });
    expect((await chat().invoke("hi")).content).toBe(TEXT);
    expect((await chat({ fetch: globalThis.fetch }).invoke("hi")).content).toBe(TEXT);
  });

  it("a stream written one byte per read decodes exactly, on both transports", BOUND, async () => {
    const pieces = Array.from(TEXT);
    const bytes = sseBytes(chatChunks(pieces));
    serve(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      await writePieces(
        res,
        [...bytes].map((b) => Uint8Array.of(b)),
      );
    });
    expect(await streamText(chat())).toBe(TEXT);
    expect(await streamText(chat({ fetch: globalThis.fetch }))).toBe(TEXT);
  });
});
