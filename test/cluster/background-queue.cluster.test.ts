/**
 * Background runs through the shared ready queue (#35): three instances with one worker slot
 * each (`maxBackgroundRuns: 1`), every run admitted through instance 0. Runs spread over the
 * instances with a free slot, wait in the queue while every slot is taken, keep their thread's
 * order, and go to another instance when theirs is killed or drained. Every run stops at gates
 * the test holds: "three at once" is three runs waiting at their gates together, and "where" is
 * the instance that called the gate, not a moment on the clock.
 */
import { describe, expect, it } from "vitest";
import { say, texts } from "../integration/server/scripts";
import { gateName, STEPS, stepsReplies } from "./graphs";
import { useCluster } from "./harness";
import { instanceIndex as indexOf, SYNC, startSteps, threadTexts, unique } from "./runs";

const cluster = useCluster({ redis: true, maxBackgroundRuns: 1 });

/** A background run of `steps` on `threadId` through instance `via` (`startSteps`). */
const startRun = (via: number, threadId: string, text: string, extra = {}) =>
  startSteps(cluster.get().client(via), threadId, text, extra);

/** Holds `text`'s run at each of `steps` (every step by default) until the test opens it. */
function holdRun(text: string, steps: readonly (typeof STEPS)[number][] = STEPS) {
  const { gates } = cluster.get();
  for (const step of steps) gates.hold(gateName(text, step));
  return {
    reached: (step: (typeof STEPS)[number], times = 1) =>
      gates.arrived(gateName(text, step), times),
    /** The instances that reached `step`, in order. */
    by: (step: (typeof STEPS)[number]) => gates.reachedBy(gateName(text, step)),
    count: (step: (typeof STEPS)[number]) => gates.count(gateName(text, step)),
    open: (step: (typeof STEPS)[number]) => gates.open(gateName(text, step)),
    openAll: () => {
      for (const step of STEPS) gates.open(gateName(text, step));
    },
  };
}

/** What a serial run of `text` leaves on its thread. */
const serial = (...sent: string[]) => sent.flatMap((text) => [text, ...stepsReplies(text)]);

/** Takes instance 0's one slot with a run it starts itself; `release` lets it end. */
async function fillInstanceZero() {
  const { client } = cluster.get();
  const thread = await client(0).threads.create();
  const text = unique("blocker");
  const held = holdRun(text, ["one"]);
  const runId = await startRun(0, thread.thread_id, text);
  await held.reached("one");
  // With a free slot, the admitting instance starts the run itself.
  expect(held.by("one")).toEqual(["instance-0"]);
  return {
    async release() {
      held.openAll();
      await client(1).runs.join(thread.thread_id, runId);
      expect(await threadTexts(client(2), thread.thread_id)).toEqual(serial(text));
    },
  };
}

