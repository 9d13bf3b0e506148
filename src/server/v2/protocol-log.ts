/**
 * What the routes, the commands, the WebSocket and a v2 run use of a thread's protocol v2 events,
 * wherever they are kept: in this process (`ThreadEventLog`, the default) or, with a
 * coordination backend, shared by every instance (`redis/v2-events.ts`), so a stream opened on
 * any instance reads the events of a run that runs on another.
 *
 * Numbering: only the instance running the thread's head run appends (it holds the thread's
 * lease), so it numbers locally from the thread's last `seq`, read once when the run starts
 * (`open`): a run taken over, or the thread's next run on another instance, goes on from there.
 */
import type { MatchableEvent } from "@langchain/langgraph/stream";
import type { AgentTreeNode } from "@langchain/protocol";
import type { DraftEvent } from "./protocol-events";

/** One event as the wire has it, and its JSON text. */
export interface LoggedEvent extends MatchableEvent {
  readonly seq: number;
  readonly method: string;
  readonly params: { namespace: string[]; data?: unknown };
  /** The whole event as JSON (what a stream writes). */
  readonly json: string;
}

/** A stream's filter, as `POST .../stream/events` sends it. */
export interface EventFilter {
  channels: string[];
  namespaces?: string[][] | undefined;
  depth?: number | undefined;
  since?: number | undefined;
}

export interface Replay {
  events: LoggedEvent[];
  through: number;
}

export interface ProtocolLog {
  /** Runs of the thread admitted by this process that have not ended. */
  live: number;
  /** True when no run of the thread is live (with a backend: on any instance). */
  quiet(): Promise<boolean>;
  /** Before a run executed here appends its first event: numbering goes on from the last. */
  open(): Promise<void>;
  /** Numbers and keeps one event of a run executed here. */
  append(draft: DraftEvent): void;
  /** Resolves once every event appended here so far is kept (before the run's end is told). */
  flushed(): Promise<void>;
  /** Leaves the events so far out of every later replay (numbering goes on). */
  clear(): Promise<void>;
  /**
   * The kept events `match` takes (e.g. a filter's, after its `since`), and the `seq` they were
   * read through: a `watch` from there misses none and repeats none.
   */
  replay(match: (event: LoggedEvent) => boolean): Promise<Replay>;
  /** The events `filter` matches: the kept ones, then the live ones, until `signal` aborts. */
  follow(filter: EventFilter, signal: AbortSignal): AsyncGenerator<LoggedEvent>;
  /**
   * Hands `listener` every event after `seq` `after` in order (this process's log: every one
   * appended from now on, which is the same when `after` came from `replay`), until the returned
   * function is called; `failed` is told when the events can no longer be read.
   */
  watch(
    listener: (event: LoggedEvent) => void,
    after: number,
    failed?: (error: unknown) => void,
  ): () => void;
  /** The `seq` of the thread's last event (a command's `applied_through_seq`). */
  lastSeqNow(): Promise<number>;
  /** The agent tree of the thread's current run (`agent.getTree`). */
  tree(): Promise<AgentTreeNode>;
}

/** A thread's shared log, given the process's own log of the thread (its `live` count). */
export interface SharedProtocolLogs {
  thread(threadId: string, local: { live: number; idle: boolean }): ProtocolLog;
  /**
   * Notes, for every instance, a command on the owner's thread (its id as the client named it)
   * being handled here, until the returned function is called (`EventLogs#begin`).
   */
  commandBegan(owner: string, threadId: string): () => void;
  /** Resolves once no instance handles a command on the thread (waiting a bounded time). */
  commandsSettled(owner: string, threadId: string): Promise<void>;
}
