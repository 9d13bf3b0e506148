/**
 * Protocol v2 across three instances (#35): a thread's v2 events are shared through Redis, so a
 * run started through one instance is read through any other, mid-run and after, with `since`;
 * the thread's next run numbers on wherever it runs; a v2 run taken over after a kill, or handed
 * over by a drain, goes on streaming into the same events. Driven at the wire (commands and event
 * streams), each request pinned to an instance through the proxy.
 */
import { describe, expect, it } from "vitest";
import {
  ALL_CHANNELS,
  command,
  comparableEvents,
  readEvents,
  rootEnd,
  type WireEvent,
} from "../integration/server/protocol-v2-scripts";
import { say, texts } from "../integration/server/scripts";
import { gateName, STEPS, stepsReplies } from "./graphs";
import { useCluster } from "./harness";
import { INSTANCE_HEADER } from "./proxy";
import { holdStep, instanceIndex as indexOf, retried, threadTexts, unique } from "./runs";

const cluster = useCluster({ redis: true });

/** A handler through the proxy: to instance `index`, or round-robin. */
const via =
  (index?: number) =>
  async (request: Request): Promise<Response> => {
    const { pathname, search } = new URL(request.url);
    const headers = new Headers(request.headers);
    if (index !== undefined) headers.set(INSTANCE_HEADER, String(index));
    const body = await request.text();
    return fetch(`${cluster.get().proxy.url}${pathname}${search}`, {
      method: request.method,
      headers,
      ...(request.method === "GET" || request.method === "HEAD" ? {} : { body }),
    });
  };

/** Holds `text`'s run of `steps` at `step` (`holdStep`). */
const holdAt = (text: string, step: (typeof STEPS)[number]) =>
  holdStep(cluster.get().gates, text, step);

async function runStart(index: number, threadId: string, assistantId: string, text: string) {
  const started = await command(via(index), threadId, {
    id: 1,
    method: "run.start",
    params: { assistant_id: assistantId, input: say(text) },
  });
  expect(started.body).toMatchObject({ type: "success" });
  return started;
}

/** The thread's events through instance `index` (all channels) until the run's root end. */
function readThrough(index: number | undefined, threadId: string, since?: number) {
  const filter = { channels: ALL_CHANNELS, ...(since !== undefined ? { since } : {}) };
  return readEvents(via(index), threadId, filter, rootEnd);
}

/**
 * The events to the root's end as a client reads them when its stream may break: on a break it
 * reconnects through the load balancer with `since` its last `seq` (as the SDK does).
 */
async function readToEnd(first: number, threadId: string): Promise<WireEvent[]> {
  const seen: WireEvent[] = [];
  for (let attempt = 0; attempt < 4; attempt++) {
    const since = seen.at(-1)?.seq;
    const filter = { channels: ALL_CHANNELS, ...(since !== undefined ? { since } : {}) };
    const handler = attempt === 0 ? via(first) : via();
    try {
      await readEvents(handler, threadId, filter, (event) => {
        seen.push(event);
        return rootEnd(event);
      });
    } catch {
      // The instance serving the stream went away: read on from another.
    }
    if (seen.length > 0 && rootEnd(seen.at(-1)!)) return seen;
  }
  throw new Error(`the stream never reached the run's end: ${JSON.stringify(seqs(seen))}`);
}

const seqs = (events: readonly WireEvent[]) => events.map((event) => event.seq);
const counting = (from: number, events: readonly unknown[]) => events.map((_, i) => from + i);

/** The root's lifecycle events, in order. */
function rootLifecycle(events: readonly WireEvent[]): string[] {
  return events
    .filter((event) => event.method === "lifecycle" && event.params.namespace.length === 0)
    .map((event) => String(event.params.data.event));
}

/** The messages' texts of the last `values` event. */
function lastValues(events: readonly WireEvent[]): string[] {
  return texts(events.findLast((event) => event.method === "values")?.params.data ?? {});
}

