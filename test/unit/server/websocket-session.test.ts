/**
 * One WebSocket's protocol v2 session over a fake socket and the real event log: what it writes
 * for overlapping subscriptions, for a subscription given before its thread exists, for bad
 * frames, and when the client falls behind.
 */
import { describe, expect, it } from "vitest";
import type { ServerContext } from "../../../src/server/context";
import type { StoredThread } from "../../../src/server/thread-records";
import { EventLogs } from "../../../src/server/v2/event-log";
import {
  MAX_SOCKET_BUFFER,
  type ProtocolSocket,
  ProtocolSocketSession,
} from "../../../src/server/v2/websocket";

type Frame = Record<string, unknown> & { type: string; id?: number | null; seq?: number };

class FakeSocket implements ProtocolSocket {
  readonly frames: Frame[] = [];
  closedWith: { code: number; reason: string } | undefined;
  bufferedBytes = 0;
  readonly #waiting = new Map<number, (frame: Frame) => void>();

  send(text: string): void {
    const frame = JSON.parse(text) as Frame;
    this.frames.push(frame);
    if (typeof frame.id === "number" && frame.type !== "event")
      this.#waiting.get(frame.id)?.(frame);
  }

  close(code: number, reason: string): void {
    this.closedWith = { code, reason };
  }

  buffered(): number {
    return this.bufferedBytes;
  }

  answerTo(id: number): Promise<Frame> {
    const sent = this.frames.find((f) => f.id === id && f.type !== "event");
    if (sent) return Promise.resolve(sent);
    return new Promise((resolve) => this.#waiting.set(id, resolve));
  }

  events(): number[] {
    return this.frames.filter((f) => f.type === "event").map((f) => f.seq as number);
  }
}

const SERVICE_ID = "thread-service-id";

function setup(exists = true) {
  const events = new EventLogs();
  const thread = { found: exists };
  const stored = { view: { thread_id: SERVICE_ID } } as StoredThread;
  const ctx = {
    events,
    threadIds: { find: async () => (thread.found ? stored : undefined) },
    report: () => {},
  } as unknown as ServerContext;
  const socket = new FakeSocket();
  const request = new Request("http://agent.test/threads/t/stream/events");
  const session = new ProtocolSocketSession(
    { ctx, owner: "", threadId: "t", request },
    socket,
    exists ? stored : undefined,
  );
  const log = events.of(SERVICE_ID);
  const emit = (method: string, data: unknown = {}) => log.append({ method, namespace: [], data });
  const send = (id: number, method: string, params: Record<string, unknown> = {}) => {
    session.message(JSON.stringify({ id, method, params }));
    return socket.answerTo(id);
  };
  return { session, socket, emit, send, thread, log };
}

describe("a WebSocket's protocol v2 session", () => {
  it("writes a live event once however many of its subscriptions match it", async () => {
    const { socket, emit, send } = setup();
    await send(1, "subscription.subscribe", { channels: ["lifecycle"] });
    await send(2, "subscription.subscribe", { channels: ["lifecycle", "values"] });
    emit("lifecycle", { event: "running" });
    emit("values", { messages: [] });
    emit("updates", {});
    expect(socket.events()).toEqual([1, 2]);
  });

  it("replays to a new subscription what it matches, after `since`, then goes live", async () => {
    const { socket, emit, send } = setup();
    emit("lifecycle", { event: "running" });
    emit("values", {});
    emit("values", {});
    const answer = await send(1, "subscription.subscribe", { channels: ["values"], since: 2 });
    expect(answer).toMatchObject({ type: "success", result: { replayed_events: 1 } });
    emit("values", {});
    expect(socket.events()).toEqual([3, 4]);
    // The replay is written before the answer: the subscription is whole when it resolves.
    expect(socket.frames.map((f) => f.type)).toEqual(["event", "success", "event"]);
  });

  it("keeps a subscription given before the thread exists, and serves it once found", async () => {
    const { socket, emit, send, thread } = setup(false);
    const first = await send(1, "subscription.subscribe", { channels: ["lifecycle"] });
    expect(first).toMatchObject({ type: "success", result: { replayed_events: 0 } });
    emit("lifecycle", { event: "running" });
    expect(socket.events()).toEqual([]);
    thread.found = true;
    // The next frame that looks the thread up finds it: the kept subscription gets the buffer.
    await send(2, "subscription.subscribe", { channels: ["values"] });
    emit("lifecycle", { event: "completed" });
    expect(socket.events()).toEqual([1, 2]);
  });

  it("answers a frame that is not a command, and an unknown subscription, with errors", async () => {
    const { session, socket, send } = setup();
    session.message("not json");
    session.message(JSON.stringify({ method: "run.start" }));
    expect(socket.frames).toEqual([
      expect.objectContaining({ type: "error", id: null, error: "invalid_argument" }),
      expect.objectContaining({ type: "error", id: null, error: "invalid_argument" }),
    ]);
    const gone = await send(3, "subscription.unsubscribe", { subscription_id: "nope" });
    expect(gone).toMatchObject({ type: "error", id: 3, error: "no_such_subscription" });
  });

  it("closes with 1013 a socket whose client fell behind, and writes no more", async () => {
    const { socket, emit, send } = setup();
    await send(1, "subscription.subscribe", { channels: ["values"] });
    emit("values", {});
    socket.bufferedBytes = MAX_SOCKET_BUFFER + 1;
    emit("values", {});
    expect(socket.closedWith).toMatchObject({ code: 1013 });
    emit("values", {});
    expect(socket.events()).toEqual([1, 2]);
  });

  it("stops following the thread once closed (its log may then be dropped)", async () => {
    const { session, socket, emit, send, log } = setup();
    await send(1, "subscription.subscribe", { channels: ["values"] });
    expect(log.idle).toBe(false);
    session.closed();
    expect(log.idle).toBe(true);
    emit("values", {});
    expect(socket.events()).toEqual([]);
  });
});
