/**
 * A thread's protocol v2 events in this process: numbered (`seq`, continuing across the thread's
 * runs), kept in a bounded buffer, and handed to every open stream whose filter matches. A stream
 * opened later gets the buffered events its filter matches (after `since` when it gives one),
 * then the live ones, in `seq` order with none twice.
 *
 * Bounds: a thread keeps its newest `MAX_EVENTS` events and at most `MAX_BYTES` of their JSON;
 * older ones are dropped (a stream asking `since` an older `seq` gets what is left). The logs of
 * at most `MAX_IDLE_THREADS` threads with no run and no open stream are kept, least recently
 * used dropped first; a thread with a run or a stream is never dropped.
 */
import { matchesSubscription } from "@langchain/langgraph/stream";
import type { AgentTreeNode, Channel, SubscribeParams } from "@langchain/protocol";
import { wireReplacer } from "../wire";
import { AgentTree } from "./agent-tree";
import type { DraftEvent } from "./protocol-events";
import type {
  EventFilter,
  LoggedEvent,
  ProtocolLog,
  Replay,
  SharedProtocolLogs,
} from "./protocol-log";

export type { EventFilter, LoggedEvent } from "./protocol-log";

export const MAX_EVENTS = 10_000;
export const MAX_BYTES = 16 * 1024 * 1024;
export const MAX_IDLE_THREADS = 200;

export function matches(event: LoggedEvent, filter: EventFilter): boolean {
  return matchesSubscription(event, subscriptionOf(filter));
}

function subscriptionOf(filter: EventFilter): SubscribeParams {
  return { ...filter, channels: filter.channels as Channel[] } as SubscribeParams;
}

/** The event numbered `seq` as the wire has it (its JSON made once, for every stream). */
export function loggedEvent(seq: number, draft: DraftEvent): LoggedEvent {
  const params = {
    namespace: draft.namespace,
    timestamp: Date.now(),
    ...(draft.node !== undefined ? { node: draft.node } : {}),
    data: draft.data,
  };
  const body = { type: "event", event_id: String(seq), seq, method: draft.method, params };
  // Filters read the method, the namespace and a custom event's name, which are the same before
  // and after the wire form.
  const json = JSON.stringify(body, wireReplacer);
  return { seq, method: draft.method, params, json };
}

/** An event read back from its JSON (kept elsewhere: `redis/v2-events.ts`). */
export function parseLoggedEvent(json: string): LoggedEvent {
  const body = JSON.parse(json) as Omit<LoggedEvent, "json">;
  return { seq: body.seq, method: body.method, params: body.params, json };
}

type Listener = (event: LoggedEvent) => void;

export class ThreadEventLog implements ProtocolLog {
  #seq = 0;
  #events: LoggedEvent[] = [];
  #bytes = 0;
  readonly #listeners = new Set<Listener>();
  /** Runs on the thread that have not ended (the log is then never dropped). */
  live = 0;
  /** The current run's agents (`agent.getTree`). */
  readonly agents = new AgentTree();

  get lastSeq(): number {
    return this.#seq;
  }

  get idle(): boolean {
    return this.live === 0 && this.#listeners.size === 0;
  }

  async quiet(): Promise<boolean> {
    return this.live === 0;
  }

  /** Numbering is this process's: nothing to read first. */
  async open(): Promise<void> {}

  async flushed(): Promise<void> {}

