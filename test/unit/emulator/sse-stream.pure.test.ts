/**
 * The web-stream sink of the in-process fetch: text reaches the reader in order, a writer past the
 * high-water mark waits until the reader reads, a cut delivers what was sent before its error, and
 * a cancelled reader shows as a closed connection.
 */
import { describe, expect, it } from "vitest";
import { createSseOut } from "../../../src/emulator/sse";
import { streamSseSink } from "../../../src/emulator/sse-stream";

const decoder = new TextDecoder();

async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
  return text;
}

describe("streamSseSink", () => {
  it("delivers the events in order, then [DONE], and closes", async () => {
    const sink = streamSseSink(() => new Error("cut"));
    const out = createSseOut(sink);
    out.send('{"a":1}');
    out.send('{"a":2}');
    await out.done();
    expect(await readAll(sink.body)).toBe('data: {"a":1}\n\ndata: {"a":2}\n\ndata: [DONE]\n\n');
  });

  it("a writer past the high-water mark waits until the reader reads", async () => {
    const sink = streamSseSink(() => new Error("cut"));
    const big = "x".repeat(300 * 1024);
    const waiting = sink.write(big);
    expect(waiting).toBeInstanceOf(Promise);
    let released = false;
    void waiting!.then(() => {
      released = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(released).toBe(false);
    const reader = sink.body.getReader();
    const { value } = await reader.read();
    expect(value!.length).toBe(big.length);
    await waiting;
    expect(released).toBe(true);
  });

  it("a cut delivers the events already sent, then errors the body", async () => {
    const sink = streamSseSink(() => new TypeError("terminated"));
    const out = createSseOut(sink, { cutAfter: 2 });
    out.send('{"a":1}');
    out.send('{"a":2}');
    expect(out.closed).toBe(true);
    expect(out.send('{"a":3}')).toBeUndefined();
    const reader = sink.body.getReader();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('data: {"a":1}\n\ndata: {"a":2}\n\n');
    await expect(reader.read()).rejects.toThrow("terminated");
  });

  it("a cancelled reader closes the writer's side and releases a waiting writer", async () => {
    const sink = streamSseSink(() => new Error("cut"));
    const waiting = sink.write("y".repeat(300 * 1024));
    await sink.body.cancel();
    await waiting;
    expect(sink.closed).toBe(true);
    expect(createSseOut(sink).closed).toBe(true);
  });

  it("abort errors the body at once with the reason", async () => {
    const sink = streamSseSink(() => new Error("cut"));
    sink.write("data: 1\n\n");
    sink.abort(new Error("aborted by caller"));
    await expect(sink.body.getReader().read()).rejects.toThrow("aborted by caller");
  });
});
