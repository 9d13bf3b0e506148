/**
 * Aborting a streamed call stops reading at once and frees the connection, against an emulator
 * that pauses between chunks.
 */
import type { AIMessageChunk } from "@langchain/core/messages";
import { afterAll, expect, it } from "vitest";
import { ChatStudio } from "../../../src/chat_models";
import { useEmulator } from "../../helpers/emulator";

const emulator = useEmulator({ chunkDelayMs: 20 });
let model: ChatStudio | undefined;

afterAll(async () => {
  await model?.client.close();
});

const LONG = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");

it("abort mid-stream stops the stream; the model keeps working afterwards", async () => {
  const { apiKey, proxyUrl } = emulator.handle;
  model = new ChatStudio({ model: "studio/echo-small", apiKey, proxyUrl, maxRetries: 0 });
  const controller = new AbortController();
  const received: AIMessageChunk[] = [];
  let error: unknown;
  try {
    for await (const chunk of await model.stream(LONG, { signal: controller.signal })) {
      received.push(chunk);
      if (received.length === 3) controller.abort();
      if (received.length > 50) break;
    }
  } catch (e) {
    error = e;
  }
  expect(error).toBeDefined();
  expect(String((error as Error).name) + String((error as Error).message)).toMatch(/abort/i);
  // Stopped right away: no chunk is handed out after the abort.
  expect(received).toHaveLength(3);

  const reply = await model.invoke("still alive?");
  expect(reply.content).toBe("You said: still alive?");
});

it("abort before the call starts sends nothing", async () => {
  const { apiKey, proxyUrl } = emulator.handle;
  model ??= new ChatStudio({ model: "studio/echo-small", apiKey, proxyUrl });
  const before = emulator.handle.requests.length;
  await expect(model.invoke("x", { signal: AbortSignal.abort() })).rejects.toThrow();
  expect(emulator.handle.requests.length).toBe(before);
});

it("abort during invoke with streaming: true rejects", async () => {
  const { apiKey, proxyUrl } = emulator.handle;
  const streaming = new ChatStudio({
    model: "studio/echo-small",
    apiKey,
    proxyUrl,
    streaming: true,
  });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  await expect(streaming.invoke(LONG, { signal: controller.signal })).rejects.toThrow(/abort/i);
  await streaming.client.close();
});
