/**
 * Two instances of the server in one process, sharing the emulator and one Redis through
 * `redisCoordination`: what one admits, runs, streams or cancels, the other sees and acts on.
 * The graphs wait at gates the test opens; nothing waits on a clock. (The multi-process suite,
 * with kills, is under test/cluster/.)
 */
import { AIMessage } from "@langchain/core/messages";
import {
  type LangGraphRunnableConfig,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { createClient } from "redis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AgentServerHandler } from "../../src/server";
import { redisCoordination } from "../../src/server/redis";
import { useEmulator } from "../helpers/emulator";
import { type Gate, gate } from "../helpers/gate";
import { gatedGraph } from "../integration/server/gated-graph";
import { postRun, sdkClient, studioServer } from "../integration/server/harness";
import { say } from "../integration/server/scripts";
import { type RedisServer, startRedisServer } from "../setup/redis-server";

const emulator = useEmulator();
let redis: RedisServer;
const open: AgentServerHandler[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(async () => {
  await redis?.close();
});
beforeEach(async () => {
  await emulator.handle.reset();
  const admin = createClient({ url: redis.url });
  await admin.connect();
  await admin.flushAll();
  await admin.close();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((handler) => handler.close()));
});

/** Three steps; the second waits at a gate: a drain between steps is observable. */
function threeSteps() {
  const calls: string[] = [];
  const entered = new Map<number, Gate>();
  const release = new Map<number, Gate>();
  const gateIn = (map: Map<number, Gate>, i: number) => {
    let found = map.get(i);
    if (!found) {
      found = gate();
      map.set(i, found);
    }
    return found;
  };
  let second = 0;
  const step = (name: string) => async () => {
    calls.push(name);
    return { messages: [new AIMessage(name)] };
  };
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("first", step("first"))
    .addNode("second", async (_state, config: LangGraphRunnableConfig) => {
      const index = second++;
      calls.push("second");
      gateIn(entered, index).open();
      await Promise.race([
        gateIn(release, index).wait,
        new Promise((resolve) => config.signal?.addEventListener("abort", resolve)),
      ]);
      return { messages: [new AIMessage("second")] };
    })
    .addNode("third", step("third"))
    .addEdge(START, "first")
    .addEdge("first", "second")
    .addEdge("second", "third")
    .compile();
  return {
    graph,
    calls,
    entered: (i: number) => gateIn(entered, i).wait,
    release: (i: number) => gateIn(release, i).open(),
  };
}

function instances(graphs: Record<string, unknown>, leaseMs = 10_000) {
  return ["a", "b"].map((name) => {
    const { handler } = studioServer(emulator.handle, {
      graphs: graphs as never,
      coordination: redisCoordination({ url: redis.url, instanceId: name, leaseMs }),
    });
    open.push(handler);
    return { handler, sdk: sdkClient(handler) };
  }) as [
    { handler: AgentServerHandler; sdk: ReturnType<typeof sdkClient> },
    { handler: AgentServerHandler; sdk: ReturnType<typeof sdkClient> },
  ];
}

const body = (text: string, strategy?: string) => ({
  assistant_id: "counted",
  input: say(text),
  on_disconnect: "continue",
  stream_mode: ["values"],
  ...(strategy ? { multitask_strategy: strategy } : {}),
});

async function eventsOf(response: Response): Promise<{ event: string; data: unknown }[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      return event ? { event, data: data ? JSON.parse(data) : null } : undefined;
    })
    .filter((e): e is { event: string; data: unknown } => e !== undefined);
}

const lastTexts = (events: { event: string; data: unknown }[]) => {
  const values = events.filter((e) => e.event === "values").at(-1)?.data as
    | { messages: { content: string }[] }
    | undefined;
  return values?.messages.map((m) => m.content) ?? [];
};