describe("protocol v2 across instances", () => {
  it("a run started through one instance is read through another mid-run, and after with `since` through a third, as one instance serves it", async () => {
    const threadId = crypto.randomUUID();
    const text = unique("v2x");
    const two = holdAt(text, "two");
    await runStart(0, threadId, "steps", text);
    await two.reached();
    const runner = indexOf(two.by()[0]);
    const reader = (runner + 1) % 3;
    const live = readThrough(reader, threadId);
    two.open();
    const all = await live;
    expect(seqs(all)).toEqual(counting(1, all));
    expect(rootLifecycle(all)).toEqual(["running", "completed"]);
    expect(lastValues(all)).toEqual([text, ...stepsReplies(text)]);
    const since = all[3]!.seq;
    const later = await readThrough((runner + 2) % 3, threadId, since);
    expect(seqs(later)).toEqual(seqs(all.slice(4)));
    expect(later.map((event) => JSON.stringify(event))).toEqual(
      all.slice(4).map((event) => JSON.stringify(event)),
    );
    // The same run served by one instance alone: the same events, numbered the same.
    const alone = crypto.randomUUID();
    await runStart(runner, alone, "steps", text);
    const single = await readThrough(runner, alone);
    expect(seqs(single)).toEqual(seqs(all));
    expect(comparableEvents(all)).toEqual(comparableEvents(single));
  });

  it("the thread's next message, run on another instance, numbers on after the last event", async () => {
    const threadId = crypto.randomUUID();
    const first = unique("first");
    await runStart(0, threadId, "steps", first);
    const before = await readThrough(0, threadId);
    const next = unique("next");
    const one = holdAt(next, "one");
    await runStart(1, threadId, "steps", next);
    await one.reached();
    const runner = indexOf(one.by()[0]);
    // The next run's stream, read through the instance that is neither: it starts after the
    // first run's last event, and replays none of it.
    const reading = readThrough([0, 1, 2].find((i) => i !== runner && i !== 0) ?? 2, threadId);
    one.open();
    const after = await reading;
    expect(runner).not.toBe(-1);
    expect(seqs(after)).toEqual(counting(before.at(-1)!.seq + 1, after));
    expect(rootLifecycle(after)).toEqual(["running", "completed"]);
    expect(lastValues(after)).toEqual([first, ...stepsReplies(first), next, ...stepsReplies(next)]);
  });

  it("an interrupt read through one instance is answered with input.respond through another", async () => {
    const threadId = crypto.randomUUID();
    await runStart(0, threadId, "approval", "write to Ada");
    const asked = await readThrough(1, threadId);
    expect(rootLifecycle(asked)).toEqual(["running", "interrupted"]);
    const state = await retried(() => cluster.get().client(2).threads.getState(threadId));
    const interruptId = state.tasks.flatMap((task) => task.interrupts)[0]?.id;
    expect(interruptId).toBeTypeOf("string");
    const answered = await command(via(2), threadId, {
      id: 2,
      method: "input.respond",
      params: { namespace: [], interrupt_id: interruptId, response: "yes" },
    });
    expect(answered.body).toMatchObject({ type: "success" });
    const resumed = await readThrough(0, threadId);
    // The paused run's events are not replayed to a stream opened after the answer.
    expect(seqs(resumed)).toEqual(counting(asked.at(-1)!.seq + 1, resumed));
    expect(rootLifecycle(resumed)).toEqual(["running", "completed"]);
    expect(lastValues(resumed)).toEqual([
      "write to Ada",
      "Draft for: write to Ada",
      "Decision: yes",
    ]);
  });
});

