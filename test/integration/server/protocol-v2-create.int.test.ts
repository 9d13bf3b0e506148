/**
 * A thread `run.start` creates: its record is held for its run's end, which need not read back
 * what this process just wrote (costs.int.test.ts counts it); when no run starts, nothing holds
 * it, and a later read sees what another process changed since. A process that knows the
 * thread's id finds it at no cost until the service answers 404 for the thread it remembers.
 * Two processes creating one id at once end with one thread, whichever way their calls cross.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
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

/**
 * A process whose chat-thread creations wait at `gate` (after its look-up of the id found
 * nothing), so that two processes both decide to create before either has.
 */
function gatedProcess(gate: { arrive: () => Promise<void> }) {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  const client = new StudioClient({
    baseUrl,
    proxyUrl,
    apiKey,
    fetch: async (input: string | URL | Request, init?: RequestInit) => {
      const body = typeof init?.body === "string" ? init.body : "";
      if (init?.method === "POST" && body.includes('"lc-chat-')) await gate.arrive();
      return fetch(input, init);
    },
  } as ConstructorParameters<typeof StudioClient>[0]);
  return studioServer(emulator.handle, { client });
}

/** Opens once `parties` callers have arrived. */
function barrier(parties: number) {
  let arrived = 0;
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    arrive: () => {
      arrived++;
      if (arrived >= parties) open();
      return opened;
    },
  };
}

describe("one client id created by two processes at once", () => {
  it("POST /threads: both answer the same thread, and one is left", async () => {
    const gate = barrier(2);
    const [a, b] = [gatedProcess(gate), gatedProcess(gate)];
    const threadId = crypto.randomUUID();
    const create = (handler: Handler, by: string) =>
      sdkClient(handler).threads.create({ threadId, metadata: { by }, ifExists: "do_nothing" });
    const [fromA, fromB] = await Promise.all([create(a.handler, "a"), create(b.handler, "b")]);
    expect(fromA.thread_id).toBe(threadId);
    expect(fromB.thread_id).toBe(threadId);
    expect(fromB.metadata?.by).toBe(fromA.metadata?.by);
    // A third process finds that one thread, and the owner's list holds no other.
    const fresh = sdkClient(studioServer(emulator.handle).handler);
    expect((await fresh.threads.get(threadId)).metadata?.by).toBe(fromA.metadata?.by);
    expect((await fresh.threads.search()).map((t) => t.thread_id)).toEqual([threadId]);
  });

  it("run.start: both runs land on the one thread", async () => {
    const gate = barrier(2);
    const [a, b] = [gatedProcess(gate), gatedProcess(gate)];
    const threadId = crypto.randomUUID();
    const start = (handler: Handler, text: string) =>
      command(handler, threadId, {
        id: 1,
        method: "run.start",
        params: { assistant_id: "echo", input: say(text) },
      });
    const answers = await Promise.all([start(a.handler, "from a"), start(b.handler, "from b")]);
    for (const answer of answers) expect(answer.body).toMatchObject({ type: "success" });
    for (const { handler } of [a, b]) {
      const events = await readEvents(handler, threadId, { channels: ["lifecycle"] }, rootEnd);
      expect(events.at(-1)?.params.data).toMatchObject({ event: "completed" });
    }
    // Without a coordination backend the two runs are not ordered (docs/deployment.md): what
    // is checked is that they ran on one thread, the one every process finds under the id.
    const fresh = sdkClient(studioServer(emulator.handle).handler);
    expect((await fresh.threads.search()).map((t) => t.thread_id)).toEqual([threadId]);
    const said = texts((await fresh.threads.getState(threadId)).values);
    expect(said.some((text) => text === "from a" || text === "from b")).toBe(true);
  });
});
