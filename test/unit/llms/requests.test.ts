/**
 * What StudioLLM sends and how it reads what comes back, on the wire, through the client's fetch
 * transport intercepted by nock.
 */
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  StudioBadRequestError,
  StudioServerError,
  StudioStreamError,
  StudioValidationError,
} from "../../../src/errors";
import { StudioLLM, type StudioLLMFields } from "../../../src/llms";

const ORIGIN = "https://studio.test";
const PATH = "/inference/text/completions";
const KEY = "sk-nock-llm-9876543210";

function llm(fields: Partial<StudioLLMFields> = {}, orgId?: string): StudioLLM {
  return new StudioLLM({
    model: "acme/small",
    fetch: globalThis.fetch,
    apiKey: KEY,
    proxyUrl: `${ORIGIN}/inference`,
    ...(orgId !== undefined && { orgId }),
    ...fields,
  });
}

function completion(text: string, extra: Record<string, unknown> = {}) {
  return {
    id: "cmpl-1",
    object: "text_completion",
    created: 1,
    model: "acme/small",
    choices: [{ index: 0, text, finish_reason: "stop" }],
    usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 },
    ...extra,
  };
}

/** Intercepts one text completion, keeping its body and headers. */
function expectCompletion(reply: unknown = completion("ok")) {
  const seen: { body?: unknown; headers?: Record<string, string> } = {};
  const scope = nock(ORIGIN)
    .post(PATH, (body) => {
      seen.body = body;
      return true;
    })
    .reply(function () {
      seen.headers = Object.fromEntries(
        Object.entries(this.req.headers).map(([k, v]) => [k, String(v)]),
      );
      return [200, JSON.stringify(reply), { "content-type": "application/json" }];
    });
  return { scope, seen };
}

function sse(events: unknown[], done = true): string {
  return (
    events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + (done ? "data: [DONE]\n\n" : "")
  );
}

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
});

describe("request body", () => {
  it("sends only the model and the prompt by default", async () => {
    const { scope, seen } = expectCompletion();
    await llm().invoke("Hello");
    expect(scope.isDone()).toBe(true);
    expect(seen.body).toEqual({ model: "acme/small", prompt: "Hello" });
  });

  it("maps every option to its snake_case field", async () => {
    const { seen } = expectCompletion();
    await llm({
      temperature: 0.7,
      maxTokens: 32,
      topP: 0.9,
      n: 1,
      stop: ["\n\n"],
      presencePenalty: 0.1,
      frequencyPenalty: -0.2,
      penalty: 1.1,
      logitBias: { "50256": -100 },
      echo: true,
      modelKwargs: { seed: 42 },
    }).invoke("Hello");
    expect(seen.body).toEqual({
      model: "acme/small",
      prompt: "Hello",
      temperature: 0.7,
      max_tokens: 32,
      top_p: 0.9,
      n: 1,
      stop: ["\n\n"],
      presence_penalty: 0.1,
      frequency_penalty: -0.2,
      penalty: 1.1,
      logit_bias: { "50256": -100 },
      echo: true,
      seed: 42,
    });
  });

  it("call options override fields", async () => {
    const { seen } = expectCompletion();
    await llm({ temperature: 0.7, maxTokens: 32, stop: ["a"] }).invoke("Hello", {
      temperature: 0,
      maxTokens: 5,
      stop: ["b"],
      echo: false,
      n: 1,
    });
    expect(seen.body).toEqual({
      model: "acme/small",
      prompt: "Hello",
      temperature: 0,
      max_tokens: 5,
      stop: ["b"],
      echo: false,
      n: 1,
    });
  });

  it("sends stream: true when streaming and reads the events", async () => {
    let body: unknown;
    nock(ORIGIN)
      .post(PATH, (b) => {
        body = b;
        return true;
      })
      .reply(
        200,
        sse([
          {
            id: "c",
            model: "acme/small",
            choices: [{ index: 0, text: "Hi", finish_reason: null }],
          },
          {
            id: "c",
            model: "acme/small",
            choices: [{ index: 0, text: " there", finish_reason: "stop" }],
          },
        ]),
        { "content-type": "text/event-stream" },
      );
    const pieces: string[] = [];
    for await (const piece of await llm({ temperature: 0 }).stream("Hello")) pieces.push(piece);
    expect(pieces).toEqual(["Hi", " there"]);
    expect(body).toEqual({
      model: "acme/small",
      prompt: "Hello",
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
  });
});

describe("headers", () => {
  it("sends the raw key in Authorization and the organization when set", async () => {
    const { seen } = expectCompletion();
    await llm({}, "org-7").invoke("Hello");
    expect(seen.headers?.authorization).toBe(KEY);
    expect(seen.headers?.["x-org-id"]).toBe("org-7");
    expect(seen.headers?.["content-type"]).toContain("application/json");
  });
});

describe("response conversion", () => {
  it("gives every choice, its finish reason, and the usage", async () => {
    expectCompletion(
      completion("", {
        choices: [
          { index: 1, text: "two", finish_reason: "length" },
          { index: 0, text: "one", finish_reason: "stop" },
        ],
      }),
    );
    const result = await llm({ n: 2 }).generate(["Hello"]);
    expect(result.generations[0]?.map((g) => [g.text, g.generationInfo?.finish_reason])).toEqual([
      ["one", "stop"],
      ["two", "length"],
    ]);
    expect(result.llmOutput?.tokenUsage).toEqual({
      promptTokens: 2,
      completionTokens: 3,
      totalTokens: 5,
    });
  });

  it("a stream cut before [DONE] raises StudioStreamError", async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(
        200,
        sse([{ id: "c", choices: [{ index: 0, text: "Hi", finish_reason: null }] }], false),
        { "content-type": "text/event-stream" },
      );
    const read = async () => {
      for await (const _ of await llm().stream("Hello")) {
        // keep reading
      }
    };
    await expect(read()).rejects.toBeInstanceOf(StudioStreamError);
  });

  it("an error status becomes the typed error, without the key", async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(400, { error: { message: `bad prompt for key ${KEY}`, type: "invalid_request" } });
    const error = await llm()
      .invoke("Hello")
      .catch((e) => e);
    expect(error).toBeInstanceOf(StudioBadRequestError);
    expect(String(error.message)).not.toContain(KEY);
    expect(JSON.stringify(error)).not.toContain(KEY);
  });
});

