/**
 * A prompt over the model's window raises core's `ContextOverflowError` with the Studio error as
 * its cause, however the call is made and however the refusal comes (a 400, a 413, an error
 * event inside the stream); other errors come through unchanged.
 */
import { ContextOverflowError } from "@langchain/core/errors";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type StudioAPIError,
  StudioBadRequestError,
  StudioServerError,
  StudioStreamError,
} from "../../../src/errors";
import { StudioLLM } from "../../../src/llms";
import { KEY, MODEL, newModel, ORIGIN, PATH, PROXY_URL, sseText } from "./helpers";

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

const OPENAI_REFUSAL = {
  error: {
    message:
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.",
    type: "invalid_request_error",
    param: "messages",
    code: "context_length_exceeded",
  },
};
const ANTHROPIC_REFUSAL = {
  type: "error",
  error: {
    type: "invalid_request_error",
    message: "prompt is too long: 9001 tokens > 8192 maximum",
  },
};

function refuse(status: number, body: unknown, path = PATH): void {
  nock(ORIGIN)
    .post(path)
    .reply(status, body as nock.Body);
}

/** A 200 stream whose first event is the refusal. */
function refuseInStream(error: unknown, path = PATH): void {
  nock(ORIGIN)
    .post(path)
    .reply(200, `data: ${JSON.stringify({ error })}\n\n`, { "content-type": "text/event-stream" });
}

async function overflowOf(call: () => Promise<unknown>): Promise<ContextOverflowError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(ContextOverflowError.isInstance(error)).toBe(true);
  return error as ContextOverflowError;
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream);
}

describe("ChatStudio", () => {
  it("invoke: a 400 context_length_exceeded", async () => {
    refuse(400, OPENAI_REFUSAL);
    const error = await overflowOf(() => newModel().invoke("a very long prompt"));
    expect(error.cause).toBeInstanceOf(StudioBadRequestError);
    expect((error.cause as StudioAPIError).code).toBe("context_length_exceeded");
    expect(error.message).toMatch(/maximum context length is 8192 tokens/);
    expect(error.message).not.toContain(KEY);
  });

  it("invoke: Anthropic's wording in a 413", async () => {
    refuse(413, ANTHROPIC_REFUSAL);
    const error = await overflowOf(() => newModel().invoke("long"));
    expect((error.cause as StudioAPIError).status).toBe(413);
  });

  it("stream: the refusal before the first chunk", async () => {
    refuse(400, OPENAI_REFUSAL);
    const model = newModel();
    await overflowOf(async () => drain(await model.stream("long")));
  });

  it("stream: an error event inside the stream, with and without a status", async () => {
    refuseInStream({ message: "prompt is too long: 9001 tokens > 8192 maximum" });
    const error = await overflowOf(async () => drain(await newModel().stream("long")));
    expect(error.cause).toBeInstanceOf(StudioStreamError);
    refuseInStream({ ...OPENAI_REFUSAL.error, code: 400 });
    const withStatus = await overflowOf(async () => drain(await newModel().stream("long")));
    expect(withStatus.cause).toBeInstanceOf(StudioBadRequestError);
  });

  it("invoke with streaming: true, and streamEvents", async () => {
    refuse(400, OPENAI_REFUSAL);
    await overflowOf(() => newModel({ streaming: true }).invoke("long"));
    refuse(400, OPENAI_REFUSAL);
    await overflowOf(async () => newModel().streamEvents("long").output);
  });

  it("batch: the overflowing input raises; with returnExceptions it is that input's result", async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(200, {
        id: "c",
        object: "chat.completion",
        created: 1,
        model: MODEL,
        choices: [
          { index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" },
        ],
      });
    refuse(400, OPENAI_REFUSAL);
    const model = newModel({ maxConcurrency: 1 });
    const results = await model.batch(["short", "long"], {}, { returnExceptions: true });
    expect((results[0] as { text: string }).text).toBe("ok");
    expect(ContextOverflowError.isInstance(results[1])).toBe(true);
  });

  it("other errors come through unchanged", async () => {
    refuse(400, { error: { message: "temperature is too high", code: "invalid_value" } });
    await expect(newModel().invoke("hi")).rejects.toBeInstanceOf(StudioBadRequestError);
    refuse(500, { error: { message: "backend crashed" } });
    await expect(newModel().invoke("hi")).rejects.toBeInstanceOf(StudioServerError);
    nock(ORIGIN)
      .post(PATH)
      .reply(200, sseText([{ choices: [] }], false), { "content-type": "text/event-stream" });
    const cut = async () => drain(await newModel().stream("hi"));
    await expect(cut()).rejects.toBeInstanceOf(StudioStreamError);
  });
});

describe("StudioLLM", () => {
  const TEXT_PATH = "/inference/text/completions";
  const llm = (fields: { streaming?: boolean } = {}) =>
    new StudioLLM(MODEL, {
      apiKey: KEY,
      proxyUrl: PROXY_URL,
      fetch: globalThis.fetch,
      maxRetries: 0,
      ...fields,
    });

  it("invoke, invoke with streaming: true, and stream", async () => {
    refuse(400, OPENAI_REFUSAL, TEXT_PATH);
    const error = await overflowOf(() => llm().invoke("long"));
    expect(error.cause).toBeInstanceOf(StudioBadRequestError);
    refuse(400, OPENAI_REFUSAL, TEXT_PATH);
    await overflowOf(() => llm({ streaming: true }).invoke("long"));
    refuseInStream({ message: "prompt is too long" }, TEXT_PATH);
    await overflowOf(async () => drain(await llm().stream("long")));
  });
});
