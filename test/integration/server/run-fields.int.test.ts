/**
 * The run fields the SDK sends beyond the input, each honoured or refused with a 422 naming it:
 * `strict_resume`, `streamNamespaces` (the `namespace` query), a join's `checkpointId`,
 * `after_seconds`, `durability`, and the fields this server cannot honour (`webhook`...).
 */
import { AIMessage } from "@langchain/core/messages";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { gatedGraph } from "./gated-graph";
import { postRun, sdkClient, studioServer } from "./harness";
import { approvalUntilInterrupt, collect, say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

/** A graph whose one node is a subgraph ("inner") that answers. */
function nestedGraph() {
  const inner = new StateGraph(MessagesAnnotation)
    .addNode("step", () => ({ messages: [new AIMessage({ content: "from inside" })] }))
    .addEdge(START, "step")
    .compile();
  return new StateGraph(MessagesAnnotation)
    .addNode("inner", inner)
    .addEdge(START, "inner")
    .compile();
}

describe("strict_resume", () => {
  it("fails a resume naming an interrupt that is not waiting, leaving the thread as it was", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const tid = (await client.threads.create()).thread_id;
    await approvalUntilInterrupt(client, tid);
    const before = await client.threads.getState(tid);
    expect(before.next).toEqual(["approve"]);

    const events = await collect(
      client.runs.stream(tid, "approval", {
        command: { resume: { ["0".repeat(32)]: "yes" } },
        strictResume: true,
      }),
    );
    expect(events.at(-1)).toMatchObject({
      event: "error",
      data: { error: "UnknownInterruptError", code: "unknown_interrupt" },
    });
    const after = await client.threads.getState(tid);
    expect(after.next).toEqual(["approve"]);
    expect(after.checkpoint.checkpoint_id).toBe(before.checkpoint.checkpoint_id);

    // The interrupt that does wait is resumed as usual.
    const [waiting] = before.tasks.flatMap((task) => task.interrupts);
    const resumed = await collect(
      client.runs.stream(tid, "approval", {
        command: { resume: { [waiting!.id!]: "yes" } },
        strictResume: true,
      }),
    );
    expect(texts(resumed.at(-1)?.data).at(-1)).toBe("Decision: yes");
  });
});

describe("streamNamespaces", () => {
  it('streams only the namespaces asked for, the root as ""', async () => {
    const { handler } = studioServer(emulator.handle, { graphs: { nested: nestedGraph() } });
    const client = sdkClient(handler);
    const tid = (await client.threads.create()).thread_id;
    const inside = await collect(
      client.runs.stream(tid, "nested", {
        input: say("a"),
        streamMode: "values",
        streamNamespaces: ["inner"],
      }),
    );
    const names = inside.map((e) => e.event.split("|")[0] + (e.event.includes("|") ? "|ns" : ""));
    expect(names).toEqual(["metadata", "values|ns", "values|ns"]);
    expect(inside.slice(1).every((e) => /^values\|inner:/.test(e.event))).toBe(true);

    const root = await collect(
      client.runs.stream(tid, "nested", {
        input: say("b"),
        streamMode: "values",
        streamSubgraphs: true,
        streamNamespaces: [""],
      }),
    );
    expect(root.map((e) => e.event)).toEqual(["metadata", "values", "values"]);
    expect(texts(root.at(-1)?.data).at(-1)).toBe("from inside");
  });
});

