/**
 * Protocol v2 over one WebSocket (`GET /threads/:id/stream/events`, upgraded): the socket carries
 * the thread's commands, answered in-band and matched by their `id` (the same `handleCommand` as
 * `POST .../commands`), and the events its subscriptions match. `subscription.subscribe` takes
 * the same filter as an SSE stream (`channels`, `namespaces`, `depth`, `since`; checked by
 * `parseEventFilter`) and replays the buffered events it matches, then the live ones follow;
 * `subscription.unsubscribe` ends one. An event is written once per socket however many of its
 * subscriptions match it (the SDK fans it out to them and drops an `event_id` seen twice).
 *
 * The socket may name a thread that does not exist yet: the SDK opens it before the `run.start`
 * that creates a client-chosen thread. Its subscriptions are then kept until the thread is found
 * (after each command, and on each subscribe), and replayed from the start of its buffer.
 */
import type { ServerContext } from "../context";
import { HttpProblem } from "../http";
import type { StoredThread } from "../thread-records";
import { toWire } from "../wire";
import { handleCommand, type ProtocolCommand, parseCommand } from "./commands";
import { type EventFilter, type LoggedEvent, matches, type ThreadEventLog } from "./event-log";
import { parseEventFilter } from "./event-stream";
import { failure, success } from "./responses";

/** What the session needs of a socket, whichever runtime accepted it. */
export interface ProtocolSocket {
  send(text: string): void;
  /** `code` 1000 or 4000 plus an HTTP status (what the SDK reads); `reason` under 123 bytes. */
  close(code: number, reason: string): void;
  /** Bytes sent but not yet written out, where the runtime tells. */
  buffered?(): number;
}

/**
 * The most a socket may hold unsent (the event log's own bound): past it the client has fallen
 * behind, and the socket is closed with 1013 ("try again later"), which the SDK answers by
 * reconnecting and subscribing again (the buffer replays, and it drops what it has seen).
 */
export const MAX_SOCKET_BUFFER = 16 * 1024 * 1024;

/** What a runtime's socket tells the session. */
export interface SocketListener {
  message(text: string): void;
  closed(): void;
}

type Json = Record<string, unknown>;

export interface SessionScope {
  ctx: ServerContext;
  owner: string;
  /** The thread id as the client named it (decoded). */
  threadId: string;
  /** The upgrade request (told to `onError` with a failure). */
  request: Request;
}

export class ProtocolSocketSession implements SocketListener {
  readonly #scope: SessionScope;
  readonly #socket: ProtocolSocket;
  readonly #subscriptions = new Map<string, EventFilter>();
  #log: ThreadEventLog | undefined;
  #unwatch: (() => void) | undefined;
  #closed = false;

  constructor(scope: SessionScope, socket: ProtocolSocket, stored: StoredThread | undefined) {
    this.#scope = scope;
    this.#socket = socket;
    if (stored) this.#bind(stored);
  }

  message(text: string): void {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      this.#send(failure(null, "invalid_argument", "a command must be JSON"));
      return;
    }
    const command = parseCommand(body);
    if (!command) {
      const message = "a command needs an integer id, a string method and object params";
      this.#send(failure(null, "invalid_argument", message));
      return;
    }
    void this.#answer(command).catch((error: unknown) => {
      this.#scope.ctx.report(error, this.#scope.request);
      this.#send(failure(command.id, "unknown_error", "internal error"));
    });
  }

  closed(): void {
    this.#closed = true;
    this.#unwatch?.();
    this.#unwatch = undefined;
    this.#subscriptions.clear();
  }

  async #answer(command: ProtocolCommand): Promise<void> {
    if (command.method === "subscription.subscribe") return this.#subscribe(command);
    if (command.method === "subscription.unsubscribe") return this.#unsubscribe(command);
    const { ctx, owner, threadId, request } = this.#scope;
    const done = ctx.events.begin(owner, threadId);
    try {
      let answer: Json;
      try {
        answer = await handleCommand(ctx, owner, threadId, command, request);
      } catch (error) {
        // Only "no such thread" leaves `handleCommand` as an HTTP problem; the socket stays.
        if (!(error instanceof HttpProblem)) throw error;
        answer = failure(command.id, "invalid_argument", error.message);
      }
      // `run.start` may have created the thread: its events are followed before it is answered.
      await this.#bindWhenFound();
      this.#send(answer);
    } finally {
      done();
    }
  }

  async #subscribe(command: ProtocolCommand): Promise<void> {
    let filter: EventFilter;
    try {
      filter = parseEventFilter(command.params);
    } catch (error) {
      if (!(error instanceof HttpProblem)) throw error;
      this.#send(failure(command.id, "invalid_argument", error.message));
      return;
    }
    const { ctx, owner, threadId } = this.#scope;
    await this.#bindWhenFound();
    // A command sent before this subscribe has been handled (as for an SSE stream).
    await ctx.events.settled(owner, threadId);
    if (this.#closed) return;
    const id = crypto.randomUUID();
    // In one turn: no live event can fall between the replay and the subscription.
    const replay = this.#log?.buffered(filter) ?? [];
    for (const event of replay) this.#write(event.json);
    this.#subscriptions.set(id, filter);
    this.#send(success(command.id, { subscription_id: id, replayed_events: replay.length }));
  }

  #unsubscribe(command: ProtocolCommand): void {
    const id = command.params.subscription_id;
    if (typeof id !== "string" || !this.#subscriptions.delete(id)) {
      const message = `subscription_id: ${JSON.stringify(id)} is not a subscription of this socket`;
      this.#send(failure(command.id, "no_such_subscription", message));
      return;
    }
    this.#send(success(command.id, {}));
  }

  async #bindWhenFound(): Promise<void> {
    if (this.#log || this.#closed) return;
    const { ctx, owner, threadId } = this.#scope;
    const stored = await ctx.threadIds.find(owner, threadId);
    if (stored && !this.#log && !this.#closed) this.#bind(stored);
  }

  /** Follows the thread's events; the subscriptions kept so far get what is buffered. */
  #bind(stored: StoredThread): void {
    const log = this.#scope.ctx.events.of(stored.view.thread_id);
    this.#log = log;
    const pending = new Map<number, LoggedEvent>();
    for (const filter of this.#subscriptions.values()) {
      for (const event of log.buffered(filter)) pending.set(event.seq, event);
    }
    for (const seq of [...pending.keys()].sort((a, b) => a - b)) {
      this.#write(pending.get(seq)!.json);
    }
    this.#unwatch = log.watch((event) => {
      for (const filter of this.#subscriptions.values()) {
        if (!matches(event, filter)) continue;
        this.#write(event.json);
        return;
      }
    });
  }

  #send(body: Json): void {
    // Serialised as `POST .../commands` answers (messages the way the SDK reads them).
    this.#write(JSON.stringify(toWire(body)));
  }

  #write(text: string): void {
    if (this.#closed) return;
    try {
      this.#socket.send(text);
      if ((this.#socket.buffered?.() ?? 0) > MAX_SOCKET_BUFFER) {
        this.#socket.close(1013, "the client fell behind the events; reconnect");
        this.closed();
      }
    } catch {
      // A socket closing under the answer: its close ends the session.
    }
  }
}
