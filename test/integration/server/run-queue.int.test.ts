/**
 * Runs of one thread under `multitask_strategy`, driven through the handler against the
 * emulator: queued and interrupting runs never run together, in the order the strategy says.
 * The graph waits at gates the test opens; nothing here waits on a clock.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { gatedGraph } from "./gated-graph";
import { postRun, sdkClient, studioServer } from "./harness";
import { say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

describe("createAgentServer: runs waiting on the same run", () => {
  it("starts two enqueue runs one after the other, never together", async () => {
    const counted = gatedGraph();
    const { handler } = studioServer(emulator.handle, { graphs: { counted: counted.graph } });
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const body = (text: string, strategy?: string) => ({
      assistant_id: "counted",
      input: say(text),
      on_disconnect: "continue",
      ...(strategy ? { multitask_strategy: strategy } : {}),
    });
    const first = await handler(postRun(thread.thread_id, body("one")));
    await counted.entered(0);
    const [second, third] = await Promise.all([
      handler(postRun(thread.thread_id, body("two", "enqueue"))),
      handler(postRun(thread.thread_id, body("three", "enqueue"))),
    ]);
    expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
    counted.open(0);
    await counted.entered(1);
    counted.open(1);
    await counted.entered(2);
    counted.open(2);
    await Promise.all([first.text(), second.text(), third.text()]);
    expect(counted.seen.most).toBe(1);
    const said = texts((await client.threads.getState(thread.thread_id)).values);
    const statuses = (await client.runs.list(thread.thread_id)).map((r) => r.status).sort();
    expect(said.filter((t) => t === "two" || t === "three").sort()).toEqual(["three", "two"]);
    expect(said.filter((t) => t.startsWith("Slowly: ")).length).toBe(3);
    expect(statuses).toEqual(["success", "success", "success"]);
  });

  it("starts two interrupt runs one after the other, never together", async () => {
    const counted = gatedGraph();
    const { handler } = studioServer(emulator.handle, { graphs: { counted: counted.graph } });
    const client = sdkClient(handler);
    const thread = await client.threads.create();
    const body = (text: string, strategy?: string) => ({
      assistant_id: "counted",
      input: say(text),
      on_disconnect: "continue",
      ...(strategy ? { multitask_strategy: strategy } : {}),
    });
    const first = await handler(postRun(thread.thread_id, body("one")));
    await counted.entered(0);
    const [second, third] = await Promise.all([
      handler(postRun(thread.thread_id, body("two", "interrupt"))),
      handler(postRun(thread.thread_id, body("three", "interrupt"))),
    ]);
    expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
    // The first run is cancelled at its gate; the later interrupt cancels the queued one too.
    await counted.entered(1);
    counted.open(1);
    await Promise.all([first.text(), second.text(), third.text()]);
    expect(counted.seen.most).toBe(1);
    const said = texts((await client.threads.getState(thread.thread_id)).values);
    const statuses = (await client.runs.list(thread.thread_id)).map((r) => r.status).sort();
    // The later run interrupts the earlier; the one that ran last answered.
    expect(said.at(-1)).toMatch(/^Slowly: (two|three)$/);
    expect(statuses).toEqual(["interrupted", "interrupted", "success"]);
    counted.openAll();
  });
});
