/**
 * Background runs as the SDK's `Client` drives them: `runs.create` answers at once and the run
 * goes on, `runs.join` and `runs.wait` answer with its final values, `runs.delete` forgets an
 * ended one; and the submission queue the SDK builds on `multitask_strategy: "enqueue"`: queued
 * runs listed `pending` with their input, run in the order they were queued, one cancelled while
 * it waits never runs. The graph waits at gates the test opens; nothing waits on a clock.
 */
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { isSettled } from "../../helpers/gate";
import { gatedGraph } from "./gated-graph";
import { sdkClient, studioServer } from "./harness";
import { say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

/** A graph whose one node fails. */
function failingGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("fail", () => {
      throw new Error("the tool broke at secret-host.internal");
    })
    .addEdge(START, "fail")
    .compile();
}

function server(extra: Parameters<typeof studioServer>[1] = {}) {
  const slow = gatedGraph();
  const { handler } = studioServer(emulator.handle, {
    graphs: { slow: slow.graph, failing: failingGraph() },
    onError: () => {},
    ...extra,
  });
  return { slow, handler, client: sdkClient(handler) };
}

describe("background runs", () => {
  it("creates a run that goes on without a reader, and joins it for its final values", async () => {
    const { slow, client } = server();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: say("hello") });
    expect(run).toMatchObject({ thread_id: thread.thread_id, status: "running" });
    await slow.entered(0);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("running");

    const joined = client.runs.join(thread.thread_id, run.run_id);
    expect(await isSettled(joined)).toBe(false);
    slow.open(0);
    expect(texts(await joined)).toEqual(["hello", "Slowly: hello"]);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    // A join after the end answers the same.
    expect(texts(await client.runs.join(thread.thread_id, run.run_id))).toEqual([
      "hello",
      "Slowly: hello",
    ]);
  });

  it("waits for a run's final values, and throws the run's error as the SDK reads it", async () => {
    const { slow, client } = server();
    slow.openAll();
    const thread = await client.threads.create();
    const values = await client.runs.wait(thread.thread_id, "slow", { input: say("one") });
    expect(texts(values)).toEqual(["one", "Slowly: one"]);
    // A failed run answers `__error__` with what the user may see; the SDK throws it.
    const failed = await client.runs.wait(thread.thread_id, "failing", {
      input: say("two"),
      raiseError: false,
    });
    expect(failed).toEqual({
      __error__: {
        error: "RunError",
        message: "The run failed. Try again; if it keeps failing, contact the site's owner.",
        code: "run_failed",
      },
    });
    await expect(
      client.runs.wait(thread.thread_id, "failing", { input: say("3") }),
    ).rejects.toThrow(/^RunError: The run failed/);
  });

  it("deletes an ended run, and refuses to delete one still going", async () => {
    const { slow, client } = server();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: say("x") });
    await slow.entered(0);
    await expect(client.runs.delete(thread.thread_id, run.run_id)).rejects.toThrow(/409/);
    slow.open(0);
    await client.runs.join(thread.thread_id, run.run_id);
    await client.runs.delete(thread.thread_id, run.run_id);
    await expect(client.runs.get(thread.thread_id, run.run_id)).rejects.toThrow(/404/);
    expect(await client.runs.list(thread.thread_id)).toEqual([]);
  });
});

