/**
 * A thread's protocol v2 events shared through Redis (`src/server/redis/v2-events.ts`), on the
 * tests' own redis-server: two "instances" (two backends on their own connections) write and read
 * one thread's events; a WebSocket session reads them from the shared log. Nothing waits on a
 * clock: each step waits for the events it expects.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { createClient } from "redis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { StudioStoredFormatError } from "../../src/errors";
import type { ServerContext } from "../../src/server/context";
import type { RedisClientLike } from "../../src/server/redis/connection";
import { RedisKeys } from "../../src/server/redis/keys";
import { RedisV2Events } from "../../src/server/redis/v2-events";
import { V2_EVENT_FORMAT } from "../../src/server/redis/v2-stored";
import type { StoredThread } from "../../src/server/thread-records";
import { EventLogs, type LoggedEvent } from "../../src/server/v2/event-log";
import { type ProtocolSocket, ProtocolSocketSession } from "../../src/server/v2/websocket";
import { REPO_ROOT } from "../helpers/run-command";
import { type RedisServer, startRedisServer } from "../setup/redis-server";

let redis: RedisServer;
const clients: RedisClientLike[] = [];
const keys = new RedisKeys("v2-events-test:");
const THREAD = "thread-1";

beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await redis?.close();
});
beforeEach(async () => {
  const admin = await connected();
  await admin.sendCommand(["FLUSHALL"]);
});

async function connected(): Promise<RedisClientLike> {
  const client = createClient({ url: redis.url, RESP: 2 }) as unknown as RedisClientLike;
  client.on("error", () => {});
  await client.connect();
  clients.push(client);
  return client;
}

/** One instance's shared logs, on a connection of its own, running a run of the thread. */
async function instance(lease: string | null = "a-run|an-instance|1") {
  const client = await connected();
  const reported: unknown[] = [];
  const events = new RedisV2Events({
    client: async () => client,
    keys,
    maxEvents: 1000,
    ttlSeconds: 60,
    leaseOf: () => lease ?? undefined,
    busy: async () => false,
    report: (error) => reported.push(error),
  });
  return { events, reported, log: () => events.thread(THREAD, { live: 0 }) };
}

const values = (n: number) => ({ method: "values", namespace: [], data: { n } });

/** Reads `follow` until it has `count` events, then stops it. */
async function take(
  follow: (signal: AbortSignal) => AsyncGenerator<LoggedEvent>,
  count: number,
): Promise<LoggedEvent[]> {
  const stop = new AbortController();
  const seen: LoggedEvent[] = [];
  for await (const event of follow(stop.signal)) {
    seen.push(event);
    if (seen.length === count) stop.abort();
  }
  return seen;
}

