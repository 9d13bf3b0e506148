/**
 * Runs coordinated across three instances through Redis (#35), driven with the SDK's `Client`
 * through a round-robin proxy: each run stops at a step the test holds (the gate server), so
 * "mid-run" is a known point between two checkpoints, not a moment on the clock.
 */
import { describe, expect, it } from "vitest";
import {
  ALL_CHANNELS,
  command,
  readEvents,
  rootEnd,
} from "../integration/server/protocol-v2-scripts";
import { say, texts } from "../integration/server/scripts";
import { gateName, STEPS, stepsReplies } from "./graphs";
import { useCluster } from "./harness";
import { INSTANCE_HEADER } from "./proxy";
import {
  follow,
  holdStep,
  instanceIndex as indexOf,
  lastValues,
  SYNC,
  startSteps,
  statusOf,
  threadTexts,
  unique,
} from "./runs";

const cluster = useCluster({ redis: true });

/** A background run of `steps` on `threadId` through instance `via` (`startSteps`). */
const startRun = (via: number, threadId: string, text: string, extra = {}) =>
  startSteps(cluster.get().client(via), threadId, text, extra);

/** Holds `text`'s run of `steps` at `step` (`holdStep`). */
const holdAt = (text: string, step: (typeof STEPS)[number]) =>
  holdStep(cluster.get().gates, text, step);

describe("one run per thread, across instances", () => {
  it("answers 409 from every instance while another one runs the thread", async () => {
    const { client } = cluster.get();
    const thread = await client(0).threads.create();
    const text = unique("busy");
    const two = holdAt(text, "two");
    const runId = await startRun(0, thread.thread_id, text);
    await two.reached();
    for (const via of [1, 2, 0]) {
      const second = startRun(via, thread.thread_id, unique("second"), {
        multitaskStrategy: "reject",
      });
      expect(await statusOf(second)).toBe(409);
    }
    two.open();
    await client(2).runs.join(thread.thread_id, runId);
    expect(await threadTexts(client(1), thread.thread_id)).toEqual([text, ...stepsReplies(text)]);
  });

  it("runs enqueued runs in the order they were sent, whichever instance took them", async () => {
    const { client } = cluster.get();
    const thread = await client(0).threads.create();
    const [a, b, c] = [unique("a"), unique("b"), unique("c")];
    const one = holdAt(a, "one");
    await startRun(0, thread.thread_id, a);
    await one.reached();
    await startRun(1, thread.thread_id, b, { multitaskStrategy: "enqueue" });
    const last = await startRun(2, thread.thread_id, c, { multitaskStrategy: "enqueue" });
    one.open();
    await client(1).runs.join(thread.thread_id, last);
    expect(await threadTexts(client(0), thread.thread_id)).toEqual([
      a,
      ...stepsReplies(a),
      b,
      ...stepsReplies(b),
      c,
      ...stepsReplies(c),
    ]);
    const runs = await client(2).runs.list(thread.thread_id);
    expect(runs.map((run) => run.status)).toEqual(["success", "success", "success"]);
  });

  it("interrupt sent to another instance cancels the running run there", async () => {
    const { client } = cluster.get();
    const thread = await client(0).threads.create();
    const [first, second] = [unique("first"), unique("second")];
    const two = holdAt(first, "two");
    const firstId = await startRun(0, thread.thread_id, first, SYNC);
    await two.reached();
    const secondId = await startRun(1, thread.thread_id, second, {
      multitaskStrategy: "interrupt",
    });
    await client(2).runs.join(thread.thread_id, secondId);
    expect((await client(2).runs.get(thread.thread_id, firstId)).status).toBe("interrupted");
    // The interrupted run's checkpoints stay (step one), then the second run's turn.
    expect(await threadTexts(client(1), thread.thread_id)).toEqual([
      first,
      `one: ${first}`,
      second,
      ...stepsReplies(second),
    ]);
    two.open();
  });
});

