/**
 * A thread's protocol v2 events shared through Redis (`v2/protocol-log.ts` says what for): one
 * stream per thread (`keys.ts`, `v2:<thread id>`), entry id `0-<seq>`, each entry the event's
 * wire JSON with its format. The instance running the thread's head run is its only writer (it
 * holds the thread's lease, and each append checks it, as a v1 run's events do); readers on any
 * instance, that one too, read the stream after their `since` and then block for more, on a
 * connection of their own. `clear` trims the stream to nothing (its last id stays, so numbering
 * goes on). Bounds: about `maxEvents` entries per thread, and the stream expires `ttlSeconds`
 * after its last event.
 */
import type { AgentTreeNode } from "@langchain/protocol";
import { HttpProblem } from "../http";
import { delay, withinTime } from "../timers";
import { AgentTree } from "../v2/agent-tree";
import { type EventFilter, type LoggedEvent, loggedEvent, matches } from "../v2/event-log";
import type { DraftEvent } from "../v2/protocol-events";
import type { ProtocolLog, Replay, SharedProtocolLogs } from "../v2/protocol-log";
import { type RedisClientLike, readAfter, Scripts } from "./connection";
import type { RedisKeys } from "./keys";
import { entriesOf, streamsOf, V2_APPEND, V2_CLEAR, V2_EVENT_FORMAT, V2_TOP } from "./v2-stored";

export interface RedisV2EventsSettings {
  /** The command connection's client (readers are copies of it). */
  client: () => Promise<RedisClientLike>;
  keys: RedisKeys;
  maxEvents: number;
  ttlSeconds: number;
  /** The lease value of the run this instance runs on the thread, if it runs one. */
  leaseOf(threadId: string): string | undefined;
  /** True when the thread has a live run on some instance. */
  busy(threadId: string): Promise<boolean>;
  /** Told of an event that could not be stored. */
  report(error: unknown): void;
}

/** How long a blocking read waits before it looks again (the client closed meanwhile?). */
const BLOCK_MS = 2_000;
/**
 * How long a command counts as being handled at most (an instance that died while handling one
 * leaves its count behind), and how long a stream waits for the commands under way.
 */
const COMMAND_MS = 10_000;
const SETTLE_WAIT_MS = 5_000;
/** Between two looks at the commands under way while a stream waits for them. */
const SETTLE_POLL_MS = 20;
/** How long a request waits for Redis before it is a 503 (node-redis queues while it is down). */
const ANSWER_TIMEOUT_MS = 3_000;

export class RedisV2Events implements SharedProtocolLogs {
  readonly #settings: RedisV2EventsSettings;
  #scripts: Promise<Scripts> | undefined;
  /** The readers open now (`close` ends them: their clients reconnect to another instance). */
  readonly readers = new Set<RedisClientLike>();

  constructor(settings: RedisV2EventsSettings) {
    this.#settings = settings;
  }

  thread(threadId: string, local: { live: number }): ProtocolLog {
    return new RedisThreadLog(this, threadId, local);
  }

  get settings(): RedisV2EventsSettings {
    return this.#settings;
  }

  scripts(): Promise<Scripts> {
    this.#scripts ??= this.#settings.client().then((client) => new Scripts(client));
    // A failed connection is tried again by the next call.
    this.#scripts.catch(() => {
      this.#scripts = undefined;
    });
    return this.#scripts;
  }

  async send<T>(args: readonly string[]): Promise<T> {
    return (await this.#settings.client()).sendCommand<T>(args);
  }

  /** `call`'s answer for a request: a 503 when Redis does not give it in time. */
  async answer<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await withinTime(call(), ANSWER_TIMEOUT_MS, "a Redis answer");
    } catch (error) {
      this.#settings.report(error);
      throw new HttpProblem(
        503,
        "Service Unavailable",
        "The server's run coordinator is unreachable: the thread's events cannot be read right " +
          "now; try again in a moment",
      );
    }
  }

  commandBegan(owner: string, threadId: string): () => void {
    const key = this.#settings.keys.v2Commands(owner, threadId);
    const report = (error: unknown) => this.#settings.report(error);
    // Sent at once, on the connection the streams' look goes through after it (in order).
    void this.send(["INCR", key]).catch(report);
    void this.send(["PEXPIRE", key, String(COMMAND_MS)]).catch(report);
    return () => {
      void this.send(["DECR", key]).catch(report);
    };
  }

  async commandsSettled(owner: string, threadId: string): Promise<void> {
    const key = this.#settings.keys.v2Commands(owner, threadId);
    const until = Date.now() + SETTLE_WAIT_MS;
    const count = () =>
      withinTime(this.send<string | null>(["GET", key]), ANSWER_TIMEOUT_MS, "a Redis answer")
        // Unreadable: the stream is not held back for it.
        .catch(() => null);
    while (Number((await count()) ?? 0) > 0) {
      // Commands answer once their run is admitted: a short wait, looked at again often.
      if (Date.now() >= until) return;
      await delay(SETTLE_POLL_MS);
    }
  }

  close(): void {
    for (const reader of this.readers) reader.destroy();
    this.readers.clear();
  }
}

