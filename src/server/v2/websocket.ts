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
 *
 * With a coordination backend the events are read from the shared log (`protocol-log.ts`): one
 * reader per socket from the first subscription's replay on; a subscription that comes later
 * keeps the live events it matches while its own replay is read, and writes them after it.
 */
import type { ServerContext } from "../context";
import { HttpProblem } from "../http";
import type { StoredThread } from "../thread-records";
import { toWire } from "../wire";
import { handleCommand, type ProtocolCommand, parseCommand } from "./commands";
import { type EventFilter, type LoggedEvent, matches } from "./event-log";
import { parseEventFilter } from "./event-stream";
import type { ProtocolLog, Replay } from "./protocol-log";
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

/** A subscription: its filter, and the live events it waits to write while its replay is read. */
interface Subscription {
  filter: EventFilter;
  /** Its replay's last `seq`: live events after it are its own. */
  after: number;
  /** Live events it matched while its replay was read (undefined once replayed). */
  held: LoggedEvent[] | undefined;
}

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
  readonly #subscriptions = new Map<string, Subscription>();
  #log: ProtocolLog | undefined;
  #unwatch: (() => void) | undefined;
  #closed = false;

  constructor(scope: SessionScope, socket: ProtocolSocket, stored: StoredThread | undefined) {
    this.#scope = scope;
    this.#socket = socket;
    if (stored) void this.#bind(stored);
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
    const subscription: Subscription = { filter, after: 0, held: [] };
    this.#subscriptions.set(id, subscription);
    const replayed = this.#log ? await this.#replay(this.#log, [subscription]) : 0;
    if (!this.#log) subscription.held = undefined;
    this.#send(success(command.id, { subscription_id: id, replayed_events: replayed }));
  }

  /**
   * Writes what the log keeps for `subscriptions` (once for all of them, in `seq` order), then
   * the live events they matched meanwhile, each once; from then on the socket's reader writes
   * its events. Resolves with the replay's length.
   */
  async #replay(log: ProtocolLog, subscriptions: Subscription[]): Promise<number> {
    let replay: Replay;
    try {
      replay = await log.replay((event) =>
        subscriptions.some(({ filter }) => matches(event, filter)),
      );
    } catch (error) {
      this.#failed(error);
      return 0;
    }
    for (const event of replay.events) this.#write(event.json);
    const late = new Map<number, LoggedEvent>();
    for (const subscription of subscriptions) {
      subscription.after = replay.through;
      for (const event of subscription.held ?? []) {
        if (event.seq > replay.through) late.set(event.seq, event);
      }
      subscription.held = undefined;
    }
    for (const event of [...late.values()].sort((a, b) => a.seq - b.seq)) this.#write(event.json);
    this.#unwatch ??= log.watch(
      (event) => this.#live(event),
      replay.through,
      (error) => this.#failed(error),
    );
    return replay.events.length;
  }

  /** A live event: written once however many subscriptions match it; held by those replaying. */
  #live(event: LoggedEvent): void {
    let written = false;
    for (const subscription of this.#subscriptions.values()) {
      if (!matches(event, subscription.filter)) continue;
      if (subscription.held) subscription.held.push(event);
      else if (!written && event.seq > subscription.after) {
        this.#write(event.json);
        written = true;
      }
    }
  }

  /** The shared log cannot be read (Redis unreachable): the client reconnects and subscribes. */
  #failed(error: unknown): void {
    this.#scope.ctx.report(error, this.#scope.request);
    if (this.#closed) return;
    this.#socket.close(1013, "the thread's events cannot be read now; reconnect");
    this.closed();
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
    if (stored && !this.#log && !this.#closed) await this.#bind(stored);
  }

  /**
   * Follows the thread's events; the subscriptions kept so far get what is kept, once for all
   * of them, in `seq` order.
   */
  async #bind(stored: StoredThread): Promise<void> {
    const log = this.#scope.ctx.events.log(stored.view.thread_id);
    this.#log = log;
    const kept = [...this.#subscriptions.values()];
    if (kept.length === 0) return;
    for (const subscription of kept) subscription.held = [];
    await this.#replay(log, kept);
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