describe("redisCoordination: two instances, one Redis", () => {
  it("refuses a second run from the other instance, which lists, gets and joins the first", async () => {
    const counted = gatedGraph();
    const [a, b] = instances({ counted: counted.graph });
    const thread = await a.sdk.threads.create();
    const first = await a.handler(postRun(thread.thread_id, body("one")));
    await counted.entered(0);
    const refused = await b.handler(postRun(thread.thread_id, body("two")));
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("is busy with run");

    const runId = /runs\/([^/]+)$/.exec(first.headers.get("Content-Location") ?? "")?.[1] ?? "";
    const listed = await b.sdk.runs.list(thread.thread_id);
    expect(listed.map((run) => [run.run_id, run.status])).toEqual([[runId, "running"]]);
    expect((await b.sdk.threads.get(thread.thread_id)).status).toBe("busy");

    const joined = b.handler(
      new Request(`http://agent.test/threads/${thread.thread_id}/runs/${runId}/stream`),
    );
    counted.open(0);
    const [own, other] = await Promise.all([eventsOf(first), joined.then(eventsOf)]);
    expect(other).toEqual(own);
    expect(lastTexts(other)).toEqual(["one", "Slowly: one"]);
    expect((await b.sdk.runs.get(thread.thread_id, runId)).status).toBe("success");
    expect((await a.sdk.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("runs enqueued runs in order whichever instance took them, one at a time", async () => {
    const counted = gatedGraph();
    const [a, b] = instances({ counted: counted.graph });
    const thread = await a.sdk.threads.create();
    await a.handler(postRun(thread.thread_id, body("one")));
    await counted.entered(0);
    const second = await b.handler(postRun(thread.thread_id, body("two", "enqueue")));
    const third = await a.handler(postRun(thread.thread_id, body("three", "enqueue")));
    expect([second.status, third.status]).toEqual([200, 200]);
    const pending = await a.sdk.runs.list(thread.thread_id, { status: "pending" });
    expect(pending).toHaveLength(2);
    counted.openAll();
    await Promise.all([second.text(), third.text()]);
    const state = await b.sdk.threads.getState<{ messages: { content: string }[] }>(
      thread.thread_id,
    );
    expect(state.values.messages.map((m) => m.content)).toEqual([
      "one",
      "Slowly: one",
      "two",
      "Slowly: two",
      "three",
      "Slowly: three",
    ]);
    expect(counted.seen.most).toBe(1);
  });

  it("cancels a run from the other instance, and interrupts it with a new run there", async () => {
    const counted = gatedGraph();
    const [a, b] = instances({ counted: counted.graph });
    const thread = await a.sdk.threads.create();
    const first = await a.handler(postRun(thread.thread_id, body("one")));
    await counted.entered(0);
    const runId = /runs\/([^/]+)$/.exec(first.headers.get("Content-Location") ?? "")?.[1] ?? "";
    await b.sdk.runs.cancel(thread.thread_id, runId, true);
    expect((await a.sdk.runs.get(thread.thread_id, runId)).status).toBe("interrupted");
    await first.text();

    const second = await a.handler(postRun(thread.thread_id, body("two")));
    await counted.entered(1);
    const third = await b.handler(postRun(thread.thread_id, body("three", "interrupt")));
    counted.open(2);
    const events = await eventsOf(third);
    await second.text();
    expect(lastTexts(events).at(-1)).toBe("Slowly: three");
    const runs = await b.sdk.runs.list(thread.thread_id);
    expect(runs.map((run) => run.status)).toEqual(["success", "interrupted", "interrupted"]);
  });

  it("hands a run to the other instance on drain; the stream on the first goes on to the end", async () => {
    const steps = threeSteps();
    const [a] = instances({ counted: steps.graph }, 600);
    const thread = await a.sdk.threads.create();
    const stream = await a.handler(postRun(thread.thread_id, body("go")));
    await steps.entered(0);
    const drained = a.handler.drain();
    const refused = await a.handler(postRun(thread.thread_id, body("later", "enqueue")));
    expect(refused.status).toBe(503);
    steps.release(0);
    await drained;
    const events = await eventsOf(stream);
    expect(steps.calls).toEqual(["first", "second", "third"]);
    expect(lastTexts(events)).toEqual(["go", "first", "second", "third"]);
    expect(events.filter((e) => e.event === "metadata")).toHaveLength(2);
  });

  it("answers 503 for a new run while Redis is down, and takes runs again once it is back", async () => {
    const counted = gatedGraph();
    counted.openAll();
    // A short lease: once Redis is back, the thread takes runs again within about one lease.
    const [a] = instances({ counted: counted.graph }, 2_000);
    const thread = await a.sdk.threads.create();
    expect((await a.handler(postRun(thread.thread_id, body("one")))).status).toBe(200);
    await redis.stop();
    const refused = await a.handler(postRun(thread.thread_id, body("two")));
    expect(refused.status).toBe(503);
    expect(await refused.text()).toContain("try again");
    await redis.start();
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      const response = await a.handler(postRun(thread.thread_id, body("three", "enqueue")));
      status = response.status;
      await response.text();
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });
});