class RedisThreadLog implements ProtocolLog {
  readonly #events: RedisV2Events;
  readonly #threadId: string;
  readonly #local: { live: number };
  readonly #key: string;
  /** The last `seq` numbered here (set by `open`). */
  #seq = 0;
  #appended: Promise<unknown> = Promise.resolve();

  constructor(events: RedisV2Events, threadId: string, local: { live: number }) {
    this.#events = events;
    this.#threadId = threadId;
    this.#local = local;
    this.#key = events.settings.keys.v2Events(threadId);
  }

  get live(): number {
    return this.#local.live;
  }

  set live(count: number) {
    this.#local.live = count;
  }

  async quiet(): Promise<boolean> {
    return this.#local.live === 0 && !(await this.#events.settings.busy(this.#threadId));
  }

  async open(): Promise<void> {
    // The append script loaded first: pipelined appends that all missed it (a Redis that
    // restarted) would be sent again one by one, and a later one could land before an earlier.
    const [, last] = await Promise.all([
      this.#events.send(["SCRIPT", "LOAD", V2_APPEND]),
      this.lastSeqNow(),
    ]);
    this.#seq = last;
  }

  append(draft: DraftEvent): void {
    const { settings } = this.#events;
    const held = settings.leaseOf(this.#threadId);
    // No lease here: the run lost its thread to another instance (which numbers on from what is
    // stored), and is being stopped; what it sends now is not the thread's.
    if (held === undefined) return;
    const event = loggedEvent(++this.#seq, draft);
    const lease = settings.keys.lease(this.#threadId);
    // Sent at once and in order on one connection (node-redis pipelines what is not awaited).
    this.#appended = this.#events
      .scripts()
      .then((scripts) =>
        scripts.run(
          V2_APPEND,
          [lease, this.#key],
          [
            held,
            String(event.seq),
            event.json,
            String(settings.maxEvents),
            String(settings.ttlSeconds),
            String(V2_EVENT_FORMAT),
          ],
        ),
      )
      .catch((error: unknown) => settings.report(error));
  }

  flushed(): Promise<void> {
    return this.#appended.then(() => {});
  }

  async clear(): Promise<void> {
    await this.#events.answer(async () =>
      (await this.#events.scripts()).run(V2_CLEAR, [this.#key], []),
    );
  }

  async replay(match: (event: LoggedEvent) => boolean): Promise<Replay> {
    const reply = await this.#events.answer(() =>
      this.#events.send<unknown>(["XRANGE", this.#key, "-", "+"]),
    );
    const events: LoggedEvent[] = [];
    let through = 0;
    for (const entry of entriesOf(reply)) {
      through = entry.seq;
      if (match(entry)) events.push(entry);
    }
    return { events, through };
  }

  /** As `ProtocolLog#follow`; `every`: each event, whatever the filter's channels. */
  async *follow(
    filter: EventFilter,
    signal: AbortSignal,
    every = false,
  ): AsyncGenerator<LoggedEvent> {
    const reader = (await this.#events.settings.client()).duplicate({ RESP: 2 });
    reader.on("error", () => {});
    this.#events.readers.add(reader);
    // A blocked read ends when its connection does: the client's close ends the stream at once.
    const stop = () => reader.destroy();
    signal.addEventListener("abort", stop, { once: true });
    let from = `0-${filter.since ?? 0}`;
    try {
      if (signal.aborted) return;
      try {
        await reader.connect();
      } catch (error) {
        if (signal.aborted) return;
        throw error;
      }
      while (!signal.aborted) {
        let reply: unknown;
        try {
          reply = await readAfter(reader, this.#key, from, BLOCK_MS);
        } catch (error) {
          // Closed by the client: the end. Redis unreachable: the stream breaks, and the client
          // reconnects with `since` (to this instance or another) once it is back.
          if (signal.aborted) return;
          throw error;
        }
        for (const [, entries] of streamsOf(reply)) {
          for (const entry of entriesOf(entries)) {
            from = `0-${entry.seq}`;
            if (every || matches(entry, filter)) yield entry;
          }
        }
      }
    } finally {
      signal.removeEventListener("abort", stop);
      this.#events.readers.delete(reader);
      reader.destroy();
    }
  }

  watch(
    listener: (event: LoggedEvent) => void,
    after: number,
    failed?: (error: unknown) => void,
  ): () => void {
    const stop = new AbortController();
    void (async () => {
      for await (const event of this.follow({ channels: [], since: after }, stop.signal, true)) {
        listener(event);
      }
    })().catch((error: unknown) => {
      if (!stop.signal.aborted) failed?.(error);
    });
    return () => stop.abort();
  }

  async lastSeqNow(): Promise<number> {
    return Number(
      await this.#events.answer(async () =>
        (await this.#events.scripts()).run<number>(V2_TOP, [this.#key], []),
      ),
    );
  }

  async tree(): Promise<AgentTreeNode> {
    const reply = await this.#events.answer(() =>
      this.#events.send<unknown>(["XRANGE", this.#key, "-", "+"]),
    );
    const tree = new AgentTree();
    for (const event of entriesOf(reply)) {
      tree.note(event.method, event.params.namespace, event.params.data);
    }
    return tree.tree();
  }
}
