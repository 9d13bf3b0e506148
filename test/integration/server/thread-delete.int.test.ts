/**
 * DELETE of a thread, driven through the handler against the emulator: it leaves no checkpoint
 * behind (even those being written when it came), refuses new runs, and drops the runs queued
 * behind the running one without calling their graph. Gates order the events; no clock does.
 */
import { AIMessage } from "@langchain/core/messages";
import { MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { deferred, drain, type Gate, gate } from "../../helpers/gate";
import { gatedGraph } from "./gated-graph";
import { postRun, sdkClient, studioServer } from "./harness";
import { say } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

/** A saver whose writes wait at a gate; `writing` resolves once the first write came. */
class HeldSaver extends MemorySaver {
  hold: Gate | undefined;
  readonly writing = deferred();
  override async put(...args: Parameters<MemorySaver["put"]>) {
    this.writing.resolve();
    await this.hold?.wait;
    return super.put(...args);
  }
  override async putWrites(...args: Parameters<MemorySaver["putWrites"]>) {
    this.writing.resolve();
    await this.hold?.wait;
    return super.putWrites(...args);
  }
}

describe("createAgentServer: DELETE during a run", () => {
  it("leaves no checkpoint of the thread behind, even those being written when it came", async () => {
    const saver = new HeldSaver();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("a", () => ({ messages: [new AIMessage({ content: "a" })] }))
      .addNode("b", () => ({ messages: [new AIMessage({ content: "b" })] }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile();
    const { handler } = studioServer(emulator.handle, {
      graphs: { two: graph },
      checkpointer: saver,
    });
    const client = sdkClient(handler);
    const { thread_id } = await client.threads.create();
    const held = gate();
    saver.hold = held;
    const running = await handler(
      postRun(thread_id, { assistant_id: "two", input: say("secret"), on_disconnect: "continue" }),
    );
    await saver.writing.promise;
    const deleting = client.threads.delete(thread_id);
    // The run ends (cancelled by the delete) while its writes are still held.
    await running.text();
    held.open();
    await deleting;
    // LangGraph's writes queued behind the held ones come now: they must be dropped.
    await drain();
    const left: unknown[] = [];
    for await (const tuple of saver.list({ configurable: { thread_id } })) left.push(tuple);
    expect(left).toEqual([]);
    expect(JSON.stringify(saver.writes)).not.toContain(thread_id);
    await expect(client.threads.get(thread_id)).rejects.toThrow(/404/);
  });

  it("drops runs queued with enqueue: their graph is never called", async () => {
    const counted = gatedGraph();
    const { handler } = studioServer(emulator.handle, { graphs: { counted: counted.graph } });
    const client = sdkClient(handler);
    const { thread_id } = await client.threads.create();
    const body = (text: string, strategy?: string) => ({
      assistant_id: "counted",
      input: say(text),
      on_disconnect: "continue",
      ...(strategy ? { multitask_strategy: strategy } : {}),
    });
    const running = await handler(postRun(thread_id, body("one")));
    await counted.entered(0);
    const queued = await Promise.all([
      handler(postRun(thread_id, body("two", "enqueue"))),
      handler(postRun(thread_id, body("three", "enqueue"))),
    ]);
    expect(queued.map((response) => response.status)).toEqual([200, 200]);
    const statuses = (await client.runs.list(thread_id)).map((run) => run.status);
    expect(statuses.sort()).toEqual(["pending", "pending", "running"]);
    await client.threads.delete(thread_id);
    // Were a queued run to start anyway, it would not wait: the count below says it ran.
    counted.openAll();
    await Promise.all([running.text(), ...queued.map((response) => response.text())]);
    expect(counted.seen.calls).toBe(1);
    // The thread is gone: a new run is a 404, and the graph still ran once.
    const late = await handler(postRun(thread_id, body("four", "enqueue")));
    expect(late.status).toBe(404);
    expect(counted.seen.calls).toBe(1);
  });
});
