/**
 * Refusals on the wire (`message.refusal` / `delta.refusal`, null content), as OpenAI-compatible
 * servers send them: kept in the message, given as core's `refusal` content block on invoke and
 * stream, and raised as `ModelRefusalError` by every structured-output method, streamed or not.
 * On a core without that class (before 1.4) the error has its name and the refusal text.
 */
import * as coreErrors from "@langchain/core/errors";
import { AIMessage, type AIMessageChunk } from "@langchain/core/messages";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import type { ChatCompletionChunk } from "../../../src/api-types";
import {
  modelRefusalError,
  refusalOfMessage,
  StudioModelRefusalError,
} from "../../../src/models/refusal";
import { completion, MODEL, newModel, replyJson, replyStream } from "./helpers";

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

const REFUSAL = "I can't help with that request.";
const ERROR_TEXT = `Model refused to produce the requested output: ${REFUSAL}`;
const CoreModelRefusalError = (coreErrors as Record<string, unknown>).ModelRefusalError as
  | (new (
      ...args: never[]
    ) => Error)
  | undefined;

/** The refusal error: core's class when this core has it, else the stand-in of that name. */
function expectRefusalError(error: unknown): void {
  expect(error).toBeInstanceOf(Error);
  const refusal = error as Error & { rawMessage?: unknown };
  expect(refusal.name).toBe("ModelRefusalError");
  expect(refusal.message).toBe(ERROR_TEXT);
  expect(refusalOfMessage(refusal.rawMessage as AIMessage)).toBe(REFUSAL);
  if (CoreModelRefusalError) expect(error).toBeInstanceOf(CoreModelRefusalError);
  else expect(error).toBeInstanceOf(StudioModelRefusalError);
}

async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

const refusedCompletion = completion({
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: null, refusal: REFUSAL },
      finish_reason: "stop",
    },
  ],
});

/** The chunks OpenAI streams for a refusal: null content, then `delta.refusal` slices. */
function refusalChunks(): ChatCompletionChunk[] {
  const base = { id: "chatcmpl-r", object: "chat.completion.chunk", created: 1, model: MODEL };
  const slices = ["I can't ", "help with ", "that request."];
  return [
    {
      ...base,
      choices: [
        { index: 0, delta: { role: "assistant", content: null, refusal: "" }, finish_reason: null },
      ],
    },
    ...slices.map((refusal) => ({
      ...base,
      choices: [{ index: 0, delta: { refusal }, finish_reason: null }],
    })),
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    { ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } },
  ];
}

describe("the refusal in the message", () => {
  it("invoke: kept in additional_kwargs.refusal and given as a refusal block", async () => {
    replyJson(refusedCompletion);
    const reply = await newModel().invoke("how do I pick a lock?");
    expect(reply.content).toBe("");
    expect(reply.additional_kwargs.refusal).toBe(REFUSAL);
    expect(reply.contentBlocks).toEqual([{ type: "refusal", refusal: REFUSAL }]);
    expect(reply.response_metadata.finish_reason).toBe("stop");
  });

  it("stream: the slices sum to the whole refusal and its block", async () => {
    replyStream(refusalChunks());
    let whole: AIMessageChunk | undefined;
    const blocks: unknown[] = [];
    for await (const chunk of await newModel().stream("how do I pick a lock?")) {
      blocks.push(...chunk.contentBlocks);
      whole = whole ? whole.concat(chunk) : chunk;
    }
    // Each slice's chunk has a block of its slice; the sum has one block of the whole text.
    expect(blocks).toEqual([
      { type: "refusal", refusal: "I can't " },
      { type: "refusal", refusal: "help with " },
      { type: "refusal", refusal: "that request." },
    ]);
    expect(whole?.additional_kwargs.refusal).toBe(REFUSAL);
    expect(whole?.contentBlocks).toEqual([{ type: "refusal", refusal: REFUSAL }]);
    expect(whole?.usage_metadata?.total_tokens).toBe(8);
  });

  it("invoke with streaming: true gives the same message as unstreamed", async () => {
    replyStream(refusalChunks());
    const reply = await newModel({ streaming: true }).invoke("hi");
    expect(reply.additional_kwargs.refusal).toBe(REFUSAL);
    expect(reply.contentBlocks).toEqual([{ type: "refusal", refusal: REFUSAL }]);
  });

  it("outputVersion v1: the refusal block is in the content", async () => {
    replyJson(refusedCompletion);
    const reply = await newModel({ outputVersion: "v1" }).invoke("hi");
    expect(reply.content).toEqual([{ type: "refusal", refusal: REFUSAL }]);
  });

  it("content-block events: a refusal block started, grown and finished before the message", async () => {
    replyStream(refusalChunks());
    const stream = newModel().streamEvents("hi");
    const seen: string[] = [];
    const grown: string[] = [];
    for await (const event of stream) {
      if (event.event === "content-block-delta") {
        const { fields } = event.delta as unknown as { fields: { refusal: string } };
        grown.push(fields.refusal);
      }
      const name = "index" in event ? `${event.event}:${event.index}` : event.event;
      // Slices read from the socket together come as one delta: count runs, not deltas.
      if (seen.at(-1) !== name) seen.push(name);
    }
    expect(seen).toEqual([
      "message-start",
      "provider",
      "content-block-start:0",
      "content-block-delta:0",
      "usage",
      "content-block-finish:0",
      "message-finish",
    ]);
    // Each delta holds the refusal so far, ending with the whole of it.
    expect(grown.at(-1)).toBe(REFUSAL);
    for (const text of grown) expect(REFUSAL.startsWith(text)).toBe(true);
    const message = await stream.output;
    expect(message.contentBlocks).toEqual([{ type: "refusal", refusal: REFUSAL }]);
    expect(refusalOfMessage(message)).toBe(REFUSAL);
  });

  it("content-block events: a refusal beside text keeps each block whole", async () => {
    const base = { id: "c", object: "chat.completion.chunk", created: 1, model: MODEL };
    replyStream([
      { ...base, choices: [{ index: 0, delta: { content: "Sorry. " }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { refusal: "No." }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { content: "Bye." }, finish_reason: "stop" }] },
    ]);
    const message = await newModel().streamEvents("hi").output;
    expect(message.contentBlocks).toEqual([
      { type: "text", text: "Sorry. Bye." },
      { type: "refusal", refusal: "No." },
    ]);
  });
});

