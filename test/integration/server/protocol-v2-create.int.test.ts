/**
 * A thread `run.start` creates: its record is held for its run's end, which need not read back
 * what this process just wrote (costs.int.test.ts counts it); when no run starts, nothing holds
 * it, and a later read sees what another process changed since. A process that knows the
 * thread's id finds it at no cost until the service answers 404 for the thread it remembers.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { type Handler, sdkClient, studioServer } from "./harness";
import { command, readEvents, rootEnd } from "./protocol-v2-scripts";
import { say, texts } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

describe("a thread run.start creates", () => {
  it("is read afresh after a run.start refused once created", async () => {
    const here = studioServer(emulator.handle);
    const threadId = crypto.randomUUID();
    const refused = await command(here.handler, threadId, {
      id: 1,
      method: "run.start",
      params: { assistant_id: "echo", input: say("hi"), multitask_strategy: "sometimes" },
    });
    expect(refused.body).toMatchObject({ type: "error", error: "invalid_argument" });
    // Another process (another instance) changes the thread meanwhile.
    const elsewhere = sdkClient(studioServer(emulator.handle).handler);
    await elsewhere.threads.update(threadId, { metadata: { topic: "renamed" } });
    const seen = await sdkClient(here.handler).threads.get(threadId);
    expect(seen.metadata?.topic).toBe("renamed");
  });
});

/** `run.start` on the thread, then its root's end as the thread's stream tells it. */
async function message(handler: Handler, threadId: string, text: string) {
  const start = { assistant_id: "echo", input: say(text) };
  const answer = await command(handler, threadId, { id: 1, method: "run.start", params: start });
  expect(answer.body).toMatchObject({ type: "success" });
  const events = await readEvents(handler, threadId, { channels: ["lifecycle"] }, rootEnd);
  return events.at(-1)?.params.data;
}

describe("a client id another process deleted and created again", () => {
  it("fails the one run that found the old thread, then the look-up finds the new one", async () => {
    const here = studioServer(emulator.handle);
    const elsewhere = studioServer(emulator.handle);
    const threadId = crypto.randomUUID();
    expect(await message(here.handler, threadId, "first")).toMatchObject({ event: "completed" });
    await sdkClient(elsewhere.handler).threads.delete(threadId);
    expect(await message(elsewhere.handler, threadId, "anew")).toMatchObject({
      event: "completed",
    });
    // This process remembers the deleted thread: its run there cannot bring it back.
    expect(await message(here.handler, threadId, "stale")).toMatchObject({ event: "failed" });
    // The service's 404 for that thread sent the id's look-up back to the service.
    expect(await message(here.handler, threadId, "again")).toMatchObject({ event: "completed" });
    const state = await sdkClient(here.handler).threads.getState(threadId);
    expect(texts(state.values)).toEqual(["anew", "You said: anew", "again", "You said: again"]);
  });
});
