/**
 * The same scripts against this package's server and against the reference,
 * `@langchain/langgraph-api`'s `createEmbedServer` with `MemorySaver`: the event sequences (names
 * and data, ids and times left out) must be the same.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StudioClient } from "../../../src/client";
import { useEmulator } from "../../helpers/emulator";
import { referenceServer, sdkClient, studioServer } from "./harness";
import {
  agentTurn,
  approvalResume,
  approvalUntilInterrupt,
  collect,
  comparable,
  say,
} from "./scripts";

const emulator = useEmulator();

beforeEach(async () => {
  await emulator.handle.reset();
});

function both() {
  const { baseUrl, proxyUrl, apiKey } = emulator.handle;
  const studio = new StudioClient({ baseUrl, proxyUrl, apiKey });
  return {
    ours: sdkClient(studioServer(emulator.handle).handler),
    reference: sdkClient(referenceServer(studio)),
  };
}

describe("event sequences match @langchain/langgraph-api's embed server", () => {
  it("an agent turn with a tool: values, messages-tuple, updates", async () => {
    const { ours, reference } = both();
    const a = await ours.threads.create();
    const b = await reference.threads.create();
    const mine = await agentTurn(ours, a.thread_id, 'get_weather {"city": "Oslo"}');
    const theirs = await agentTurn(reference, b.thread_id, 'get_weather {"city": "Oslo"}');
    expect(mine.length).toBeGreaterThan(3);
    expect(comparable(mine)).toEqual(comparable(theirs));
  });

  it("an interrupt, then the resume", async () => {
    const { ours, reference } = both();
    const a = await ours.threads.create();
    const b = await reference.threads.create();
    expect(comparable(await approvalUntilInterrupt(ours, a.thread_id))).toEqual(
      comparable(await approvalUntilInterrupt(reference, b.thread_id)),
    );
    expect(comparable(await approvalResume(ours, a.thread_id))).toEqual(
      comparable(await approvalResume(reference, b.thread_id)),
    );
    const mine = await ours.threads.getState(a.thread_id);
    const theirs = await reference.threads.getState(b.thread_id);
    expect(comparable([{ event: "state", data: mine }])).toEqual(
      comparable([{ event: "state", data: theirs }]),
    );
  });

  it("stream_subgraphs: events named by namespace", async () => {
    const { ours, reference } = both();
    const a = await ours.threads.create();
    const b = await reference.threads.create();
    const run = (client: typeof ours, id: string) =>
      collect(
        client.runs.stream(id, "echo", {
          input: say("hi"),
          streamMode: ["values", "updates", "messages-tuple"],
          streamSubgraphs: true,
        }),
      );
    expect(comparable(await run(ours, a.thread_id))).toEqual(
      comparable(await run(reference, b.thread_id)),
    );
  });

  for (const mode of ["debug", "tasks", "custom"] as const) {
    it(`stream_mode ${mode}`, async () => {
      const { ours, reference } = both();
      const a = await ours.threads.create();
      const b = await reference.threads.create();
      const run = (client: typeof ours, id: string) =>
        collect(client.runs.stream(id, "approval", { input: say("hi"), streamMode: [mode] }));
      const mine = await run(ours, a.thread_id);
      expect(mine.filter((e) => e.event === mode).length).toBeGreaterThan(0);
      expect(comparable(mine)).toEqual(comparable(await run(reference, b.thread_id)));
    });
  }

  it("history after two turns and a fork", async () => {
    const { ours, reference } = both();
    const ids = [
      (await ours.threads.create()).thread_id,
      (await reference.threads.create()).thread_id,
    ];
    const clients = [ours, reference];
    const histories = [];
    for (const [i, client] of clients.entries()) {
      const id = ids[i]!;
      await agentTurn(client, id, "first", "echo");
      await agentTurn(client, id, "second", "echo");
      const history = await client.threads.getHistory(id, { limit: 50 });
      const fork = history.find(
        (s) => (s.values as { messages: unknown[] }).messages.length === 2 && s.next.length === 0,
      );
      await collect(
        client.runs.stream(id, "echo", { input: say("edited"), checkpoint: fork!.checkpoint }),
      );
      histories.push(await client.threads.getHistory(id, { limit: 50 }));
    }
    const [mine, theirs] = histories.map((h) =>
      comparable(h.map((state) => ({ event: "state", data: state }))),
    );
    expect(mine).toEqual(theirs);
  });
});
