/**
 * StudioStore as LangGraph's long-term memory: a `createAgent` that stores a fact in one
 * conversation, in a process of its own, and finds it in another conversation in this process;
 * and a StateGraph compiled with a `store`, read back by another graph with its own client.
 */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import type { Thread } from "../../../src/api-types";
import { StudioClient } from "../../../src/client";
import { StudioStore } from "../../../src/langgraph";
import { useEmulator } from "../../helpers/emulator";
import { nodeEntry } from "../../helpers/node-entry";
import { REPO_ROOT, runCommand } from "../../helpers/run-command";
import { memoryAgentTurn, USER } from "./memory-agent";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function connection() {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  return { baseUrl, proxyUrl, apiKey };
}

async function turnInAnotherProcess(thread: string, text: string): Promise<string[]> {
  const { baseUrl, proxyUrl, apiKey } = connection();
  const result = await runCommand(
    process.execPath,
    await nodeEntry("test/integration/store/memory-agent.ts", [
      baseUrl,
      proxyUrl,
      apiKey,
      thread,
      text,
    ]),
    { env: { ...process.env, NO_COLOR: "1" }, timeoutMs: 60_000, cwd: REPO_ROOT },
  );
  if (result.code !== 0) throw new Error(`the agent process failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split("\n").at(-1)!) as string[];
}

describe("createAgent({ store: new StudioStore() })", () => {
  it("remembers a fact told in one conversation, in another process, in another conversation", async () => {
    const told = await turnInAnotherProcess(
      "monday",
      'remember {"fact": "Ada takes her tea with lemon"}',
    );
    expect(told).toEqual([
      'remember {"fact": "Ada takes her tea with lemon"}',
      "",
      "noted: Ada takes her tea with lemon",
      "Tool said: noted: Ada takes her tea with lemon",
    ]);

    const asked = await memoryAgentTurn(connection(), "tuesday", 'recall {"topic": "tea"}');
    // A new conversation: none of Monday's messages, only what the store kept.
    expect(asked).toEqual([
      'recall {"topic": "tea"}',
      "",
      "Ada takes her tea with lemon",
      "Tool said: Ada takes her tea with lemon",
    ]);
  }, 120_000);

  it("keeps the memories in threads titled and tagged as the store's, one per namespace", async () => {
    await memoryAgentTurn(connection(), "monday", 'remember {"fact": "likes jazz"}');
    const client = new StudioClient(connection());
    const threads: Thread[] = [];
    for await (const thread of client.iterateThreads({ order: "asc" })) {
      if (thread.metadata?.lc_kind === "store") threads.push(thread);
    }
    expect(threads.map((t) => [t.title, t.metadata?.lc_session]).sort()).toEqual([
      ["LangGraph store: (namespaces)", "[]"],
      ["LangGraph store: memories", '["memories"]'],
      [`LangGraph store: memories/${USER}`, `["memories","${USER}"]`],
    ]);
    for (const thread of threads) expect(thread.metadata?.lc_memory).toBe("langgraph-store");
  });
});

describe("a StateGraph compiled with a StudioStore", () => {
  const State = Annotation.Root({ user: Annotation<string>(), visits: Annotation<number>() });

  function visitCounter(store: StudioStore) {
    return new StateGraph(State)
      .addNode("count", async (state, config: LangGraphRunnableConfig) => {
        const namespace = ["visits", state.user];
        const before = await config.store!.get(namespace, "count");
        const visits = Number(before?.value.n ?? 0) + 1;
        await config.store!.put(namespace, "count", { n: visits });
        return { visits };
      })
      .addEdge(START, "count")
      .addEdge("count", END)
      .compile({ store });
  }

  it("shares what one graph stored with another graph that has its own client", async () => {
    const first = visitCounter(new StudioStore({ client: new StudioClient(connection()) }));
    expect(await first.invoke({ user: "ada" })).toEqual({ user: "ada", visits: 1 });
    expect(await first.invoke({ user: "ada" })).toEqual({ user: "ada", visits: 2 });

    const second = visitCounter(new StudioStore({ client: new StudioClient(connection()) }));
    expect(await second.invoke({ user: "ada" })).toEqual({ user: "ada", visits: 3 });
    expect(await second.invoke({ user: "grace" })).toEqual({ user: "grace", visits: 1 });
    expect(await first.invoke({ user: "ada" })).toEqual({ user: "ada", visits: 4 });
  });
});