describe("validation", () => {
  it.each([
    [{ temperature: 2.5 }, "temperature"],
    [{ topP: 1.5 }, "topP"],
    [{ maxTokens: 0 }, "maxTokens"],
    [{ n: -1 }, "n"],
    [{ stop: [1] }, "stop[0]"],
  ])("call option %o fails naming %s, and nothing is sent", async (options, field) => {
    const { scope } = expectCompletion();
    const error = await llm()
      .invoke("Hello", options as Record<string, unknown>)
      .catch((e) => e);
    expect(error).toBeInstanceOf(StudioValidationError);
    expect(error.field).toBe(field);
    expect(scope.isDone()).toBe(false);
  });
});

describe("retries", () => {
  function always503() {
    let attempts = 0;
    nock(ORIGIN)
      .post(PATH)
      .times(10)
      .reply(() => {
        attempts++;
        return [503, { error: { message: "overloaded" } }, { "retry-after": "0" }];
      });
    return () => attempts;
  }

  it("maxRetries 2 and a server always answering 503: exactly 3 attempts", async () => {
    const attempts = always503();
    await expect(llm({ maxRetries: 2 }).invoke("Hello")).rejects.toBeInstanceOf(StudioServerError);
    expect(attempts()).toBe(3);
  });

  it("maxRetries 0: one attempt; a call option overrides the field", async () => {
    const attempts = always503();
    await expect(llm({ maxRetries: 0 }).invoke("Hello")).rejects.toBeInstanceOf(StudioServerError);
    expect(attempts()).toBe(1);
    await expect(llm({ maxRetries: 0 }).invoke("Hello", { maxRetries: 1 })).rejects.toBeInstanceOf(
      StudioServerError,
    );
    expect(attempts()).toBe(3);
  });

  it("retries a batch prompt on its own, once per layer", async () => {
    let attempts = 0;
    nock(ORIGIN)
      .post(PATH)
      .reply(() => {
        attempts++;
        return [503, { error: { message: "busy" } }, { "retry-after": "0" }];
      })
      .post(PATH)
      .times(2)
      .reply(() => {
        attempts++;
        return [200, completion("ok")];
      });
    const result = await llm({ maxRetries: 1 }).generate(["a", "b"]);
    expect(result.generations.map((g) => g[0]?.text)).toEqual(["ok", "ok"]);
    expect(attempts).toBe(3);
  });
});