  async replay(match: (event: LoggedEvent) => boolean): Promise<Replay> {
    return { events: this.#events.filter(match), through: this.#seq };
  }

  async lastSeqNow(): Promise<number> {
    return this.#seq;
  }

  async tree(): Promise<AgentTreeNode> {
    return this.agents.tree();
  }

  append(draft: DraftEvent): LoggedEvent {
    const event = loggedEvent(++this.#seq, draft);
    this.agents.note(event.method, event.params.namespace, event.params.data);
    this.#events.push(event);
    this.#bytes += event.json.length;
    while (this.#events.length > MAX_EVENTS || (this.#bytes > MAX_BYTES && this.#events.length)) {
      this.#bytes -= this.#events.shift()?.json.length ?? 0;
    }
    for (const listener of this.#listeners) listener(event);
    return event;
  }

  /**
   * Drops the buffered events (kept numbering): a resumed run's stream must not replay the
   * paused run's end (`lifecycle` "interrupted") to a stream opened after the resume.
   */
  async clear(): Promise<void> {
    this.#events = [];
    this.#bytes = 0;
  }

  /**
   * Hands `listener` the buffered events after `after` (when given), then every event appended
   * from now on, until the returned function is called (a WebSocket's one listener for all its
   * subscriptions, `websocket.ts`).
   */
  watch(listener: (event: LoggedEvent) => void, after?: number): () => void {
    if (after !== undefined) {
      for (const event of this.#events) if (event.seq > after) listener(event);
    }
    const own: Listener = (event) => listener(event);
    this.#listeners.add(own);
    return () => {
      this.#listeners.delete(own);
    };
  }

  /**
   * The events `filter` matches: the buffered ones, then the live ones as they come, until
   * `signal` aborts. Events are taken synchronously on subscription, so none falls between
   * the replay and the live ones.
   */
  async *follow(filter: EventFilter, signal: AbortSignal): AsyncGenerator<LoggedEvent> {
    // Made once per stream, not once per event.
    const definition = subscriptionOf(filter);
    const queue = this.#events.filter((event) => matchesSubscription(event, definition));
    let wake: (() => void) | undefined;
    const listener: Listener = (event) => {
      if (!matchesSubscription(event, definition)) return;
      queue.push(event);
      wake?.();
    };
    const stop = () => wake?.();
    this.#listeners.add(listener);
    signal.addEventListener("abort", stop);
    try {
      while (!signal.aborted) {
        const next = queue.shift();
        if (next) {
          yield next;
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    } finally {
      this.#listeners.delete(listener);
      signal.removeEventListener("abort", stop);
    }
  }
}

/**
 * Every thread's log in this process, keyed by the service thread id; with a coordination
 * backend (`shared`), each thread's log is the shared one, and this process keeps only its count
 * of the thread's live runs.
 */
export class EventLogs {
  readonly #logs = new Map<string, ThreadEventLog>();
  readonly #shared: SharedProtocolLogs | undefined;

  constructor(shared?: SharedProtocolLogs) {
    this.#shared = shared;
  }
  /** Commands being handled, by owner and thread id as the client named it. */
  readonly #commands = new Map<string, Set<Promise<void>>>();

  /**
   * Notes a command being handled until `done` is called. A stream opened meanwhile on the same
   * thread waits for it (`settled`) before replaying: the SDK opens a stream for an
   * `input.respond` without waiting for the command's answer, and the answer's run drops the
   * paused run's events, which the stream must not replay. The SDK sends the command first, and
   * the route notes it before any await, so the order holds however fast the stream's own
   * look-up is.
   */
  begin(owner: string, threadId: string): () => void {
    const key = `${owner}\u0000${threadId}`;
    let finish!: () => void;
    const pending = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const set = this.#commands.get(key) ?? new Set();
    set.add(pending);
    this.#commands.set(key, set);
    // With a backend, a stream opened on another instance waits for it too.
    const shared = this.#shared?.commandBegan(owner, threadId);
    return () => {
      set.delete(pending);
      if (set.size === 0) this.#commands.delete(key);
      shared?.();
      finish();
    };
  }

  /** Resolves when the commands on the thread being handled now have been answered. */
  async settled(owner: string, threadId: string): Promise<void> {
    await Promise.all([...(this.#commands.get(`${owner}\u0000${threadId}`) ?? [])]);
    await this.#shared?.commandsSettled(owner, threadId);
  }

  /** The thread's log as every route uses it: the shared one with a backend, else `of`'s. */
  log(threadId: string): ProtocolLog {
    const local = this.of(threadId);
    return this.#shared ? this.#shared.thread(threadId, local) : local;
  }

  /**
   * The thread's log in this process, created on first use (and marked recently used); with a
   * backend it keeps only the count of the thread's live runs.
   */
  of(threadId: string): ThreadEventLog {
    const known = this.#logs.get(threadId);
    const log = known ?? new ThreadEventLog();
    this.#logs.delete(threadId);
    this.#logs.set(threadId, log);
    // Only a new log can take the idle ones past their bound (counting them on every use was a
    // twentieth of a v2 run's CPU).
    if (!known) this.#trim();
    return log;
  }

  drop(threadId: string): void {
    this.#logs.delete(threadId);
  }

  #trim(): void {
    if (this.#logs.size <= MAX_IDLE_THREADS) return;
    let idle = 0;
    for (const log of this.#logs.values()) if (log.idle) idle++;
    for (const [id, log] of this.#logs) {
      if (idle <= MAX_IDLE_THREADS) break;
      if (!log.idle) continue;
      this.#logs.delete(id);
      idle--;
    }
  }
}