describe("a run's events, status and cancel from any instance", () => {
  it("a join through another instance mid-run and a reload after it replay the same events", async () => {
    const { client } = cluster.get();
    const thread = await client(0).threads.create();
    const text = unique("join");
    const two = holdAt(text, "two");
    const runId = await startRun(0, thread.thread_id, text, {
      streamMode: ["values"],
      streamResumable: true,
    });
    await two.reached();
    expect((await client(1).runs.get(thread.thread_id, runId)).status).toBe("running");
    expect((await client(2).runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([runId]);
    expect((await client(2).threads.get(thread.thread_id)).status).toBe("busy");

    const midRun = follow(
      client(1),
      thread.thread_id,
      client(1).runs.joinStream(thread.thread_id, runId, { lastEventId: "-1" }),
      { runId },
    );
    two.open();
    const live = await midRun;
    expect(lastValues(live.events)).toEqual([text, ...stepsReplies(text)]);
    expect(live.rejoins).toBe(0);

    const reload = await follow(
      client(2),
      thread.thread_id,
      client(2).runs.joinStream(thread.thread_id, runId, { lastEventId: "-1" }),
      { runId },
    );
    expect(reload.events).toEqual(live.events);
    const ids = live.events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("a reconnect with Last-Event-ID through another instance gets the rest, once", async () => {
    const { client } = cluster.get();
    const thread = await client(0).threads.create();
    const text = unique("resume");
    const three = holdAt(text, "three");
    const runId = await startRun(0, thread.thread_id, text, {
      streamMode: ["values"],
      streamResumable: true,
    });
    await three.reached();
    const before: { id?: string | undefined; event: string }[] = [];
    for await (const part of client(1).runs.joinStream(thread.thread_id, runId, {
      lastEventId: "-1",
    })) {
      before.push(part);
      // Left once step two's values came: the page reloads here.
      if (part.event === "values" && texts(part.data).length === 3) break;
    }
    const lastId = before.at(-1)?.id;
    expect(lastId).toBeDefined();
    const rest = follow(
      client(2),
      thread.thread_id,
      client(2).runs.joinStream(thread.thread_id, runId, { lastEventId: lastId }),
      { runId },
    );
    three.open();
    const after = (await rest).events;
    const whole = await follow(
      client(0),
      thread.thread_id,
      client(0).runs.joinStream(thread.thread_id, runId, { lastEventId: "-1" }),
      { runId },
    );
    expect([...before.map((e) => e.id), ...after.map((e) => e.id)]).toEqual(
      whole.events.map((e) => e.id),
    );
  });

  it("a cancel sent to another instance stops the run where it runs", async () => {
    const { client, gates } = cluster.get();
    const thread = await client(0).threads.create();
    const text = unique("cancel");
    const two = holdAt(text, "two");
    const runId = await startRun(0, thread.thread_id, text, SYNC);
    await two.reached();
    await client(1).runs.cancel(thread.thread_id, runId, true);
    expect((await client(2).runs.get(thread.thread_id, runId)).status).toBe("interrupted");
    // Read through an instance that did not run it: the cancelled run's checkpoint is stored.
    expect(await threadTexts(client(2), thread.thread_id)).toEqual([text, `one: ${text}`]);
    expect((await client(1).threads.get(thread.thread_id)).status).toBe("idle");
    two.open();
    expect(gates.count(gateName(text, "three"))).toBe(0);
    // The thread takes the next run, on any instance.
    const next = unique("next");
    await client(2).runs.wait(thread.thread_id, "steps", { input: say(next) });
    expect(await threadTexts(client(0), thread.thread_id)).toEqual([
      text,
      `one: ${text}`,
      next,
      ...stepsReplies(next),
    ]);
  });
});

describe("protocol v2 with several instances", () => {
  /** A handler that sends the request through the proxy to instance `index`. */
  const via =
    (index: number) =>
    (request: Request): Promise<Response> => {
      const { pathname, search } = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.set(INSTANCE_HEADER, String(index));
      return request.text().then((body) =>
        fetch(`${cluster.get().proxy.url}${pathname}${search}`, {
          method: request.method,
          headers,
          ...(request.method === "GET" || request.method === "HEAD" ? {} : { body }),
        }),
      );
    };

  it("reads v2 events through the instance running the thread and through another", async () => {
    const threadId = crypto.randomUUID();
    const text = unique("v2");
    const two = holdAt(text, "two");
    const started = await command(via(0), threadId, {
      id: 1,
      method: "run.start",
      params: { assistant_id: "steps", input: say(text) },
    });
    expect(started.status).toBe(200);
    await two.reached();
    // The thread's v2 events are shared through Redis (docs/deployment.md): a stream opened on
    // another instance mid-run reads the same events as one on the instance running it.
    const elsewhere = readEvents(via(1), threadId, { channels: ALL_CHANNELS }, rootEnd);
    const live = readEvents(via(0), threadId, { channels: ALL_CHANNELS }, rootEnd);
    two.open();
    const all = await live;
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    expect(all.at(-1)?.params.data.event).toBe("completed");
    expect(await elsewhere).toEqual(all);
    const since = all[3]?.seq;
    const later = await readEvents(via(0), threadId, { channels: ALL_CHANNELS, since }, rootEnd);
    expect(later.map((e) => e.seq)).toEqual(all.slice(4).map((e) => e.seq));
    // The conversation itself is in the service: every instance reads it.
    expect(await threadTexts(cluster.get().client(2), threadId)).toEqual([
      text,
      ...stepsReplies(text),
    ]);
  });
});

describe("instances that go away", () => {
  it("kill -9 of the instance running a turn: another takes it over from its last checkpoint", async () => {
    const cl = cluster.get();
    const { client, gates } = cl;
    const thread = await client(0).threads.create();
    const text = unique("killed");
    const two = holdAt(text, "two");
    const stream = client(0).runs.stream(thread.thread_id, "steps", {
      input: say(text),
      streamMode: ["values"],
      streamResumable: true,
      onDisconnect: "continue",
      ...SYNC,
    });
    // The page reads the stream through the proxy; when it breaks, it rejoins through any.
    const followed = settled(follow(client(), thread.thread_id, stream));
    await two.reached();
    const runner = indexOf(two.by()[0]);
    expect(runner).toBeGreaterThanOrEqual(0);
    try {
      await cl.kill(runner);
      two.open();
      await Promise.race([two.reached(2), endedFirst(followed, "taken over")]);
      const { events } = await followed;
      expect(lastValues(events)).toEqual([text, ...stepsReplies(text)]);
      expect(await threadTexts(client(), thread.thread_id)).toEqual([text, ...stepsReplies(text)]);
      // Nothing run twice past a checkpoint: step one once, step two again (never checkpointed).
      expect(STEPS.map((step) => gates.count(gateName(text, step)))).toEqual([1, 2, 1]);
      expect(indexOf(two.by()[1])).not.toBe(runner);
    } finally {
      if (!cl.running(runner)) await cl.respawn(runner);
    }
  });

  it("kill -9 with the default durability: the turn still ends as a serial run's", async () => {
    const cl = cluster.get();
    const { client, gates } = cl;
    const thread = await client(0).threads.create();
    const text = unique("killed-async");
    const two = holdAt(text, "two");
    const stream = client(0).runs.stream(thread.thread_id, "steps", {
      input: say(text),
      streamMode: ["values"],
      streamResumable: true,
      onDisconnect: "continue",
    });
    // The page reads the stream through the proxy; when it breaks, it rejoins through any.
    const followed = settled(follow(client(), thread.thread_id, stream));
    await two.reached();
    const runner = indexOf(two.by()[0]);
    expect(runner).toBeGreaterThanOrEqual(0);
    try {
      await cl.kill(runner);
      two.open();
      await Promise.race([two.reached(2), endedFirst(followed, "taken over")]);
      const { events } = await followed;
      expect(lastValues(events)).toEqual([text, ...stepsReplies(text)]);
      expect(await threadTexts(client(), thread.thread_id)).toEqual([text, ...stepsReplies(text)]);
      // Whether step one's checkpoint was stored before the kill depends on the moment (async
      // writes): step one ran once or twice, never more, and step three once.
      const [one, , three] = STEPS.map((step) => gates.count(gateName(text, step)));
      expect([one === 1 || one === 2, three]).toEqual([true, 1]);
    } finally {
      if (!cl.running(runner)) await cl.respawn(runner);
    }
  });

  it("SIGTERM with a run mid-way: the client's stream goes on to the same answer", async () => {
    const cl = cluster.get();
    const { client, gates } = cl;
    const thread = await client(0).threads.create();
    const text = unique("drained");
    const two = holdAt(text, "two");
    const three = holdAt(text, "three");
    const stream = client(1).runs.stream(thread.thread_id, "steps", {
      input: say(text),
      streamMode: ["values"],
      streamResumable: true,
      onDisconnect: "continue",
    });
    const followed = settled(follow(client(), thread.thread_id, stream));
    await two.reached();
    const runner = indexOf(two.by()[0]);
    try {
      const { draining, exited } = cl.shutdown(runner);
      await draining;
      // Step two ends on the draining instance; the run stops at the boundary after it.
      two.open();
      await Promise.race([three.reached(), endedFirst(followed, "resumed at step three")]);
      expect(indexOf(three.by()[0])).not.toBe(runner);
      three.open();
      const { events } = await followed;
      await exited;
      expect(lastValues(events)).toEqual([text, ...stepsReplies(text)]);
      const ids = events.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(await threadTexts(client(), thread.thread_id)).toEqual([text, ...stepsReplies(text)]);
      expect(STEPS.map((step) => gates.count(gateName(text, step)))).toEqual([1, 1, 1]);
    } finally {
      if (!cl.running(runner)) await cl.respawn(runner);
    }
  });
});

describe("Redis going away", () => {
  it("while Redis is down a new run is a 503 on every instance; after, runs start again", async () => {
    const { client, redis } = cluster.get();
    const thread = await client(0).threads.create();
    await redis?.stop();
    try {
      for (const via of [0, 1, 2]) {
        expect(await statusOf(startRun(via, thread.thread_id, unique("down")))).toBe(503);
      }
      // What the service holds is still served.
      expect((await client(1).threads.get(thread.thread_id)).thread_id).toBe(thread.thread_id);
    } finally {
      await redis?.start();
    }
    const text = unique("back");
    await runWhenBack(() => client().runs.wait(thread.thread_id, "steps", { input: say(text) }));
    expect(await threadTexts(client(2), thread.thread_id)).toEqual([text, ...stepsReplies(text)]);
    // Every instance back on Redis before the next test: one that reconnects later answers 503.
    for (const via of [0, 1, 2]) await runWhenBack(() => client(via).runs.list(thread.thread_id));
  });

  it("Redis restarted mid-run: the run finishes where it is, and the thread keeps its answer", async () => {
    const { client, redis } = cluster.get();
    const thread = await client(0).threads.create();
    const text = unique("restart");
    const two = holdAt(text, "two");
    const stream = client(0).runs.stream(thread.thread_id, "steps", {
      input: say(text),
      streamMode: ["values"],
    });
    const followed = settled(follow(client(0), thread.thread_id, stream));
    await two.reached();
    await redis?.restart({ hard: true });
    two.open();
    const { events } = await followed;
    expect(lastValues(events)).toEqual([text, ...stepsReplies(text)]);
    expect(await threadTexts(client(1), thread.thread_id)).toEqual([text, ...stepsReplies(text)]);
    const next = unique("after");
    await runWhenBack(() => client().runs.wait(thread.thread_id, "steps", { input: say(next) }));
    expect(await threadTexts(client(2), thread.thread_id)).toEqual([
      text,
      ...stepsReplies(text),
      next,
      ...stepsReplies(next),
    ]);
  });
});

/**
 * `call` again while it answers 503 (the instance has not reconnected to Redis yet): what this
 * waits for is the reconnect the test is about, so it polls, at most 50 times.
 */
async function runWhenBack(call: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const status = await statusOf(call());
    if (status !== 503 || attempt >= 50) {
      expect(status).toBe(200);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `promise`, marked as handled: a test that fails before awaiting it reports its own error. */
function settled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** Rejects when `run` ends (or fails) first: what the test waited for did not happen. */
async function endedFirst(run: Promise<unknown>, awaited: string): Promise<never> {
  const outcome = await run.then(
    () => "ended",
    (error: unknown) => `failed: ${String(error)}`,
  );
  throw new Error(`the run ${outcome} before it was ${awaited}`);
}
