/**
 * The model-based test of #35: random runs over many threads on three coordinated instances,
 * with joins, cancels, enqueues and rejects sent through the round-robin proxy while instances
 * are killed (`kill -9`) and shut down (SIGTERM, drain), checked against a serial model: after
 * every operation, the thread's messages are what running the same operations one after the
 * other on one process gives. Every run's stream is followed to its end (rejoined through the
 * proxy when its instance goes away), and no stream repeats an event.
 *
 * Size and seed: CLUSTER_MODEL_RUNS (default 200), CLUSTER_MODEL_THREADS (default 20),
 * CLUSTER_MODEL_SEED (default 35; a failure names it).
 */
import type { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { say } from "../integration/server/scripts";
import { gateName, stepsReplies } from "./graphs";
import { type Cluster, useCluster } from "./harness";
import {
  follow,
  instanceWentAway,
  lastValues,
  retried,
  statusOf,
  threadTexts,
  unique,
} from "./runs";

const RUNS = Number(process.env.CLUSTER_MODEL_RUNS ?? 200);
const THREADS = Number(process.env.CLUSTER_MODEL_THREADS ?? 20);
const SEED = Number(process.env.CLUSTER_MODEL_SEED ?? 35);
/** An instance is killed or drained after every this many finished operations. */
const CHAOS_EVERY = Math.max(10, Math.floor(RUNS / 8));

const cluster = useCluster({ redis: true });

/** mulberry32: a small seeded generator, so a failing sequence can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Op = "run" | "join" | "cancel" | "enqueue" | "reject";
const OPS: [Op, number][] = [
  ["run", 0.35],
  ["join", 0.2],
  ["cancel", 0.15],
  ["enqueue", 0.15],
  ["reject", 0.15],
];

function pick(draw: () => number): Op {
  let roll = draw();
  for (const [op, weight] of OPS) {
    roll -= weight;
    if (roll < 0) return op;
  }
  return "run";
}

/**
 * Creates a background run through the proxy. A create whose connection broke (its instance
 * was killed while answering) may or may not have started the run: the thread's run list, by
 * the run's own metadata, says which.
 */
async function create(
  client: Client,
  threadId: string,
  text: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      const run = await client.runs.create(threadId, "steps", {
        input: say(text),
        metadata: { op: text },
        // Each step's checkpoint is stored before the next step starts, so "the run reached
        // step two" means step one is in the service, whatever the load: the model is exact.
        durability: "sync",
        streamMode: ["values"],
        streamResumable: true,
        ...extra,
      });
      return run.run_id;
    } catch (error) {
      // A draining instance refuses a run with a 503 before admitting it: sent again, the
      // proxy takes it to another instance (as a load balancer retries it).
      if ((error as { status?: number }).status === 503 && attempt < 5) continue;
      if (!instanceWentAway(error) || attempt >= 3) throw error;
      const runs = await retried(() => client.runs.list(threadId, { limit: 100 }));
      const started = runs.find((run) => run.metadata?.op === text);
      if (started) return started.run_id;
    }
  }
}

/**
 * Follows `runId` to its end through the proxy, checks its events came once each, and returns
 * the messages of its last `values` event (with what was seen, for a failure message).
 */
async function finish(
  client: Client,
  threadId: string,
  runId: string,
): Promise<{ values: string[]; seen: string }> {
  const followed = await follow(
    client,
    threadId,
    client.runs.joinStream(threadId, runId, { lastEventId: "-1", streamMode: ["values"] }),
    { runId },
  );
  const ids = followed.events.map((e) => e.id).filter((id) => id !== undefined);
  expect(new Set(ids).size, `run ${runId} repeated an event`).toBe(ids.length);
  const run = await retried(() => client.runs.get(threadId, runId));
  const events = followed.events.map((e) =>
    e.event === "error" ? `error ${JSON.stringify(e.data)}` : e.event,
  );
  return {
    values: lastValues(followed.events),
    seen: `run ${runId}: ${run.status} after ${followed.rejoins} rejoins; events ${events}`,
  };
}

/** Expects a finished run's last values to be the model's messages. */
async function expectModel(finished: Promise<{ values: string[]; seen: string }>, model: string[]) {
  const { values, seen } = await finished;
  expect(values, seen).toEqual(model);
}