describe("protocol v2 while Redis is down", () => {
  it("run.start is answered with an error on every instance, not held; after, v2 runs and reads again", async () => {
    const { redis } = cluster.get();
    const threadId = crypto.randomUUID();
    await redis?.stop();
    try {
      const answers = await Promise.all(
        [0, 1, 2].map((index) =>
          command(via(index), threadId, {
            id: 1,
            method: "run.start",
            params: { assistant_id: "steps", input: say(unique("down")) },
          }),
        ),
      );
      for (const answer of answers) {
        expect(answer.body).toMatchObject({ type: "error" });
        expect(String(answer.body.message)).toContain("coordinator is unreachable");
      }
    } finally {
      await redis?.start();
    }
    const text = unique("back");
    // Each instance reconnects by itself: the next run.start is admitted once it has.
    for (let attempt = 1; ; attempt++) {
      const started = await command(via(1), threadId, {
        id: 2,
        method: "run.start",
        params: { assistant_id: "steps", input: say(text) },
      });
      if (started.body.type === "success" || attempt >= 50) {
        expect(started.body).toMatchObject({ type: "success" });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const events = await readThrough(2, threadId);
    expect(rootLifecycle(events)).toEqual(["running", "completed"]);
    expect(lastValues(events)).toEqual([text, ...stepsReplies(text)]);
    // Every instance back on Redis before the next test: one that reconnects later answers 503.
    for (const index of [0, 1, 2]) {
      await retried(() => cluster.get().client(index).runs.list(threadId));
    }
  });
});

describe("the SDK's ThreadStream through the load balancer", () => {
  it("an interrupted turn read through the next instances, answered through another", async () => {
    // No instance pinned: the proxy sends each of the SDK's requests to the next instance.
    const client = cluster.get().client();
    const threadId = crypto.randomUUID();
    const asking = client.threads.stream(threadId, { assistantId: "approval" });
    await asking.run.start({ input: say("write to Ada") });
    await asking.values;
    expect(asking.interrupted).toBe(true);
    const [pending] = asking.interrupts;
    expect(pending?.payload).toEqual({ question: "Send the draft?" });
    await asking.close();
    // The answer's requests to one instance: the SDK opens its stream without waiting for
    // input.respond's answer, which only one instance orders (docs/deployment.md, Limits).
    const answering = cluster.get().client(2).threads.stream(threadId, { assistantId: "approval" });
    await answering.input.respond({
      namespace: [],
      interrupt_id: pending!.interruptId,
      response: "yes",
    });
    expect(texts(await answering.values)).toEqual([
      "write to Ada",
      "Draft for: write to Ada",
      "Decision: yes",
    ]);
    await answering.close();
    expect(await threadTexts(cluster.get().client(0), threadId)).toEqual([
      "write to Ada",
      "Draft for: write to Ada",
      "Decision: yes",
    ]);
  });
});

describe("v2 runs of instances that go away", () => {
  it("kill -9 of the instance running a v2 turn: taken over, the stream read elsewhere ends with the same answer, nothing twice", async () => {
    const cl = cluster.get();
    const threadId = crypto.randomUUID();
    const text = unique("v2-killed");
    const two = holdAt(text, "two");
    await runStart(0, threadId, "steps", text);
    await two.reached();
    const runner = indexOf(two.by()[0]);
    expect(runner).toBeGreaterThanOrEqual(0);
    const reading = readToEnd((runner + 1) % 3, threadId);
    try {
      await cl.kill(runner);
      two.open();
      // Taken over by another instance, which runs step two again (it was not checkpointed).
      await two.reached(2);
      expect(indexOf(two.by()[1])).not.toBe(runner);
      const events = await reading;
      expect(seqs(events)).toEqual(counting(1, events));
      expect(rootLifecycle(events)).toEqual(["running", "completed"]);
      expect(lastValues(events)).toEqual([text, ...stepsReplies(text)]);
      expect(await threadTexts(cl.client(), threadId)).toEqual([text, ...stepsReplies(text)]);
      // Step one once, or twice when its checkpoint was not stored yet (async writes).
      const [one, , three] = STEPS.map((step) => cl.gates.count(gateName(text, step)));
      expect([one === 1 || one === 2, three]).toEqual([true, 1]);
    } finally {
      if (!cl.running(runner)) await cl.respawn(runner);
    }
  });

  it("SIGTERM mid v2 run: handed over at a superstep boundary, the stream goes on to the same answer", async () => {
    const cl = cluster.get();
    const threadId = crypto.randomUUID();
    const text = unique("v2-drained");
    const two = holdAt(text, "two");
    const three = holdAt(text, "three");
    await runStart(1, threadId, "steps", text);
    await two.reached();
    const runner = indexOf(two.by()[0]);
    // Read through the instance that drains: its stream breaks, the client reads on elsewhere.
    const reading = readToEnd(runner, threadId);
    try {
      const { draining, exited } = cl.shutdown(runner);
      await draining;
      two.open();
      await three.reached();
      expect(indexOf(three.by()[0])).not.toBe(runner);
      three.open();
      const events = await reading;
      await exited;
      expect(seqs(events)).toEqual(counting(1, events));
      expect(rootLifecycle(events)).toEqual(["running", "completed"]);
      expect(lastValues(events)).toEqual([text, ...stepsReplies(text)]);
      expect(STEPS.map((step) => cl.gates.count(gateName(text, step)))).toEqual([1, 1, 1]);
    } finally {
      if (!cl.running(runner)) await cl.respawn(runner);
    }
  });
});