describe("the enqueue queue", () => {
  it("lists queued runs pending with their input, runs them in order, skips a cancelled one", async () => {
    const { slow, client } = server();
    const thread = await client.threads.create();
    const tid = thread.thread_id;
    const first = await client.runs.create(tid, "slow", { input: say("one") });
    await slow.entered(0);
    const queued = [];
    for (const text of ["two", "three", "four"]) {
      queued.push(
        await client.runs.create(tid, "slow", { input: say(text), multitaskStrategy: "enqueue" }),
      );
    }
    const [two, three, four] = queued;
    expect(queued.map((run) => run.status)).toEqual(["pending", "pending", "pending"]);

    // What the SDK's server-side queue asks for (`queue: "server"`), newest first.
    const pending = await client.runs.list(tid, {
      status: "pending",
      select: ["run_id", "kwargs", "created_at", "multitask_strategy"],
    });
    // `kwargs` is the Agent Server's (the SDK's `Run` type leaves it out); its queue reads it.
    const inputOf = (run: object) => (run as { kwargs: { input: unknown } }).kwargs.input;
    expect(pending.map((run) => [run.run_id, texts(inputOf(run))[0]])).toEqual([
      [four?.run_id, "four"],
      [three?.run_id, "three"],
      [two?.run_id, "two"],
    ]);
    expect(Object.keys(pending[0] ?? {}).sort()).toEqual([
      "created_at",
      "kwargs",
      "multitask_strategy",
      "run_id",
    ]);

    // A queued run cancelled ends at once, while the run ahead of it still runs.
    await client.runs.cancel(tid, three!.run_id);
    expect((await client.runs.get(tid, three!.run_id)).status).toBe("interrupted");
    expect((await client.runs.list(tid, { status: "pending" })).map((r) => r.run_id)).toEqual([
      four?.run_id,
      two?.run_id,
    ]);
    expect((await client.runs.get(tid, first.run_id)).status).toBe("running");

    slow.open(0);
    await slow.entered(1);
    // The one behind the cancelled run still waits for the one ahead of it.
    expect((await client.runs.get(tid, four!.run_id)).status).toBe("pending");
    slow.open(1);
    await slow.entered(2);
    slow.open(2);
    await client.runs.join(tid, four!.run_id);
    expect(slow.seen.most).toBe(1);
    expect(slow.seen.calls).toBe(3);
    expect(texts((await client.threads.getState(tid)).values)).toEqual([
      "one",
      "Slowly: one",
      "two",
      "Slowly: two",
      "four",
      "Slowly: four",
    ]);
    const statuses = await client.runs.list(tid);
    expect(statuses.map((run) => [run.run_id, run.status])).toEqual([
      [four?.run_id, "success"],
      [three?.run_id, "interrupted"],
      [two?.run_id, "success"],
      [first.run_id, "success"],
    ]);
  });

  it("forgets a pending run cancelled with rollback, and refuses rollback of a running one", async () => {
    const { slow, client } = server();
    const tid = (await client.threads.create()).thread_id;
    const first = await client.runs.create(tid, "slow", { input: say("one") });
    await slow.entered(0);
    const queued = await client.runs.create(tid, "slow", {
      input: say("two"),
      multitaskStrategy: "enqueue",
    });
    await expect(client.runs.cancel(tid, first.run_id, false, "rollback")).rejects.toThrow(/422/);
    await client.runs.cancel(tid, queued.run_id, false, "rollback");
    await expect(client.runs.get(tid, queued.run_id)).rejects.toThrow(/404/);
    slow.open(0);
    await client.runs.join(tid, first.run_id);
    expect(slow.seen.calls).toBe(1);
  });
});

describe("another user's runs", () => {
  it("refuses every run route on another user's thread as not found", async () => {
    const { slow, handler } = server({ auth: (request) => request.headers.get("x-user") });
    const ada = sdkClient(handler, { "x-user": "ada" });
    const bob = sdkClient(handler, { "x-user": "bob" });
    const tid = (await ada.threads.create()).thread_id;
    const run = await ada.runs.create(tid, "slow", { input: say("mine") });
    await slow.entered(0);
    await expect(bob.runs.create(tid, "slow", { input: say("theirs") })).rejects.toThrow(/404/);
    await expect(bob.runs.wait(tid, "slow", { input: say("theirs") })).rejects.toThrow(/404/);
    await expect(bob.runs.join(tid, run.run_id)).rejects.toThrow(/404/);
    await expect(bob.runs.delete(tid, run.run_id)).rejects.toThrow(/404/);
    await expect(bob.runs.cancel(tid, run.run_id)).rejects.toThrow(/404/);
    expect((await ada.runs.get(tid, run.run_id)).status).toBe("running");
    slow.open(0);
    expect(texts(await ada.runs.join(tid, run.run_id))).toEqual(["mine", "Slowly: mine"]);
    expect(slow.seen.calls).toBe(1);
  });
});