describe("when a callback handler prefers content-block events (LangGraph's message streaming)", () => {
  // Core 1.4 then builds invoke's message from `_streamChatModelEvents`; older cores ignore the
  // flag and take the usual path: the outcome must be the same either way.
  const eventHandler = {
    lc_prefer_chat_model_stream_events: true,
    handleChatModelStreamEvent: () => {},
  };

  it("invoke's message has the refusal block", async () => {
    const streamed = replyStream(refusalChunks());
    replyJson(refusedCompletion);
    const reply = await newModel().invoke("hi", { callbacks: [eventHandler as never] });
    // Core 1.4 (the core with ModelRefusalError) took the event path: the streamed request.
    if (CoreModelRefusalError) expect(streamed.bodies).toHaveLength(1);
    expect(reply.contentBlocks).toEqual([{ type: "refusal", refusal: REFUSAL }]);
    expect(refusalOfMessage(reply)).toBe(REFUSAL);
  });

  it.each(["jsonSchema", "functionCalling"] as const)(
    "withStructuredOutput (%s) raises ModelRefusalError",
    async (method) => {
      replyStream(refusalChunks());
      replyJson(refusedCompletion);
      const structured = newModel().withStructuredOutput(schemas.zod, { method });
      const error = await rejection(() =>
        structured.invoke("hi", { callbacks: [eventHandler as never] }),
      );
      expectRefusalError(error);
    },
  );
});

const schemas = {
  zod: z.object({ title: z.string() }),
  "JSON schema": {
    title: "movie",
    type: "object",
    properties: { title: { type: "string" } },
    required: ["title"],
  },
} as const;
const METHODS = ["jsonSchema", "jsonMode", "functionCalling"] as const;

describe.each(Object.entries(schemas))("withStructuredOutput with a %s", (_, schema) => {
  it.each(METHODS)("%s, invoked: ModelRefusalError with the refusal text", async (method) => {
    replyJson(refusedCompletion);
    const structured = newModel().withStructuredOutput(schema, { method });
    expectRefusalError(await rejection(() => structured.invoke("hi")));
  });

  it.each(METHODS)("%s, streamed: ModelRefusalError with the refusal text", async (method) => {
    replyStream(refusalChunks());
    const structured = newModel().withStructuredOutput(schema, { method });
    const values: unknown[] = [];
    const error = await rejection(async () => {
      for await (const value of await structured.stream("hi")) values.push(value);
    });
    expectRefusalError(error);
    expect(values).toEqual([]);
  });

  it.each(METHODS)("%s with streaming: true: ModelRefusalError", async (method) => {
    replyStream(refusalChunks());
    const structured = newModel({ streaming: true }).withStructuredOutput(schema, { method });
    expectRefusalError(await rejection(() => structured.invoke("hi")));
  });

  it.each(METHODS)("%s with includeRaw: parsed null, the error as parsingError", async (method) => {
    replyJson(refusedCompletion);
    const structured = newModel().withStructuredOutput(schema, { method, includeRaw: true });
    const result = (await structured.invoke("hi")) as {
      raw: AIMessage;
      parsed: unknown;
      parsingError: unknown;
    };
    expect(result.parsed).toBeNull();
    expect(result.raw.additional_kwargs.refusal).toBe(REFUSAL);
    expectRefusalError(result.parsingError);
  });
});

describe("the error on every core", () => {
  it("without core's ModelRefusalError: an error of that name with the refusal text", () => {
    const raw = new AIMessage({ content: "", additional_kwargs: { refusal: REFUSAL } });
    const error = modelRefusalError(REFUSAL, raw, null);
    expect(error).toBeInstanceOf(StudioModelRefusalError);
    expect(error.name).toBe("ModelRefusalError");
    expect(error.message).toBe(ERROR_TEXT);
    expect((error as StudioModelRefusalError).rawMessage).toBe(raw);
  });

  it("with core's class, the same text as core's own parsers give", () => {
    const error = modelRefusalError(REFUSAL);
    expect(error.name).toBe("ModelRefusalError");
    expect(error.message).toBe(ERROR_TEXT);
  });

  it("refusal blocks in the content count as the refusal too", () => {
    const message = new AIMessage({
      content: [{ type: "refusal", refusal: "No" } as never, { type: "text", text: "." }],
    });
    expect(refusalOfMessage(message)).toBe("No");
    expect(refusalOfMessage(new AIMessage("fine"))).toBeUndefined();
  });
});
