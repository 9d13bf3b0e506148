/**
 * Shared setup of the ChatStudio unit tests: a model whose client uses the fetch transport, so
 * nock intercepts every request, and helpers that record the request bodies nock receives.
 */
import nock from "nock";
import type { ChatCompletion, ChatCompletionChunk } from "../../../src/api-types";
import { ChatStudio, type ChatStudioInput } from "../../../src/chat_models";

export const ORIGIN = "https://studio.test";
export const PROXY_URL = `${ORIGIN}/inference`;
export const PATH = "/inference/chat/completions";
export const KEY = "sk-chat-unit-secret-0123456789";
export const MODEL = "studio/echo-small";

/** The public model listing with MODEL as a tool-capable chat model of a 32,768-token window. */
export const modelListing = {
  models: [
    {
      id: "m1",
      uri: MODEL,
      meta: {
        metadata: {
          description: { model_tags: ["chat", "tools"] },
          extra_args: { max_model_len: "32768" },
        },
        modality: "MODALITY_TEXT",
      },
    },
  ],
  page: { nextPageToken: "" },
};

export function newModel(fields: Partial<ChatStudioInput> = {}): ChatStudio {
  return new ChatStudio({
    model: MODEL,
    apiKey: KEY,
    proxyUrl: PROXY_URL,
    fetch: globalThis.fetch,
    maxRetries: 0,
    ...fields,
  });
}

export function completion(overrides: Partial<ChatCompletion> = {}): ChatCompletion {
  return {
    id: "chatcmpl-unit",
    object: "chat.completion",
    created: 1_700_000_000,
    model: MODEL,
    usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 },
    choices: [
      { index: 0, message: { role: "assistant", content: "You said: hi" }, finish_reason: "stop" },
    ],
    ...overrides,
  };
}

/** Replies once with `body` and records the request body; `bodies` fills as requests arrive. */
export function replyJson(body: unknown, status = 200): { bodies: Record<string, unknown>[] } {
  const bodies: Record<string, unknown>[] = [];
  nock(ORIGIN)
    .post(PATH, (received: Record<string, unknown>) => {
      bodies.push(received);
      return true;
    })
    .reply(status, body as nock.Body);
  return { bodies };
}

/** The SSE text a server of this family sends for `chunks`, ending with `[DONE]`. */
export function sseText(chunks: readonly unknown[], done = true): string {
  let text = "";
  for (const chunk of chunks) text += `data: ${JSON.stringify(chunk)}\n\n`;
  return done ? `${text}data: [DONE]\n\n` : text;
}

/** Replies once with an event stream of `chunks` and records the request body. */
export function replyStream(
  chunks: readonly unknown[],
  done = true,
): { bodies: Record<string, unknown>[] } {
  const bodies: Record<string, unknown>[] = [];
  nock(ORIGIN)
    .post(PATH, (received: Record<string, unknown>) => {
      bodies.push(received);
      return true;
    })
    .reply(200, sseText(chunks, done), { "content-type": "text/event-stream" });
  return { bodies };
}

/** The chunks the emulator's layout gives for a text reply, then a usage-only chunk. */
export function textChunks(text: string[], finish = "stop"): ChatCompletionChunk[] {
  const base = { id: "chatcmpl-s", object: "chat.completion.chunk", created: 1, model: MODEL };
  return [
    {
      ...base,
      choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
    },
    ...text.map((t) => ({
      ...base,
      choices: [{ index: 0, delta: { content: t }, finish_reason: null }],
    })),
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] },
    {
      ...base,
      choices: [],
      usage: { prompt_tokens: 2, completion_tokens: text.length, total_tokens: 2 + text.length },
    },
  ];
}
