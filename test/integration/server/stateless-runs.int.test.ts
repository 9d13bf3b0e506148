/**
 * Stateless runs as the SDK's `Client` drives them (`runs.stream(null, ...)`, `runs.wait(null,
 * ...)`, `runs.create(null, ...)`): each runs on a thread of its own that is gone when the run
 * has ended, unless the run asked `on_completion: "keep"`.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { useEmulator } from "../../helpers/emulator";
import { deferred } from "../../helpers/gate";
import { sdkClient, studioServer } from "./harness";
import { collect, say, texts } from "./scripts";

const emulator = useEmulator();

/**
 * `on_completion: "keep"`: the SDK sends `onCompletion` as it is, but its types say "complete" or
 * "continue" (and leave it out of a stateless run's); the Agent Server's API takes "delete" or
 * "keep".
 */
const KEEP = { onCompletion: "keep" as never };

beforeEach(async () => {
  await emulator.handle.reset();
});

describe("stateless runs", () => {
  it("streams a run on a thread of its own, deleted when the stream ends", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    let created: { run_id: string; thread_id?: string } | undefined;
    const events = await collect(
      client.runs.stream(null, "echo", {
        input: say("hi"),
        onRunCreated: (meta) => {
          created = meta;
        },
      }),
    );
    expect(events.map((e) => e.event)).toEqual(["metadata", "values", "values"]);
    expect(texts(events.at(-1)?.data)).toEqual(["hi", "You said: hi"]);
    expect(created?.run_id).toBe((events[0]?.data as { run_id?: string } | undefined)?.run_id);
    expect(await client.threads.search()).toEqual([]);
  });

  it("waits for a run's values, its thread deleted before the answer", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const values = await client.runs.wait(null, "echo", { input: say("once") });
    expect(texts(values)).toEqual(["once", "You said: once"]);
    expect(await client.threads.search()).toEqual([]);
  });

  it("keeps the thread with on_completion keep, listed with the run's answer", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const values = await client.runs.wait(null, "echo", {
      input: say("keep me"),
      ...KEEP,
    });
    expect(texts(values)).toEqual(["keep me", "You said: keep me"]);
    const [thread, ...more] = await client.threads.search();
    expect(more).toEqual([]);
    expect(thread).toMatchObject({ status: "idle", metadata: { graph_id: "echo" } });
    const state = await client.threads.getState(thread!.thread_id);
    expect(texts(state.values)).toEqual(["keep me", "You said: keep me"]);
  });

  it("creates a stateless background run; kept, its thread joins it like any run", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    const run = await client.runs.create(null, "echo", {
      input: say("later"),
      ...KEEP,
    });
    expect(run.run_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(texts(await client.runs.join(run.thread_id, run.run_id))).toEqual([
      "later",
      "You said: later",
    ]);
    expect((await client.threads.search()).map((t) => t.thread_id)).toEqual([run.thread_id]);
  });

  it("deletes the thread of a stateless run cancelled before it started", async () => {
    const { baseUrl, proxyUrl, apiKey } = emulator.handle;
    const studio = new StudioClient({ baseUrl, proxyUrl, apiKey });
    // The thread list's delete of the run's thread, awaited instead of a clock.
    const deleted = deferred<string>();
    const deleteThread = studio.deleteThread.bind(studio);
    studio.deleteThread = async (id, options) => {
      const answer = await deleteThread(id, options);
      deleted.resolve(id);
      return answer;
    };
    const { handler } = studioServer(emulator.handle, { client: studio });
    const client = sdkClient(handler);
    const run = await client.runs.create(null, "echo", { input: say("never"), afterSeconds: 3600 });
    expect(run.status).toBe("pending");
    expect((await client.threads.search()).map((t) => t.thread_id)).toEqual([run.thread_id]);
    await client.runs.cancel(run.thread_id, run.run_id);
    expect(await deleted.promise).toBe(run.thread_id);
    expect(await client.threads.search()).toEqual([]);
  });

  it("refuses an unknown assistant before making a thread", async () => {
    const { handler } = studioServer(emulator.handle);
    const client = sdkClient(handler);
    await expect(client.runs.wait(null, "nope", { input: say("x") })).rejects.toThrow(/404/);
    expect(await client.threads.search()).toEqual([]);
  });
});