/** One thread's operations, one after the other, each checked against the serial model. */
async function threadWorker(
  c: Cluster,
  draw: () => number,
  runs: number,
  done: () => void,
): Promise<void> {
  const client = c.client();
  const thread = await retried(() => client.threads.create());
  const id = thread.thread_id;
  const model: string[] = [];
  const full = (text: string) => [text, ...stepsReplies(text)];
  for (let n = 0; n < runs; n++) {
    const op = pick(draw);
    const text = unique(op);
    if (op === "run") {
      const runId = await create(client, id, text);
      model.push(...full(text));
      await expectModel(finish(client, id, runId), model);
    } else if (op === "join") {
      const hold = gateName(text, "two");
      c.gates.hold(hold);
      const runId = await create(client, id, text);
      await c.gates.arrived(hold);
      const joined = finish(c.client(), id, runId);
      c.gates.open(hold);
      model.push(...full(text));
      await expectModel(joined, model);
    } else if (op === "cancel") {
      const hold = gateName(text, "two");
      c.gates.hold(hold);
      const runId = await create(client, id, text);
      await c.gates.arrived(hold);
      await retried(() => client.runs.cancel(id, runId, true));
      c.gates.open(hold);
      expect((await retried(() => client.runs.get(id, runId))).status).toBe("interrupted");
      model.push(text, `one: ${text}`);
    } else {
      const hold = gateName(text, "one");
      c.gates.hold(hold);
      const first = await create(client, id, text);
      await c.gates.arrived(hold);
      const second = unique(`${op}-second`);
      if (op === "enqueue") {
        const queued = await create(client, id, second, { multitaskStrategy: "enqueue" });
        c.gates.open(hold);
        model.push(...full(text), ...full(second));
        await expectModel(finish(client, id, queued), model);
        expect((await retried(() => client.runs.get(id, first))).status).toBe("success");
      } else {
        const refused = create(client, id, second, { multitaskStrategy: "reject" });
        expect(await statusOf(refused)).toBe(409);
        c.gates.open(hold);
        model.push(...full(text));
        await expectModel(finish(client, id, first), model);
      }
    }
    expect(await threadTexts(client, id)).toEqual(model);
    done();
  }
}

/** Kills or drains an instance after every `CHAOS_EVERY` finished operations, then restarts it. */
async function chaos(c: Cluster, draw: () => number, finished: Progress): Promise<void> {
  let next = CHAOS_EVERY;
  let turn = 0;
  while (!finished.all) {
    await finished.next();
    if (finished.count < next) continue;
    next += CHAOS_EVERY;
    const index = Math.floor(draw() * c.size);
    if (turn++ % 2 === 0) await c.kill(index);
    else await c.shutdown(index).exited;
    await c.respawn(index);
  }
}

describe("random runs on three instances against a serial model", () => {
  it(`${RUNS} runs over ${THREADS} threads with kills and drains (seed ${SEED})`, async () => {
    const c = cluster.get();
    const draw = random(SEED);
    const progress = progressCounter();
    const perThread = Array.from(
      { length: THREADS },
      (_, i) => Math.floor(RUNS / THREADS) + (i < RUNS % THREADS ? 1 : 0),
    );
    const workers = perThread.map((runs, i) =>
      threadWorker(c, random(SEED * 1_000 + i), runs, progress.tick),
    );
    const disorder = chaos(c, draw, progress.state);
    // The first failing thread fails the test at once; the others' later failures are handled.
    for (const worker of workers) worker.catch(() => {});
    const firstFailure = new Promise<never>((_, reject) => {
      for (const worker of workers) worker.catch(reject);
    });
    try {
      await Promise.race([Promise.all(workers), firstFailure]);
    } finally {
      progress.finish();
      await disorder;
    }
    expect(progress.state.count).toBe(RUNS);
  }, 300_000);
});

interface Progress {
  count: number;
  all: boolean;
  /** Resolves at the next finished operation, or when all are. */
  next(): Promise<void>;
}

/** Counts finished operations and lets the chaos loop wait for the next one (no timer). */
function progressCounter() {
  let wake: (() => void) | undefined;
  const state: Progress = {
    count: 0,
    all: false,
    next: () =>
      new Promise<void>((resolve) => {
        wake = resolve;
      }),
  };
  return {
    state,
    tick() {
      state.count++;
      wake?.();
    },
    finish() {
      state.all = true;
      wake?.();
    },
  };
}
