/**
 * A prompt over the model's window (the emulator's models declare 8192 tokens, one token per four
 * characters) is refused by the emulator with an OpenAI-style 400 `context_length_exceeded`; the
 * models raise core's `ContextOverflowError`, the Studio error as its cause, so code that compacts
 * the history on that error and retries (as deep agents do) works with them.
 */
import { ContextOverflowError } from "@langchain/core/errors";
import { AIMessage, type BaseMessage, HumanMessage, trimMessages } from "@langchain/core/messages";
import { afterAll, describe, expect, it } from "vitest";
import { ChatStudio } from "../../../src/chat_models";
import { StudioBadRequestError } from "../../../src/errors";
import { StudioLLM } from "../../../src/llms";
import { useEmulator } from "../../helpers/emulator";

const MODEL = "studio/echo-small";
/** About 10,000 tokens by the emulator's rule: over the 8192-token window. */
const TOO_LONG = "word ".repeat(8_000);

const emulator = useEmulator();
const closers: { client: { close(): Promise<void> } }[] = [];

function chat(): ChatStudio {
  const { apiKey, proxyUrl } = emulator.handle;
  const model = new ChatStudio(MODEL, { apiKey, proxyUrl, maxRetries: 0 });
  closers.push(model);
  return model;
}

function llm(): StudioLLM {
  const { apiKey, proxyUrl } = emulator.handle;
  const model = new StudioLLM("studio/echo-text", { apiKey, proxyUrl, maxRetries: 0 });
  closers.push(model);
  return model;
}

afterAll(async () => {
  await Promise.all(closers.map((m) => m.client.close()));
});

async function overflowOf(call: () => Promise<unknown>): Promise<ContextOverflowError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(ContextOverflowError.isInstance(error)).toBe(true);
  const overflow = error as ContextOverflowError;
  expect(overflow.cause).toBeInstanceOf(StudioBadRequestError);
  expect((overflow.cause as StudioBadRequestError).code).toBe("context_length_exceeded");
  return overflow;
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream);
}

describe("ChatStudio", () => {
  it("invoke, stream and batch raise ContextOverflowError", async () => {
    const model = chat();
    const error = await overflowOf(() => model.invoke(TOO_LONG));
    expect(error.message).toMatch(/maximum context length is 8192 tokens/);
    await overflowOf(async () => drain(await model.stream(TOO_LONG)));
    const [ok, refused] = await model.batch(["hello", TOO_LONG], {}, { returnExceptions: true });
    expect((ok as AIMessage).text).toBe("You said: hello");
    expect(ContextOverflowError.isInstance(refused)).toBe(true);
  });

  it("compacting the history on the error and retrying gets an answer", async () => {
    const model = chat();
    const history: BaseMessage[] = [
      new HumanMessage(TOO_LONG),
      new AIMessage("noted"),
      new HumanMessage("and now a short question"),
    ];
    let reply: AIMessage;
    try {
      reply = await model.invoke(history);
      throw new Error("the emulator should have refused the long history");
    } catch (error) {
      if (!ContextOverflowError.isInstance(error)) throw error;
      const compacted = await trimMessages(history, {
        maxTokens: 4_000,
        strategy: "last",
        tokenCounter: model,
      });
      reply = await model.invoke(compacted);
    }
    expect(reply.text).toBe("You said: and now a short question");
  });
});

describe("StudioLLM", () => {
  it("invoke and stream raise ContextOverflowError", async () => {
    const model = llm();
    await overflowOf(() => model.invoke(TOO_LONG));
    await overflowOf(async () => drain(await model.stream(TOO_LONG)));
  });
});
