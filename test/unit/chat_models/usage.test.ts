/**
 * Usage as the server sends it: every member (a gateway's `cost`) in `response_metadata.usage`,
 * cache writes in `usage_metadata.input_token_details.cache_creation`, invoked or streamed
 * (where both ride on the usage-only final chunk), and in the content-block event stream.
 */
import type { AIMessageChunk } from "@langchain/core/messages";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { completion, newModel, replyJson, replyStream, textChunks } from "./helpers";

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

/** What an OpenRouter-style gateway sends: a cost, and cache reads and writes. */
const GATEWAY_USAGE = {
  prompt_tokens: 120,
  completion_tokens: 8,
  total_tokens: 128,
  cost: 0.00042,
  prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 20 },
  completion_tokens_details: { reasoning_tokens: 3 },
};
const USAGE_METADATA = {
  input_tokens: 120,
  output_tokens: 8,
  total_tokens: 128,
  input_token_details: { cache_read: 100, cache_creation: 20 },
  output_token_details: { reasoning: 3 },
};

function gatewayStream() {
  const chunks = textChunks(["Hel", "lo"]);
  const last = chunks.at(-1);
  if (last) last.usage = GATEWAY_USAGE;
  return chunks;
}

describe("usage kept as sent", () => {
  it("invoke: response_metadata.usage holds every member; usage_metadata the cache write", async () => {
    replyJson(completion({ usage: GATEWAY_USAGE }));
    const reply = await newModel().invoke("hi");
    expect(reply.response_metadata.usage).toEqual(GATEWAY_USAGE);
    expect(reply.usage_metadata).toEqual(USAGE_METADATA);
  });

  it("stream: the usage-only final chunk carries both, once; the sum equals invoke's", async () => {
    replyStream(gatewayStream());
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await newModel().stream("hi")) chunks.push(chunk);
    const withUsage = chunks.filter((c) => c.response_metadata.usage !== undefined);
    expect(withUsage).toHaveLength(1);
    expect(withUsage[0]?.response_metadata.usage).toEqual(GATEWAY_USAGE);
    expect(withUsage[0]?.usage_metadata).toEqual(USAGE_METADATA);
    const sum = chunks.reduce((a, b) => a.concat(b));
    expect(sum.response_metadata.usage).toEqual(GATEWAY_USAGE);
    expect(sum.usage_metadata).toEqual(USAGE_METADATA);
  });

  it("stream with streamUsage: false: no usage anywhere", async () => {
    replyStream(gatewayStream());
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await newModel().stream("hi", { streamUsage: false })) {
      chunks.push(chunk);
    }
    expect(chunks.some((c) => c.response_metadata.usage !== undefined)).toBe(false);
    expect(chunks.some((c) => c.usage_metadata !== undefined)).toBe(false);
  });

  it("streamEvents: the usage event and the final message carry the same", async () => {
    replyStream(gatewayStream());
    const stream = newModel().streamEvents("hi");
    const usages: unknown[] = [];
    for await (const event of stream) if (event.event === "usage") usages.push(event.usage);
    expect(usages).toEqual([USAGE_METADATA]);
    const message = await stream.output;
    expect(message.usage_metadata).toEqual(USAGE_METADATA);
    expect(message.response_metadata.usage).toEqual(GATEWAY_USAGE);
  });
});
