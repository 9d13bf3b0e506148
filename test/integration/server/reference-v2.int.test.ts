/**
 * Protocol v2 against the reference, `@langchain/langgraph-api`'s `createEmbedServer` with
 * `MemorySaver`: the same commands on both, the event sequences each thread's stream sends
 * (methods, namespaces, nodes and data, with ids, times and task ids left out) must be equal.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { useEmulator } from "../../helpers/emulator";
import { type Handler, referenceServer, studioServer } from "./harness";
import {
  ALL_CHANNELS,
  command,
  comparableEvents,
  readEvents,
  rootEnd,
  type WireEvent,
} from "./protocol-v2-scripts";
import { say } from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function both(): Handler[] {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  const studio = new StudioClient({ baseUrl, proxyUrl, apiKey });
  return [studioServer(emulator.handle).handler, referenceServer(studio)];
}

/** `run.start` then the whole thread's events until the run ends. */
async function turn(handler: Handler, threadId: string, params: Record<string, unknown>) {
  const answer = await command(handler, threadId, { id: 1, method: "run.start", params });
  expect(answer.body.type).toBe("success");
  return readEvents(handler, threadId, { channels: ALL_CHANNELS }, rootEnd);
}

/** The same script on both servers, each on a fresh client-chosen thread. */
async function onBoth(script: (handler: Handler, threadId: string) => Promise<WireEvent[]>) {
  const [ours, reference] = both();
  const mine = await script(ours!, crypto.randomUUID());
  const theirs = await script(reference!, crypto.randomUUID());
  return { mine: comparableEvents(mine), theirs: comparableEvents(theirs) };
}

describe("protocol v2 event sequences match @langchain/langgraph-api's embed server", () => {
  it("an agent turn with a tool", async () => {
    const { mine, theirs } = await onBoth((handler, id) =>
      turn(handler, id, {
        assistant_id: "agent",
        input: say('get_weather {"city": "Oslo"}'),
      }),
    );
    expect(mine.some((e) => e.method === "tools")).toBe(true);
    expect(mine.some((e) => e.method === "messages")).toBe(true);
    expect(mine).toEqual(theirs);
  });

  it("an interrupt, then its answer with input.respond", async () => {
    const { mine, theirs } = await onBoth(async (handler, id) => {
      const paused = await turn(handler, id, { assistant_id: "approval", input: say("hi") });
      const asked = paused.find((e) => e.method === "input.requested");
      const interruptId = String(asked?.params.data.interrupt_id);
      const answer = await command(handler, id, {
        id: 2,
        method: "input.respond",
        params: { namespace: [], interrupt_id: interruptId, response: "yes" },
      });
      expect(answer.body.type).toBe("success");
      // The answer's run drops the paused run's events: a new stream starts from the answer.
      const resumed = await readEvents(handler, id, { channels: ALL_CHANNELS }, rootEnd);
      return [...paused, ...resumed];
    });
    expect(mine.filter((e) => e.method === "input.requested")).toHaveLength(1);
    expect(mine).toEqual(theirs);
  });

  it("a subgraph's events under its namespace", async () => {
    const { mine, theirs } = await onBoth((handler, id) =>
      turn(handler, id, { assistant_id: "nested", input: say("hi") }),
    );
    expect(mine.some((e) => e.namespace.length === 2)).toBe(true);
    expect(mine).toEqual(theirs);
  });

  it("a fork: run.start from an earlier checkpoint", async () => {
    const { mine, theirs } = await onBoth(async (handler, id) => {
      const first = await turn(handler, id, { assistant_id: "echo", input: say("one") });
      // The first step's parent: the checkpoint before the input was applied.
      const checkpoint = first.find((e) => e.method === "checkpoints" && e.params.data.step === 0);
      const end = first.at(-1)!.seq;
      await command(handler, id, {
        id: 2,
        method: "run.start",
        params: {
          assistant_id: "echo",
          input: say("edited"),
          config: { configurable: { checkpoint_id: checkpoint?.params.data.parent_id } },
        },
      });
      const forked = await readEvents(handler, id, { channels: ALL_CHANNELS, since: end }, rootEnd);
      return [...first, ...forked];
    });
    const values = mine.filter((e) => e.method === "values").at(-1);
    expect(JSON.stringify(values)).toContain("edited");
    expect(JSON.stringify(values)).not.toContain('"one"');
    expect(mine).toEqual(theirs);
  });
});