describe("the ready queue: background runs on any instance with a free slot", () => {
  it("runs admitted through one instance run on all three at once; a fourth waits for a slot", async () => {
    const { client } = cluster.get();
    const threads = await Promise.all([0, 1, 2, 3].map(() => client(0).threads.create()));
    const sent = threads.map((_, i) => unique(`spread${i}`));
    const held = sent.map((text) => holdRun(text));
    const ids: string[] = [];
    for (const i of [0, 1, 2]) {
      ids.push(await startRun(0, threads[i]?.thread_id ?? "", sent[i] ?? ""));
    }
    // All three wait at their first gate together: each instance runs one of them.
    await Promise.all([0, 1, 2].map((i) => held[i]?.reached("one")));
    const where = [0, 1, 2].map((i) => held[i]?.by("one")[0] ?? "");
    expect([...where].sort()).toEqual(["instance-0", "instance-1", "instance-2"]);

    // Every slot taken: a fourth run waits in the queue, pending on every instance.
    const fourthThread = threads[3]?.thread_id ?? "";
    const fourth = await startRun(0, fourthThread, sent[3] ?? "");
    for (const via of [0, 1, 2]) {
      expect((await client(via).runs.get(fourthThread, fourth)).status).toBe("pending");
    }
    expect(held[3]?.count("one")).toBe(0);

    // The first run ends: the slot it frees takes the fourth.
    held[0]?.openAll();
    await client(1).runs.join(threads[0]?.thread_id ?? "", ids[0] ?? "");
    await held[3]?.reached("one");
    expect(held[3]?.by("one")).toEqual([where[0]]);

    for (const gate of held) gate.openAll();
    for (const [i, runId] of [...ids, fourth].entries()) {
      const threadId = threads[i]?.thread_id ?? "";
      await client(2).runs.join(threadId, runId);
      expect(await threadTexts(client(), threadId)).toEqual(serial(sent[i] ?? ""));
    }
  });

  it("a thread's runs spread by the queue still run one at a time, in the order sent", async () => {
    const { client } = cluster.get();
    const blocker = await fillInstanceZero();
    const thread = await client(0).threads.create();
    const [a, b, c] = [unique("a"), unique("b"), unique("c")];
    const [heldA, heldB, heldC] = [holdRun(a), holdRun(b), holdRun(c)];
    await startRun(0, thread.thread_id, a);
    await heldA.reached("one");
    await startRun(0, thread.thread_id, b, { multitaskStrategy: "enqueue" });
    // A wait through the full instance 0: its answer comes from where the run ends.
    const waited = client(0).runs.wait(thread.thread_id, "steps", {
      input: say(c),
      multitaskStrategy: "enqueue",
    });

    heldA.open("one");
    heldA.open("two");
    await heldA.reached("three");
    expect(heldB.count("one")).toBe(0);
    heldA.openAll();
    await heldB.reached("one");
    heldB.open("one");
    heldB.open("two");
    await heldB.reached("three");
    expect(heldC.count("one")).toBe(0);
    heldB.openAll();
    await heldC.reached("one");
    heldC.openAll();

    expect(texts(await waited)).toEqual(serial(a, b, c));
    expect(await threadTexts(client(1), thread.thread_id)).toEqual(serial(a, b, c));
    // Instance 0's slot was taken the whole time: the queue ran them elsewhere.
    for (const held of [heldA, heldB, heldC]) {
      expect(held.by("one")).toHaveLength(1);
      expect(held.by("one")[0]).not.toBe("instance-0");
    }
    await blocker.release();
  });

  it("a stateless wait through a full instance answers from where it ran; its thread goes", async () => {
    const { client } = cluster.get();
    const blocker = await fillInstanceZero();
    const threadsBefore = await client(1).threads.search({ limit: 100 });
    const text = unique("stateless");
    const held = holdRun(text, ["one"]);
    const waited = client(0).runs.wait(null, "steps", { input: say(text) });
    await held.reached("one");
    expect(held.by("one")[0]).not.toBe("instance-0");
    held.openAll();
    expect(texts(await waited)).toEqual(serial(text));
    // The run's own thread was deleted where the run ended, before the wait answered.
    const threadsAfter = await client(2).threads.search({ limit: 100 });
    expect(threadsAfter.map((t) => t.thread_id).sort()).toEqual(
      threadsBefore.map((t) => t.thread_id).sort(),
    );
    await blocker.release();
  });

  it("kill -9 of the instance running a queued run: another takes it over", async () => {
    const cl = cluster.get();
    const { client } = cl;
    const blocker = await fillInstanceZero();
    const thread = await client(0).threads.create();
    const text = unique("killed");
    const held = holdRun(text, ["two"]);
    const runId = await startRun(0, thread.thread_id, text, SYNC);
    await held.reached("two");
    const runner = indexOf(held.by("two")[0]);
    expect([1, 2]).toContain(runner);
    try {
      await cl.kill(runner);
      held.open("two");
      // The one instance with a free slot takes it over from step one's checkpoint.
      await held.reached("two", 2);
      expect(indexOf(held.by("two")[1])).toBe(3 - runner);
      await client(0).runs.join(thread.thread_id, runId);
      expect(await threadTexts(client(0), thread.thread_id)).toEqual(serial(text));
      expect((await client(0).runs.get(thread.thread_id, runId)).status).toBe("success");
    } finally {
      if (!cl.running(runner)) await cl.respawn(runner);
    }
    await blocker.release();
  });

  it("a drained instance hands the runs it has not started to the others", async () => {
    const cl = cluster.get();
    const { client } = cl;
    // Instance 0 runs X; H, admitted there too, is run by another; Q waits behind H on 0.
    const blocker = await client(0).threads.create();
    const x = unique("x");
    const heldX = holdRun(x, ["one"]);
    const xId = await startRun(0, blocker.thread_id, x, SYNC);
    await heldX.reached("one");
    expect(heldX.by("one")).toEqual(["instance-0"]);
    const thread = await client(0).threads.create();
    const [h, q] = [unique("h"), unique("q")];
    const [heldH, heldQ] = [holdRun(h), holdRun(q)];
    await startRun(0, thread.thread_id, h);
    await heldH.reached("one");
    const qId = await startRun(0, thread.thread_id, q, { multitaskStrategy: "enqueue" });
    try {
      const { draining, exited } = cl.shutdown(0);
      await draining;
      // X stops on 0 at the boundary after step one and goes on elsewhere.
      heldX.open("one");
      await exited;
      expect(heldQ.count("one")).toBe(0);
      heldH.openAll();
      await heldQ.reached("one");
      expect(heldQ.by("one")[0]).not.toBe("instance-0");
      heldQ.openAll();
      await client(1).runs.join(thread.thread_id, qId);
      expect(await threadTexts(client(2), thread.thread_id)).toEqual(serial(h, q));
      await client(2).runs.join(blocker.thread_id, xId);
      expect(await threadTexts(client(1), blocker.thread_id)).toEqual(serial(x));
      expect(heldX.count("one")).toBe(1);
    } finally {
      if (!cl.running(0)) await cl.respawn(0);
    }
  });
});
