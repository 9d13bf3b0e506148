/**
 * Invalid values are a `StudioValidationError` naming the field, at construction or at call
 * time, and nothing is sent.
 */
import { HumanMessage } from "@langchain/core/messages";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ChatStudio } from "../../../src/chat_models";
import { StudioValidationError } from "../../../src/errors";
import { completion, KEY, MODEL, newModel, ORIGIN, PATH, replyJson } from "./helpers";

let requests = 0;
beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
  requests = 0;
});

/** An interceptor that counts what reaches it; every test below expects zero. */
function countRequests(): void {
  nock(ORIGIN)
    .post(PATH)
    .reply(() => {
      requests++;
      return [200, completion()];
    })
    .persist();
}

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StudioValidationError);
    return (error as StudioValidationError).field;
  }
  throw new Error("expected a StudioValidationError");
}

async function fieldOfAsync(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StudioValidationError);
    return (error as StudioValidationError).field;
  }
  throw new Error("expected a StudioValidationError");
}

describe("construction", () => {
  it.each([
    ["model", { model: undefined }],
    ["model", { model: "" }],
    ["model", { model: "no-slash" }],
    ["model", { model: "owner/has space" }],
    ["temperature", { temperature: 2.5 }],
    ["temperature", { temperature: -0.1 }],
    ["topP", { topP: 0 }],
    ["topP", { topP: 1.01 }],
    ["n", { n: 0 }],
    ["n", { n: 1.5 }],
    ["maxTokens", { maxTokens: 10.5 }],
    ["maxTokens", { maxTokens: 0 }],
    ["stop", { stop: "END" }],
    ["stopSequences[0]", { stopSequences: [1] }],
    ["stopSequences", { stop: ["a"], stopSequences: ["b"] }],
    ["presencePenalty", { presencePenalty: Number.NaN }],
    ["frequencyPenalty", { frequencyPenalty: "1" }],
    ["penalty", { penalty: Number.POSITIVE_INFINITY }],
    ["logitBias.a", { logitBias: { a: "x" } }],
    ["timeout", { timeout: -5 }],
    ["maxRetries", { maxRetries: -1 }],
    ["modelKwargs", { modelKwargs: [] }],
    ["modelKwargs.stream", { modelKwargs: { stream: true } }],
    ["modelKwargs.messages", { modelKwargs: { messages: [] } }],
    ["streaming", { streaming: "yes" }],
    ["streamUsage", { streamUsage: 1 }],
    ["maxConcurrency", { maxConcurrency: 0 }],
    ["maxConcurrency", { maxConcurrency: 2.5 }],
  ])("%s: %j", (field, fields) => {
    countRequests();
    expect(fieldOf(() => new ChatStudio({ model: MODEL, apiKey: KEY, ...fields } as never))).toBe(
      field,
    );
    expect(requests).toBe(0);
  });

  it("accepts the edges of each range", () => {
    expect(
      () =>
        new ChatStudio({ model: MODEL, temperature: 0, topP: 1, n: 1, maxTokens: 1 }) &&
        new ChatStudio({ model: MODEL, temperature: 2, topP: 0.0001 }),
    ).not.toThrow();
  });

  it("the message names the allowed range", () => {
    expect(() => new ChatStudio({ model: MODEL, temperature: 3 })).toThrow(
      /Invalid temperature: must be between 0 and 2 \(got 3\)/,
    );
  });
});

describe("call time", () => {
  it.each([
    ["temperature", { temperature: 9 }],
    ["topP", { topP: 2 }],
    ["n", { n: 0 }],
    ["maxTokens", { maxTokens: 1.5 }],
    ["stop[0]", { stop: [3] }],
    ["logitBias.t", { logitBias: { t: "x" } }],
    ["maxRetries", { maxRetries: -2 }],
  ])("%s in invoke options", async (field, options) => {
    countRequests();
    expect(await fieldOfAsync(() => newModel().invoke("hi", options as never))).toBe(field);
    expect(requests).toBe(0);
  });

  it("in stream options too", async () => {
    countRequests();
    const consume = async () => {
      for await (const _ of await newModel().stream("hi", { temperature: -1 })) {
        // never reached
      }
    };
    expect(await fieldOfAsync(consume)).toBe("temperature");
    expect(requests).toBe(0);
  });

  it("an empty message list", async () => {
    countRequests();
    expect(await fieldOfAsync(() => newModel().invoke([]))).toBe("messages");
    expect(requests).toBe(0);
  });

  it("a content block the service cannot take", async () => {
    countRequests();
    const message = new HumanMessage({
      content: [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }] as never,
    });
    expect(await fieldOfAsync(() => newModel().invoke([message]))).toBe("messages[0].content[0]");
    expect(requests).toBe(0);
  });

  it("a tool choice naming an unbound tool", async () => {
    countRequests();
    const bound = newModel().bindTools(
      [{ name: "f", parameters: { type: "object", properties: {} } }],
      {
        tool_choice: "g",
      },
    );
    expect(await fieldOfAsync(() => bound.invoke("hi"))).toBe("tool_choice");
    expect(requests).toBe(0);
  });

  it("valid call options do send", async () => {
    const { bodies } = replyJson(completion());
    await newModel().invoke("hi", { temperature: 0 });
    expect(bodies).toHaveLength(1);
  });
});
