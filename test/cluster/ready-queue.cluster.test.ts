/**
 * The ready queue's worker slots (#35), two handlers in one process over one redis-server: each
 * serves its own copy of the same gated graph, so which copy ran a run says which instance ran
 * it. An instance with no slot (`maxBackgroundRuns: 0`) runs none of the background runs it
 * admits; one with a single slot runs them one at a time while the rest wait in the queue.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentServerHandler } from "../../src/server";
import { redisCoordination } from "../../src/server/redis";
import { useEmulator } from "../helpers/emulator";
import { gatedGraph } from "../integration/server/gated-graph";
import { sdkClient, studioServer } from "../integration/server/harness";
import { say, texts } from "../integration/server/scripts";
import { type RedisServer, startRedisServer } from "../setup/redis-server";

const emulator = useEmulator();
let redis: RedisServer;
const open: AgentServerHandler[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(async () => {
  await Promise.all(open.splice(0).map((handler) => handler.close()));
  await redis?.close();
});

function instance(name: string, graph: unknown, maxBackgroundRuns: number) {
  const { handler } = studioServer(emulator.handle, {
    graphs: { counted: graph } as never,
    coordination: redisCoordination({ url: redis.url, instanceId: name, maxBackgroundRuns }),
  });
  open.push(handler);
  return sdkClient(handler);
}

describe("the ready queue's worker slots", () => {
  it("an instance with no slot runs none; one slot runs one run at a time, the next waits", async () => {
    const [onA, onB] = [gatedGraph(), gatedGraph()];
    const a = instance("a", onA.graph, 0);
    const b = instance("b", onB.graph, 1);
    const threads = [await a.threads.create(), await a.threads.create()];
    const [firstThread, secondThread] = threads.map((thread) => thread.thread_id) as [
      string,
      string,
    ];
    const first = await a.runs.create(firstThread, "counted", { input: say("one") });
    await onB.entered(0);
    const second = await a.runs.create(secondThread, "counted", { input: say("two") });
    // b's one slot is taken: the second run waits in the queue, pending for every instance.
    expect((await b.runs.get(secondThread, second.run_id)).status).toBe("pending");
    expect((await a.runs.get(secondThread, second.run_id)).status).toBe("pending");
    onB.open(0);
    await onB.entered(1);
    onB.openAll();
    await a.runs.join(firstThread, first.run_id);
    await a.runs.join(secondThread, second.run_id);
    expect(onB.seen).toMatchObject({ calls: 2, most: 1 });
    expect(onA.seen.calls).toBe(0);
    expect(texts((await a.threads.getState(firstThread)).values)).toEqual(["one", "Slowly: one"]);
    expect(texts((await b.threads.getState(secondThread)).values)).toEqual(["two", "Slowly: two"]);
  });
});