describe("a thread's v2 events shared through Redis", () => {
  it("a reader on another instance replays after `since`, then follows, once each, in order", async () => {
    const writer = (await instance()).log();
    await writer.open();
    for (const n of [1, 2, 3]) writer.append(values(n));
    await writer.flushed();
    const reader = (await instance()).log();
    const reading = take((signal) => reader.follow({ channels: ["values"], since: 1 }, signal), 4);
    for (const n of [4, 5]) writer.append(values(n));
    const seen = await reading;
    expect(seen.map((event) => event.seq)).toEqual([2, 3, 4, 5]);
    expect(seen.map((event) => (event.params.data as { n: number }).n)).toEqual([2, 3, 4, 5]);
    expect(JSON.parse(seen[0]!.json)).toMatchObject({ type: "event", seq: 2, event_id: "2" });
    expect(await reader.lastSeqNow()).toBe(5);
  });

  it("clear leaves the events so far out of every replay; the next writer numbers on", async () => {
    const first = (await instance()).log();
    await first.open();
    for (const n of [1, 2]) first.append(values(n));
    await first.flushed();
    await (await instance()).log().clear();
    const other = (await instance()).log();
    expect(await other.replay(() => true)).toEqual({ events: [], through: 0 });
    await other.open();
    other.append(values(3));
    await other.flushed();
    const seen = await take((signal) => other.follow({ channels: ["values"] }, signal), 1);
    expect(seen.map((event) => event.seq)).toEqual([3]);
  });

  it("an append is refused while another run holds the thread's lease, or none is held here", async () => {
    const lost = (await instance(null)).log();
    await lost.open();
    lost.append(values(1));
    await lost.flushed();
    expect((await lost.replay(() => true)).events).toEqual([]);
    const admin = await connected();
    await admin.sendCommand(["SET", keys.lease(THREAD), "other-run|instance-b|7"]);
    const stale = (await instance("my-run|instance-a|6")).log();
    await stale.open();
    stale.append(values(1));
    await stale.flushed();
    expect((await stale.replay(() => true)).events).toEqual([]);
    const holder = (await instance("other-run|instance-b|7")).log();
    await holder.open();
    holder.append(values(1));
    await holder.flushed();
    expect((await holder.replay(() => true)).events.map((event) => event.seq)).toEqual([1]);
  });

  it("reads back a v2 run as format 1 stored it (a real run's entries), and numbers on after it", async () => {
    const fixture = JSON.parse(
      readFileSync(path.join(REPO_ROOT, "test/fixtures/redis/redis-v2-events.json"), "utf8"),
    ) as { entries: { id: string; fields: string[] }[] };
    const admin = await connected();
    for (const { id, fields } of fixture.entries) {
      await admin.sendCommand(["XADD", keys.v2Events(THREAD), id, ...fields]);
    }
    const stored = fixture.entries.map(({ fields }) => fields[fields.indexOf("j") + 1]);
    const log = (await instance()).log();
    const { events, through } = await log.replay(() => true);
    expect(events.map((event) => event.json)).toEqual(stored);
    expect(through).toBe(16);
    expect(events.map((event) => event.method).at(-1)).toBe("lifecycle");
    expect(events.at(-1)?.params.data).toEqual({ event: "completed", graph_name: "echo" });
    const rest = await take(
      (signal) => log.follow({ channels: ["lifecycle"], since: 5 }, signal),
      2,
    );
    expect(rest.map((event) => event.seq)).toEqual([13, 16]);
    await log.open();
    log.append(values(1));
    await log.flushed();
    expect(await log.lastSeqNow()).toBe(17);
  });

  it("a stream waits for a command another instance is handling on the thread", async () => {
    const handling = await instance();
    const opening = await instance();
    const done = handling.events.commandBegan("ada", "t-1");
    // The command's count is in Redis before the stream looks (as when it reached its instance
    // first): the look after it waits.
    await handling.events.send(["PING"]);
    let settled = false;
    const waiting = opening.events.commandsSettled("ada", "t-1").then(() => {
      settled = true;
    });
    await opening.events.send(["PING"]);
    expect(settled).toBe(false);
    await opening.events.commandsSettled("bob", "t-1");
    done();
    await waiting;
    expect(settled).toBe(true);
  });

  it("an entry of a newer format is a StudioStoredFormatError, not an event read wrongly", async () => {
    const admin = await connected();
    const json = JSON.stringify({ type: "event", seq: 1, method: "values", params: {} });
    const newer = String(V2_EVENT_FORMAT + 1);
    await admin.sendCommand(["XADD", keys.v2Events(THREAD), "0-1", "f", newer, "j", json]);
    const log = (await instance()).log();
    await expect(log.replay(() => true)).rejects.toBeInstanceOf(StudioStoredFormatError);
  });

  it("agent.getTree reads the current run's agents from the shared events", async () => {
    const writer = (await instance()).log();
    await writer.open();
    writer.append({
      method: "lifecycle",
      namespace: [],
      data: { event: "running", graph_name: "steps" },
    });
    writer.append({ method: "values", namespace: ["draft:1234"], data: {} });
    await writer.flushed();
    const tree = await (await instance()).log().tree();
    expect(tree).toMatchObject({
      namespace: [],
      status: "running",
      graph_name: "steps",
      children: [{ namespace: ["draft:1234"], status: "started", graph_name: "draft" }],
    });
  });

  it("a reader's stream breaks when Redis goes away (its client reconnects with `since`)", async () => {
    const writer = (await instance()).log();
    await writer.open();
    writer.append(values(1));
    await writer.flushed();
    const reader = (await instance()).log();
    const stop = new AbortController();
    const seen: number[] = [];
    const reading = (async () => {
      for await (const event of reader.follow({ channels: ["values"] }, stop.signal)) {
        seen.push(event.seq);
        if (seen.length === 1) void redis.stop({ hard: true });
      }
    })();
    try {
      await expect(reading).rejects.toThrow();
      expect(seen).toEqual([1]);
    } finally {
      stop.abort();
      await redis.start();
    }
  });
});

/** A socket that resolves `until(n)` once it carries `n` events. */
class CountingSocket implements ProtocolSocket {
  readonly frames: Record<string, unknown>[] = [];
  #want = Number.POSITIVE_INFINITY;
  #reached: (() => void) | undefined;

  send(text: string): void {
    this.frames.push(JSON.parse(text) as Record<string, unknown>);
    if (this.events().length >= this.#want) this.#reached?.();
  }

  close(): void {}

  events(): number[] {
    return this.frames.filter((f) => f.type === "event").map((f) => f.seq as number);
  }

  answer(id: number): Record<string, unknown> | undefined {
    return this.frames.find((f) => f.id === id && f.type !== "event");
  }

  until(count: number): Promise<void> {
    this.#want = count;
    if (this.events().length >= count) return Promise.resolve();
    return new Promise((resolve) => {
      this.#reached = resolve;
    });
  }
}

describe("a WebSocket session over the shared events", () => {
  it("replays to each subscription, then writes each live event once, in order", async () => {
    const writer = (await instance()).log();
    await writer.open();
    writer.append({ method: "lifecycle", namespace: [], data: { event: "running" } });
    writer.append(values(1));
    await writer.flushed();
    const reader = await instance();
    const stored = { view: { thread_id: THREAD } } as StoredThread;
    const ctx = {
      events: new EventLogs(reader.events),
      threadIds: { find: async () => stored },
      report: () => {},
    } as unknown as ServerContext;
    const socket = new CountingSocket();
    const request = new Request("http://agent.test/threads/t/stream/events");
    const session = new ProtocolSocketSession(
      { ctx, owner: "", threadId: THREAD, request },
      socket,
      stored,
    );
    session.message(
      JSON.stringify({ id: 1, method: "subscription.subscribe", params: { channels: ["values"] } }),
    );
    await socket.until(1);
    writer.append(values(2));
    await socket.until(2);
    session.message(
      JSON.stringify({
        id: 2,
        method: "subscription.subscribe",
        params: { channels: ["lifecycle", "values"] },
      }),
    );
    // The second subscription replays what it matches (1, 2, 3); then each live event is
    // written once, however many subscriptions match it.
    await socket.until(5);
    writer.append(values(3));
    writer.append({ method: "lifecycle", namespace: [], data: { event: "completed" } });
    await socket.until(7);
    session.closed();
    expect(socket.events()).toEqual([2, 3, 1, 2, 3, 4, 5]);
    expect(socket.answer(1)).toMatchObject({ result: { replayed_events: 1 } });
    expect(socket.answer(2)).toMatchObject({ result: { replayed_events: 3 } });
  });
});