describe("a join's checkpointId", () => {
  it("sends the run's events from a checkpoint the reader shows, the whole run for another", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const tid = (await client.threads.create()).thread_id;
    let runId = "";
    await collect(
      client.runs.stream(tid, "echo", {
        input: say("hi"),
        streamResumable: true,
        onRunCreated: (meta) => {
          runId = meta.run_id;
        },
      }),
    );
    const whole = await collect(client.runs.joinStream(tid, runId, { lastEventId: "-1" }));
    expect(whole.map((e) => e.event)).toEqual(["metadata", "values", "values"]);

    // The checkpoint after the input: the reader shows "hi" and waits for the answer.
    const history = await client.threads.getHistory(tid);
    const shown = history.find((state) => texts(state.values).join() === "hi");
    const fromShown = await collect(
      client.runs.joinStream(tid, runId, {
        lastEventId: "-1",
        checkpointId: shown!.checkpoint.checkpoint_id!,
      }),
    );
    expect(fromShown.length).toBeLessThan(whole.length);
    expect(fromShown).toEqual(whole.slice(whole.length - fromShown.length));
    expect(texts(fromShown.at(-1)?.data)).toEqual(["hi", "You said: hi"]);

    const other = await collect(
      client.runs.joinStream(tid, runId, { lastEventId: "-1", checkpointId: "not-of-this-run" }),
    );
    expect(other).toEqual(whole);
    // A Last-Event-ID other than -1 comes first.
    const resumed = await collect(
      client.runs.joinStream(tid, runId, {
        lastEventId: "1",
        checkpointId: shown!.checkpoint.checkpoint_id!,
      }),
    );
    expect(resumed).toEqual(whole.slice(2));
  });
});

describe("scheduling and durability", () => {
  it("holds a run with after_seconds pending, and its cancel ends it before it starts", async () => {
    const slow = gatedGraph();
    slow.openAll();
    const { handler } = studioServer(emulator.handle, { graphs: { slow: slow.graph } });
    const client = sdkClient(handler);
    const tid = (await client.threads.create()).thread_id;
    const run = await client.runs.create(tid, "slow", { input: say("later"), afterSeconds: 3600 });
    expect(run.status).toBe("pending");
    await client.runs.cancel(tid, run.run_id);
    expect((await client.runs.get(tid, run.run_id)).status).toBe("interrupted");
    expect(slow.seen.calls).toBe(0);
  });

  it("saves only the run's last checkpoint under durability exit", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const saved = async (durability?: "exit" | "async") => {
      const tid = (await client.threads.create()).thread_id;
      await client.runs.wait(tid, "echo", { input: say("x"), durability });
      return (await client.threads.getHistory(tid)).length;
    };
    const all = await saved("async");
    expect(await saved("exit")).toBeLessThan(all);
  });
});

describe("fields this server cannot honour", () => {
  it("refuses each with a 422 naming it, starting nothing", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const tid = (await client.threads.create()).thread_id;
    const refused = async (body: Record<string, unknown>) => {
      const response = await handler(postRun(tid, { assistant_id: "echo", ...body }));
      expect(response.status).toBe(422);
      return ((await response.json()) as { message: string }).message;
    };
    expect(await refused({ webhook: "https://example.com/hook" })).toMatch(/^webhook: /);
    expect(await refused({ feedback_keys: ["score"] })).toMatch(/^feedback_keys: /);
    expect(await refused({ langsmith_tracer: { project_name: "p" } })).toMatch(
      /^langsmith_tracer: /,
    );
    expect(await refused({ durability: "exit", checkpoint_during: true })).toMatch(
      /^checkpoint_during: /,
    );
    expect(await refused({ on_completion: "delete" })).toMatch(/^on_completion: /);
    expect(await refused({ after_seconds: -1 })).toMatch(/^after_seconds: /);
    expect(await client.runs.list(tid)).toEqual([]);
  });
});

describe("if_not_exists", () => {
  it("creates the thread under the path's id with create, and leaves a missing one a 404 without", async () => {
    const { handler } = studioServer(emulator.handle, {
      auth: async (r) => r.headers.get("x-user") ?? undefined,
    });
    const ann = sdkClient(handler, { "x-user": "ann" });
    const id = crypto.randomUUID();
    await expect(ann.runs.wait(id, "echo", { input: say("hi") })).rejects.toThrow(/404/);
    const values = (await ann.runs.wait(id, "echo", {
      input: say("hi"),
      ifNotExists: "create",
    })) as { messages: { content: string }[] };
    expect(values.messages.map((m) => m.content)).toEqual(["hi", "You said: hi"]);
    expect((await ann.threads.get(id)).thread_id).toBe(id);
    const bob = sdkClient(handler, { "x-user": "bob" });
    await expect(bob.threads.get(id)).rejects.toThrow(/404/);
  });
});
