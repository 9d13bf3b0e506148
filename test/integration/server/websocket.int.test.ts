/**
 * Protocol v2 over a WebSocket on a real Node server (`toNodeListener` + `toNodeUpgradeListener`
 * on port 0): the SDK's own ThreadStream with `transport: "websocket"` (a tool call, an interrupt
 * answered), and a bare socket for what the SDK does not show (filters, replay from `since`,
 * unsubscribe), auth on the upgrade, another user's thread, and the origin rules.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebSocket as WsClient } from "ws";
import {
  type AgentServerOptions,
  type NodeUpgradeOptions,
  toNodeListener,
  toNodeUpgradeListener,
} from "../../../src/server";
import { useEmulator } from "../../helpers/emulator";
import { studioServer } from "./harness";
import { ALL_CHANNELS as ALL, rootEnd, type WireEvent } from "./protocol-v2-scripts";
import { say, texts } from "./scripts";

const emulator = useEmulator();
const servers: Server[] = [];
/** Every client socket opened: an upgraded socket is not the server's to close. */
const sockets: WsClient[] = [];

function track(socket: WsClient): WsClient {
  sockets.push(socket);
  return socket;
}

beforeEach(async () => {
  await emulator.handle.reset();
});

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** The handler on a real Node server, WebSockets included; its base URL. */
async function listen(
  extra: Partial<AgentServerOptions> = {},
  upgrade: NodeUpgradeOptions = {},
): Promise<string> {
  const { handler } = studioServer(emulator.handle, extra);
  const server = createServer(toNodeListener(handler));
  server.on("upgrade", toNodeUpgradeListener(handler, upgrade));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

type StreamOptions = NonNullable<Parameters<Client["threads"]["stream"]>[1]>;

/** The SDK's ThreadStream over the WebSocket transport (Node 20 has no global WebSocket). */
function openStream(
  apiUrl: string,
  threadId: string,
  assistantId: string,
  headers?: Record<string, string>,
  more: Partial<StreamOptions> = {},
) {
  return new Client({ apiUrl }).threads.stream(threadId, {
    assistantId,
    transport: "websocket",
    maxReconnectAttempts: 0,
    webSocketFactory: (url) => track(new WsClient(url, { headers })) as unknown as WebSocket,
    ...more,
  } as StreamOptions);
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

type Message = Record<string, unknown> & { type?: string; id?: number | null };

/** A socket speaking the protocol by hand: commands answered by id, events collected. */
class RawSocket {
  readonly events: WireEvent[] = [];
  readonly #socket: WsClient;
  readonly #answers = new Map<number, (message: Message) => void>();
  #waiting: { until: (event: WireEvent) => boolean; done: () => void } | undefined;
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(socket: WsClient) {
    this.#socket = socket;
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as Message;
      if (message.type === "event") {
        const event = message as unknown as WireEvent;
        this.events.push(event);
        if (this.#waiting?.until(event)) this.#waiting.done();
        return;
      }
      if (typeof message.id === "number") this.#answers.get(message.id)?.(message);
    });
    this.closed = new Promise((resolve) => {
      socket.on("close", (code, reason) => resolve({ code, reason: String(reason) }));
    });
  }

  static async open(
    apiUrl: string,
    threadId: string,
    headers: Record<string, string> = {},
  ): Promise<RawSocket> {
    const url = `${apiUrl.replace("http", "ws")}/threads/${threadId}/stream/events`;
    const socket = track(new WsClient(url, { headers }));
    const raw = new RawSocket(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    return raw;
  }

  command(id: number, method: string, params: Record<string, unknown> = {}): Promise<Message> {
    const answer = new Promise<Message>((resolve) => this.#answers.set(id, resolve));
    this.#socket.send(JSON.stringify({ id, method, params }));
    return answer;
  }

  /** Resolves once an event `until` accepts has arrived (or already has). */
  waitFor(until: (event: WireEvent) => boolean): Promise<void> {
    if (this.events.some(until)) return Promise.resolve();
    return new Promise((done) => {
      this.#waiting = { until, done };
    });
  }

  close(): void {
    this.#socket.close();
  }
}

/** The status of a handshake the server refused (before any upgrade). */
function refusedWith(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = track(new WsClient(url, { headers }));
    // Terminating a refused handshake reports an error: expected here.
    socket.on("error", () => {});
    socket.once("unexpected-response", (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once("open", () => {
      socket.close();
      reject(new Error("the handshake was accepted"));
    });
  });
}

const TOOL_PROMPT = 'Use get_weather for {"city": "Paris"}';

describe("protocol v2 over a WebSocket (Node adapter)", () => {
  it("the SDK's ThreadStream runs an agent turn with a tool call over the socket", async () => {
    const apiUrl = await listen();
    const threadId = crypto.randomUUID();
    const thread = openStream(apiUrl, threadId, "agent");
    const seen: { method: string; params: unknown }[] = [];
    thread.onEvent((event) => seen.push({ method: event.method, params: event.params }));
    // Subscribed before the thread exists: the socket keeps it until run.start creates it.
    await thread.subscribe(["tools"]);
    await thread.run.start({ input: say(TOOL_PROMPT) });
    const values = await thread.values;
    expect(texts(values)).toContain("Paris: sunny");
    const tools = seen.filter((event) => event.method === "tools");
    expect(tools.length).toBeGreaterThan(0);
    expect(JSON.stringify(tools)).toContain("get_weather");
    expect(seen.at(-1)?.method).toBe("lifecycle");
    await thread.close();
    // The v1 routes see the thread the socket's run.start created, under the client's id.
    const got = await new Client({ apiUrl }).threads.get(threadId);
    expect(got.thread_id).toBe(threadId);
  });

  it("an interrupt is shown over the socket and answered with input.respond", async () => {
    const apiUrl = await listen();
    const threadId = crypto.randomUUID();
    const asking = openStream(apiUrl, threadId, "approval");
    await asking.run.start({ input: say("write to Ada") });
    await asking.values;
    expect(asking.interrupted).toBe(true);
    const [pending] = asking.interrupts;
    expect(pending?.payload).toEqual({ question: "Send the draft?" });
    await asking.close();
    const answering = openStream(apiUrl, threadId, "approval");
    await answering.input.respond({
      namespace: [],
      interrupt_id: pending!.interruptId,
      response: "yes",
    });
    expect(texts(await answering.values)).toEqual([
      "write to Ada",
      "Draft for: write to Ada",
      "Decision: yes",
    ]);
    await answering.close();
  });

  it("subscriptions filter by channels, namespaces and depth; unsubscribe stops one", async () => {
    const apiUrl = await listen();
    const threadId = crypto.randomUUID();
    const socket = await RawSocket.open(apiUrl, threadId);
    // Before the thread exists: kept, and served once run.start has created it.
    const lifecycle = await socket.command(1, "subscription.subscribe", {
      channels: ["lifecycle"],
      namespaces: [[]],
      depth: 0,
    });
    expect(lifecycle).toMatchObject({ type: "success", id: 1 });
    const started = await socket.command(2, "run.start", {
      assistant_id: "approval",
      input: say("hi"),
    });
    expect(started).toMatchObject({ type: "success", id: 2, meta: { thread_id: threadId } });
    await socket.waitFor(rootEnd);
    expect(socket.events.length).toBeGreaterThan(1);
    for (const event of socket.events) {
      expect(event.method).toBe("lifecycle");
      expect(event.params.namespace).toEqual([]);
    }
    // Each event once, in order, though the thread did not exist when the filter was given.
    const seqs = socket.events.map((e) => e.seq);
    expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
    // A second subscription replays what it matches: "draft" prefixes, with messages.
    const before = socket.events.length;
    const draft = await socket.command(3, "subscription.subscribe", {
      channels: ["messages"],
      namespaces: [["draft"]],
    });
    const replayed = socket.events.slice(before);
    expect(replayed.length).toBeGreaterThan(0);
    expect(draft).toMatchObject({ result: { replayed_events: replayed.length } });
    expect(replayed.every((e) => e.method === "messages")).toBe(true);
    expect(replayed.every((e) => e.params.namespace[0]?.startsWith("draft:"))).toBe(true);
    // Unsubscribed: the lifecycle of the next run no longer comes.
    const id = (lifecycle.result as { subscription_id: string }).subscription_id;
    expect(await socket.command(4, "subscription.unsubscribe", { subscription_id: id })).toEqual(
      expect.objectContaining({ type: "success", id: 4 }),
    );
    expect(await socket.command(5, "subscription.unsubscribe", { subscription_id: id })).toEqual(
      expect.objectContaining({ type: "error", error: "no_such_subscription" }),
    );
    // A filter the SSE stream refuses is refused here too, naming the field.
    const bad = await socket.command(6, "subscription.subscribe", { chanels: ["values"] });
    expect(bad).toMatchObject({ type: "error", id: 6, error: "invalid_argument" });
    expect(String(bad.message)).toContain("chanels");
    socket.close();
  });

  it("a new socket replays the buffer, and only what follows `since`", async () => {
    const apiUrl = await listen();
    const threadId = crypto.randomUUID();
    const first = await RawSocket.open(apiUrl, threadId);
    await first.command(1, "run.start", { assistant_id: "approval", input: say("hi") });
    await first.command(2, "subscription.subscribe", { channels: ALL });
    await first.waitFor(rootEnd);
    const all = first.events.map((e) => e.seq);
    expect(all).toEqual(all.map((_, i) => i + 1));
    first.close();
    const second = await RawSocket.open(apiUrl, threadId);
    const since = all[4]!;
    const answer = await second.command(1, "subscription.subscribe", { channels: ALL, since });
    expect(second.events.map((e) => e.seq)).toEqual(all.slice(5));
    expect(answer).toMatchObject({ result: { replayed_events: all.length - 5 } });
    second.close();
  });

  it("the upgrade asks auth: nobody is closed with 4401; another user's thread stays hidden", async () => {
    const apiUrl = await listen({ auth: (request) => request.headers.get("x-user") });
    const threadId = crypto.randomUUID();
    const nobody = await RawSocket.open(apiUrl, threadId);
    expect(await nobody.closed).toEqual({ code: 4401, reason: expect.stringContaining("sign in") });

    const ada = openStream(apiUrl, threadId, "echo", { "x-user": "ada" });
    await ada.run.start({ input: say("ada's secret") });
    expect(texts(await ada.values)).toEqual(["ada's secret", "You said: ada's secret"]);
    await ada.close();

    const bob = await RawSocket.open(apiUrl, threadId, { "x-user": "bob" });
    const subscribed = await bob.command(1, "subscription.subscribe", { channels: ALL });
    expect(subscribed).toMatchObject({ type: "success", result: { replayed_events: 0 } });
    const state = await bob.command(2, "state.get", { namespace: [] });
    expect(state).toMatchObject({ type: "error", id: 2, error: "invalid_argument" });
    expect(String(state.message)).toContain("not found");
    // Bob's run.start under the same id makes bob's own thread: ada's words never reach him.
    await bob.command(3, "run.start", { assistant_id: "echo", input: say("bob here") });
    await bob.waitFor(rootEnd);
    const said = JSON.stringify(bob.events);
    expect(said).toContain("bob here");
    expect(said).not.toContain("ada's secret");
    bob.close();
  });

  it("the SDK reconnects a dropped socket, subscribes again, and sees each event once", async () => {
    const apiUrl = await listen();
    const threadId = crypto.randomUUID();
    const reconnected = deferred();
    const thread = openStream(apiUrl, threadId, "echo", undefined, {
      maxReconnectAttempts: 3,
      reconnectDelayMs: () => 0,
      onConnected: (event: { kind: string }) => {
        if (event.kind === "reconnected") reconnected.resolve();
      },
    });
    const ids: string[] = [];
    const ends = [deferred(), deferred()];
    let completed = 0;
    thread.onEvent((event) => {
      ids.push(String(event.event_id));
      const data = event.params.data as { event?: string };
      const root = event.method === "lifecycle" && event.params.namespace.length === 0;
      if (root && data.event === "completed") ends[completed++]?.resolve();
    });
    await thread.run.start({ input: say("first") });
    await ends[0]!.promise;
    // The connection drops (a proxy, a network change): the SDK opens a new socket.
    sockets.at(-1)!.terminate();
    await reconnected.promise;
    await thread.run.start({ input: say("second") });
    await ends[1]!.promise;
    expect(ids).toEqual([...new Set(ids)]);
    await thread.close();
    const state = await new Client({ apiUrl }).threads.getState(threadId);
    expect(texts(state.values)).toEqual(["first", "You said: first", "second", "You said: second"]);
  });

  it("pings each socket, and ends one whose client stopped answering", async () => {
    const apiUrl = await listen({}, { pingIntervalMs: 20 });
    const url = `${apiUrl.replace("http", "ws")}/threads/${crypto.randomUUID()}/stream/events`;
    const answering = track(new WsClient(url));
    const pinged = deferred();
    answering.once("ping", () => pinged.resolve());
    await pinged.promise;
    const silent = track(new WsClient(url, { autoPong: false }));
    const code = await new Promise<number>((resolve) => silent.once("close", resolve));
    expect(code).toBe(1006);
    expect(answering.readyState).toBe(WsClient.OPEN);
  });

  it("a browser page's origin must be the server's own or one `cors` allows", async () => {
    const apiUrl = await listen({ cors: { origins: ["https://chat.example.com"] } });
    const url = `${apiUrl.replace("http", "ws")}/threads/${crypto.randomUUID()}/stream/events`;
    expect(await refusedWith(url, { Origin: "https://evil.example.com" })).toBe(403);
    const allowed = await RawSocket.open(apiUrl, crypto.randomUUID(), {
      Origin: "https://chat.example.com",
    });
    allowed.close();
    const own = await RawSocket.open(apiUrl, crypto.randomUUID(), { Origin: apiUrl });
    own.close();
    // Without `cors`, only the server's own pages.
    const plain = await listen();
    const plainUrl = `${plain.replace("http", "ws")}/threads/${crypto.randomUUID()}/stream/events`;
    expect(await refusedWith(plainUrl, { Origin: "https://chat.example.com" })).toBe(403);
  });

  it("a runtime that offers no upgrade gets a 501 naming the adapters", async () => {
    const { handler } = studioServer(emulator.handle);
    const response = await handler(
      new Request(`http://agent.test/threads/${crypto.randomUUID()}/stream/events`, {
        headers: { Upgrade: "websocket", Connection: "Upgrade" },
      }),
    );
    expect(response.status).toBe(501);
    expect(await response.text()).toContain("toNodeUpgradeListener");
  });
});
