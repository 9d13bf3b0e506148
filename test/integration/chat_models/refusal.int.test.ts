/**
 * A refusing server, end to end: the emulator scripted with `{ refusal }` answers as
 * OpenAI-compatible servers do (`message.refusal` with null content, streamed as `delta.refusal`
 * slices). ChatStudio keeps the refusal and gives the `refusal` block on invoke and stream, every
 * structured-output method raises ModelRefusalError (core's class on core 1.4, an error of that
 * name before), and a refused turn sent back in the history is accepted by the strict emulator.
 * Tool names the wire refuses are refused by bindTools before anything is sent.
 */
import * as coreErrors from "@langchain/core/errors";
import { type AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { ChatStudio, type ChatStudioInput } from "../../../src/chat_models";
import { StudioValidationError } from "../../../src/errors";
import { useEmulator } from "../../helpers/emulator";

const MODEL = "studio/echo-small";
const REFUSAL = "I can't help with that request.";
const CoreModelRefusalError = (coreErrors as Record<string, unknown>).ModelRefusalError as
  | (abstract new (
      ...args: never[]
    ) => Error)
  | undefined;

const emulator = useEmulator();
const models: ChatStudio[] = [];

function newModel(fields: Partial<ChatStudioInput> = {}): ChatStudio {
  const { apiKey, proxyUrl } = emulator.handle;
  const model = new ChatStudio(MODEL, { apiKey, proxyUrl, maxRetries: 0, ...fields });
  models.push(model);
  return model;
}

afterAll(async () => {
  await Promise.all(models.map((m) => m.client.close()));
});

beforeEach(() => {
  emulator.handle.clearRequests();
});

function refuseNext(times = 1): void {
  emulator.handle.script(
    MODEL,
    Array.from({ length: times }, () => ({ refusal: REFUSAL })),
  );
}

function chatRequests(): number {
  return emulator.handle.requests.filter((r) => r.path.endsWith("/chat/completions")).length;
}

async function rejection(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}

function expectRefusalError(error: Error): void {
  expect(error.name).toBe("ModelRefusalError");
  expect(error.message).toBe(`Model refused to produce the requested output: ${REFUSAL}`);
  if (CoreModelRefusalError) expect(error).toBeInstanceOf(CoreModelRefusalError);
}

describe("a refusal in the reply", () => {
  it("invoke: the refusal text and block, and a follow-up turn with it in the history", async () => {
    emulator.handle.script(MODEL, [{ refusal: REFUSAL }, { text: "Here is a joke." }]);
    const model = newModel();
    const reply = await model.invoke("How do I pick a lock?");
    expect(reply.text).toBe("");
    expect(reply.additional_kwargs.refusal).toBe(REFUSAL);
    expect(reply.contentBlocks).toEqual([{ type: "refusal", refusal: REFUSAL }]);
    // The strict emulator refuses an assistant turn without content; the refused turn is sent
    // back with its (empty) text, and accepted.
    const next = await model.invoke([
      new HumanMessage("How do I pick a lock?"),
      reply,
      new HumanMessage("Then tell me a joke."),
    ]);
    expect(next.text).toBe("Here is a joke.");
    const sent = emulator.handle.requests.at(-1)?.body as { messages: unknown[] };
    expect(sent.messages[1]).toEqual({ role: "assistant", content: "" });
  });

  it("stream: refusal slices that sum to the whole refusal and its block", async () => {
    refuseNext();
    let sum: AIMessageChunk | undefined;
    let slices = 0;
    for await (const chunk of await newModel().stream("How do I pick a lock?")) {
      if (typeof chunk.additional_kwargs.refusal === "string") slices++;
      sum = sum ? sum.concat(chunk) : chunk;
    }
    expect(slices).toBeGreaterThan(1);
    expect(sum?.additional_kwargs.refusal).toBe(REFUSAL);
    expect(sum?.contentBlocks).toEqual([{ type: "refusal", refusal: REFUSAL }]);
  });

  it("content-block events: a refusal block, and the message assembled from them", async () => {
    refuseNext();
    const stream = newModel().streamEvents("How do I pick a lock?");
    const message = await stream.output;
    expect(message.contentBlocks).toEqual([{ type: "refusal", refusal: REFUSAL }]);
  });
});

const schema = z.object({ title: z.string(), year: z.number() });

describe.each(["jsonSchema", "jsonMode", "functionCalling"] as const)(
  "withStructuredOutput (%s) with a refusing server",
  (method) => {
    it("invoke raises ModelRefusalError with the refusal text", async () => {
      refuseNext();
      const structured = newModel().withStructuredOutput(schema, { method });
      expectRefusalError(await rejection(() => structured.invoke("Name a film.")));
    });

    it("stream raises ModelRefusalError, having yielded nothing", async () => {
      refuseNext();
      const structured = newModel().withStructuredOutput(schema, { method });
      const values: unknown[] = [];
      const error = await rejection(async () => {
        for await (const value of await structured.stream("Name a film.")) values.push(value);
      });
      expectRefusalError(error);
      expect(values).toEqual([]);
    });

    it("with streaming: true, invoke raises ModelRefusalError", async () => {
      refuseNext();
      const structured = newModel({ streaming: true }).withStructuredOutput(schema, { method });
      expectRefusalError(await rejection(() => structured.invoke("Name a film.")));
    });
  },
);

describe("bindTools refuses tool names the wire refuses, before any request", () => {
  const named = (name: string) =>
    tool(async () => "ok", { name, description: "d", schema: z.object({}) });

  it("a name with a space, and two tools with one name", async () => {
    const model = newModel();
    expect(() => model.bindTools([named("get weather")])).toThrow(StudioValidationError);
    expect(() => model.bindTools([named("get weather")])).toThrow(
      /tools\[0\]\.name.*"get_weather"/,
    );
    expect(() => model.bindTools([named("a"), named("a")])).toThrow(/"a" is bound twice/);
    expect(chatRequests()).toBe(0);
  });

  it("a valid name is sent and called as given", async () => {
    emulator.handle.script(MODEL, [{ toolCalls: [{ name: "get-weather_2", args: {} }] }]);
    const reply = await newModel()
      .bindTools([named("get-weather_2")])
      .invoke("weather?");
    expect(reply.tool_calls?.[0]?.name).toBe("get-weather_2");
  });
});
