/**
 * Three instances behind a round-robin proxy, without coordination (what holds today, #35): the
 * thread list, the checkpoints and the store are in the service, so a thread created through one
 * instance is listed, read and continued through the others; and the proxy really spreads the
 * requests over the three.
 */
import { describe, expect, it } from "vitest";
import { agentTurn, say, texts } from "../integration/server/scripts";
import { stepsReplies } from "./graphs";
import { useCluster } from "./harness";

const cluster = useCluster();

describe("three instances behind a proxy, no coordination", () => {
  it("lists and reads through every instance the threads created through one", async () => {
    const { client } = cluster.get();
    const first = client(0);
    const made = await Promise.all(
      ["a", "b", "c"].map((name) =>
        first.threads.create({ metadata: { suite: "smoke", name }, graphId: "steps" }),
      ),
    );
    for (const instance of [1, 2]) {
      const listed = await client(instance).threads.search({ metadata: { suite: "smoke" } });
      expect(listed.map((t) => t.thread_id).sort()).toEqual(made.map((t) => t.thread_id).sort());
      const one = await client(instance).threads.get(made[1]?.thread_id ?? "");
      expect(one.metadata).toMatchObject({ suite: "smoke", name: "b" });
    }
  });

  it("continues through one instance a conversation another one began", async () => {
    const { client } = cluster.get();
    const thread = await client(0).threads.create();
    await agentTurn(client(1), thread.thread_id, 'get_weather {"city": "Oslo"}');
    await client(2).runs.wait(thread.thread_id, "steps", { input: say("then") });
    const state = await client(0).threads.getState(thread.thread_id);
    expect(texts(state.values)).toEqual([
      'get_weather {"city": "Oslo"}',
      "",
      "Oslo: sunny",
      "Tool said: Oslo: sunny",
      "then",
      ...stepsReplies("then"),
    ]);
  });

  it("spreads requests over the three instances in turn", async () => {
    const { client, proxy } = cluster.get();
    const before = [...proxy.served];
    const roundRobin = client();
    for (let i = 0; i < 6; i++) await roundRobin.threads.search({ limit: 1 });
    expect(proxy.served.map((count, index) => count - (before[index] ?? 0))).toEqual([2, 2, 2]);
  });
});
