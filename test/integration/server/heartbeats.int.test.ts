/**
 * Heartbeats on an idle stream (`heartbeatIntervalMs`): while the graph waits at a gate the test
 * holds, the run's stream carries `: heartbeat` comments and a join's JSON answer newlines, so a
 * proxy sees bytes; the SDK reads the same events as without them. The interval is a millisecond
 * so the test waits for the first heartbeat, not for a clock.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { gatedGraph } from "./gated-graph";
import { postRun, sdkClient, studioServer } from "./harness";
import { collect, say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

/** Reads `body` until its text so far matches `pattern`; returns the text and the reader. */
async function readUntil(body: ReadableStream<Uint8Array>, pattern: RegExp) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!pattern.test(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before ${pattern}: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return { text, reader, decoder };
}

async function rest(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  decoder: InstanceType<typeof TextDecoder>,
) {
  let text = "";
  while (true) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
  }
}

describe("heartbeats", () => {
  it("sends heartbeat comments on a run's stream while the graph is silent", async () => {
    const slow = gatedGraph();
    const { handler } = studioServer(emulator.handle, {
      graphs: { slow: slow.graph },
      heartbeatIntervalMs: 1,
    });
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const response = await handler(
      postRun(thread.thread_id, {
        assistant_id: "slow",
        input: say("wait"),
        stream_mode: "values",
      }),
    );
    const { text, reader, decoder } = await readUntil(response.body!, /^: heartbeat$/m);
    expect(text).toMatch(/^event: metadata\n/);
    slow.open(0);
    const after = await rest(reader, decoder);
    expect(after).toMatch(/"content":"Slowly: wait"/);
  });

  it("gives the SDK the same events with heartbeats as without", async () => {
    const slow = gatedGraph();
    const { handler } = studioServer(emulator.handle, {
      graphs: { slow: slow.graph },
      heartbeatIntervalMs: 1,
    });
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const response = await handler(
      postRun(thread.thread_id, {
        assistant_id: "slow",
        input: say("quiet"),
        on_disconnect: "continue",
        stream_resumable: true,
      }),
    );
    const runId = /runs\/([^/]+)$/.exec(response.headers.get("Content-Location") ?? "")?.[1];
    await readUntil(response.body!, /^: heartbeat$/m);
    const joined = collect(client.runs.joinStream(thread.thread_id, runId!, { lastEventId: "-1" }));
    slow.open(0);
    const events = await joined;
    expect(events.map((e) => e.event)).toEqual(["metadata", "values", "values"]);
    expect(texts(events.at(-1)?.data)).toEqual(["quiet", "Slowly: quiet"]);
  });

  it("sends newlines before a join's JSON answer while the run goes on", async () => {
    const slow = gatedGraph();
    const { handler } = studioServer(emulator.handle, {
      graphs: { slow: slow.graph },
      heartbeatIntervalMs: 1,
    });
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: say("join") });
    const response = await handler(
      new Request(`http://agent.test/threads/${thread.thread_id}/runs/${run.run_id}/join`),
    );
    const { text, reader, decoder } = await readUntil(response.body!, /\n/);
    expect(text.trim()).toBe("");
    slow.open(0);
    const body = text + (await rest(reader, decoder));
    expect(texts(JSON.parse(body))).toEqual(["join", "Slowly: join"]);
  });
});
