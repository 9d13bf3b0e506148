/**
 * The batch view of a stream (`streamChatCompletionBatches`, used by ChatStudio): the chunks of
 * each network read together, the same order of chunks and errors as the per-chunk stream, the
 * request cancelled on an early exit, and a client subclass's own `streamChatCompletion` honoured.
 * The body is a ReadableStream handed out by an injected fetch, so every read is scripted.
 */
import { describe, expect, it } from "vitest";
import type { ChatCompletionChunk, ChatCompletionRequest } from "../../../src/api-types";
import { StudioClient, streamChatCompletionBatches } from "../../../src/client";
import type { RequestOptions } from "../../../src/client/types";
import { StudioStreamError } from "../../../src/errors";
import { KEY, PROXY, sse } from "./helpers";

const body: ChatCompletionRequest = {
  model: "owner/model",
  messages: [{ role: "user", content: "hi" }],
};

function delta(content: string, finish: string | null = null): ChatCompletionChunk {
  return {
    id: "c",
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  };
}

interface Scripted {
  client: StudioClient;
  /** Set once the client cancelled the body. */
  cancelled: () => boolean;
}

/** A client whose stream answer is `reads`, one read each; the last read leaves it open. */
function scripted(reads: string[], { end = true } = {}): Scripted {
  let cancelled = false;
  const encoder = new TextEncoder();
  const fetch = async (): Promise<Response> => {
    let next = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const text = reads[next++];
        if (text !== undefined) controller.enqueue(encoder.encode(text));
        else if (end) controller.close();
      },
      cancel() {
        cancelled = true;
      },
    });
    return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  return {
    client: new StudioClient({ apiKey: KEY, proxyUrl: PROXY, fetch }),
    cancelled: () => cancelled,
  };
}

async function batchesOf(client: StudioClient): Promise<string[][]> {
  const out: string[][] = [];
  for await (const batch of streamChatCompletionBatches(client, body)) {
    out.push(batch.map((chunk) => chunk.choices[0]?.delta?.content ?? ""));
  }
  return out;
}

describe("streamChatCompletionBatches", () => {
  it("hands out the chunks of each read together, in order", async () => {
    const { client } = scripted([
      sse(delta("a"), delta("b"), delta("c")),
      `${sse(delta("d"))}data: {"id":"c","choices":[{"index":0,"delta":{"content":"e"}`,
      `,"finish_reason":"stop"}]}\n\n${sse("[DONE]")}`,
    ]);
    expect(await batchesOf(client)).toEqual([["a", "b", "c"], ["d"], ["e"]]);
  });

  it("gives the same chunks as the per-chunk stream", async () => {
    const reads = [sse(delta("a"), delta("b")), sse(delta("c", "stop"), "[DONE]")];
    const perChunk: string[] = [];
    for await (const chunk of scripted(reads).client.streamChatCompletion(body)) {
      perChunk.push(chunk.choices[0]?.delta?.content ?? "");
    }
    expect((await batchesOf(scripted(reads).client)).flat()).toEqual(perChunk);
  });

  it("a bad event: the good chunks of its read come first, then the error", async () => {
    const reads = [sse(delta("a")), sse(delta("b"), { id: "c", choices: "no" }, delta("c"))];
    const seen: string[][] = [];
    let error: unknown;
    try {
      for await (const batch of streamChatCompletionBatches(scripted(reads).client, body)) {
        seen.push(batch.map((chunk) => chunk.choices[0]?.delta?.content ?? ""));
      }
    } catch (e) {
      error = e;
    }
    expect(seen).toEqual([["a"], ["b"]]);
    expect(error).toBeInstanceOf(StudioStreamError);
    expect((error as Error).message).toContain("field choices");

    const perChunk: string[] = [];
    let perChunkError: unknown;
    try {
      for await (const chunk of scripted(reads).client.streamChatCompletion(body)) {
        perChunk.push(chunk.choices[0]?.delta?.content ?? "");
      }
    } catch (e) {
      perChunkError = e;
    }
    expect(perChunk).toEqual(["a", "b"]);
    expect(perChunkError).toBeInstanceOf(StudioStreamError);
  });

  it("a stream cut mid-answer ends with a StudioStreamError after its chunks", async () => {
    const seen: string[] = [];
    let error: unknown;
    try {
      for await (const batch of streamChatCompletionBatches(
        scripted([sse(delta("a"), delta("b"))]).client,
        body,
      )) {
        for (const chunk of batch) seen.push(chunk.choices[0]?.delta?.content ?? "");
      }
    } catch (e) {
      error = e;
    }
    expect(seen).toEqual(["a", "b"]);
    expect(error).toBeInstanceOf(StudioStreamError);
    expect((error as Error).message).toMatch(/before \[DONE\]/);
  });

  it("leaving the loop early cancels the request", async () => {
    const { client, cancelled } = scripted([sse(delta("a"), delta("b"))], { end: false });
    for await (const batch of streamChatCompletionBatches(client, body)) {
      expect(batch).toHaveLength(2);
      break;
    }
    expect(cancelled()).toBe(true);
  });

  it("is lazy: nothing is sent until iteration starts", async () => {
    let calls = 0;
    const client = new StudioClient({
      apiKey: KEY,
      proxyUrl: PROXY,
      fetch: async () => {
        calls++;
        return new Response(sse(delta("a", "stop")), {
          headers: { "content-type": "text/event-stream" },
        });
      },
    });
    const batches = streamChatCompletionBatches(client, body);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(calls).toBe(0);
    for await (const _ of batches);
    expect(calls).toBe(1);
  });

  it("honours a subclass's own streamChatCompletion (batches of one)", async () => {
    class Wrapped extends StudioClient {
      override async *streamChatCompletion(
        _body: ChatCompletionRequest,
        _options?: RequestOptions,
      ): AsyncGenerator<ChatCompletionChunk> {
        yield delta("from");
        yield delta(" subclass", "stop");
      }
    }
    const client = new Wrapped({ apiKey: KEY, proxyUrl: PROXY });
    expect(await batchesOf(client)).toEqual([["from"], [" subclass"]]);
  });
});
