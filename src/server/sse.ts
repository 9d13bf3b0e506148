/**
 * Server-sent-events responses: every event stream the handler sends goes through `sseResponse`,
 * which adds the heartbeats. A proxy or load balancer closes a connection it sees idle (nginx and
 * AWS's load balancers after 60 s, Heroku after 55 s), and a run's stream is idle for as long as
 * a model thinks or a tool runs: the browser's read then fails and a run with `on_disconnect:
 * "cancel"` is cancelled. A heartbeat is an SSE comment (`: heartbeat`), which every SSE reader
 * skips; the SDK's idle reconnect (`streamIdleReconnect: "auto"`) arms once it has seen two, and
 * then reconnects a stream whose heartbeats stop (a half-open socket).
 *
 * A run's events (`runEventsResponse`) go on without the response: a reader that goes away only
 * calls `onDisconnect` (which cancels the run, or not, as the request's `on_disconnect` says).
 */
import { sseFrame } from "./http";
import type { RunEvent } from "./runs";
import { unrefTimer } from "./timers";

/**
 * The interval between heartbeats unless told otherwise: 5 s, the LangGraph Platform's cadence,
 * from which the SDK's idle reconnect sizes its window (3 intervals, at least 6 s: 15 s), and well
 * inside the 55 to 100 s after which common proxies close an idle connection.
 */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 5_000;

/** The heartbeat comment: its `:` is what readers (and the SDK's idle clock) recognise. */
export const HEARTBEAT = ": heartbeat\n\n";

/** The timer heartbeats use: `setInterval` by default; a test may give its own. */
export interface HeartbeatTimer {
  every(ms: number, tick: () => void): () => void;
}

export const intervalTimer: HeartbeatTimer = {
  every(ms, tick) {
    const handle = setInterval(tick, ms);
    // An open stream's heartbeat alone must not keep a process alive that is otherwise done.
    unrefTimer(handle);
    return () => clearInterval(handle);
  },
};

export interface SseOptions {
  /** Milliseconds between heartbeats while nothing else is written; 0: none. */
  heartbeatMs: number;
  timer?: HeartbeatTimer | undefined;
  headers?: Record<string, string> | undefined;
  /** The reader went away before the end. */
  onCancel?: (() => void) | undefined;
}

/**
 * `frames` (each a complete SSE frame's text) as a `text/event-stream` response, with a heartbeat
 * whenever `heartbeatMs` passed with nothing written. A heartbeat is skipped while the reader has
 * not taken what is queued (it is alive to the proxy then, and a stalled reader is not fed more).
 */
export function sseResponse(frames: AsyncIterator<string>, options: SseOptions): Response {
  const encoder = new TextEncoder();
  const heartbeat = encoder.encode(HEARTBEAT);
  let wrote = false;
  let stop = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (options.heartbeatMs <= 0) return;
      stop = (options.timer ?? intervalTimer).every(options.heartbeatMs, () => {
        if (wrote) {
          wrote = false;
          return;
        }
        if ((controller.desiredSize ?? 0) <= 0) return;
        controller.enqueue(heartbeat);
      });
    },
    async pull(controller) {
      const next = await frames.next();
      if (next.done) {
        stop();
        controller.close();
        return;
      }
      wrote = true;
      controller.enqueue(encoder.encode(next.value));
    },
    cancel() {
      stop();
      options.onCancel?.();
      void frames.return?.(undefined);
    },
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-cache",
      ...options.headers,
    },
  });
}

/** What a reader of a run's events asks for beyond the run's own events. */
export interface RunEventsOptions {
  /** Resume after this event id (`Last-Event-ID`); all of the run's events without one. */
  lastEventId?: string | undefined;
  /** Only these events (the control events `metadata`, `error`, `end` always pass). */
  keep?: ((event: RunEvent) => boolean) | undefined;
  onDisconnect?: (() => void) | undefined;
  heartbeatMs: number;
  timer?: HeartbeatTimer | undefined;
}

/** Each event as its SSE frame, but those `keep` refuses. */
async function* eventFrames<E extends StreamEvent>(
  events: AsyncGenerator<E>,
  keep: ((event: E) => boolean) | undefined,
): AsyncGenerator<string> {
  try {
    for await (const event of events) {
      if (keep && !keep(event)) continue;
      yield sseFrame(event.event, event.data, event.id);
    }
  } finally {
    await events.return(undefined);
  }
}

export function runEventsResponse(
  events: AsyncGenerator<RunEvent>,
  location: string,
  options: RunEventsOptions,
): Response {
  return sseResponse(eventFrames(events, options.keep), {
    heartbeatMs: options.heartbeatMs,
    timer: options.timer,
    headers: { "Content-Location": location },
    onCancel: options.onDisconnect,
  });
}

/** One event of a stream: its name, its JSON text, its id. */
export interface StreamEvent {
  event: string;
  data: string;
  id?: string | undefined;
}

/** `events` (protocol v2's event streams) as a `text/event-stream` response, with heartbeats. */
export function eventStreamResponse(
  events: AsyncGenerator<StreamEvent>,
  options: SseOptions,
): Response {
  return sseResponse(eventFrames(events, undefined), options);
}
