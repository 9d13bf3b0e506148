/**
 * A run's events as a server-sent-events response. The run goes on without the response: a
 * reader that goes away only calls `onDisconnect` (which cancels the run, or not, as the
 * request's `on_disconnect` says).
 */
import { sseFrame } from "./http";
import type { RunRecord } from "./runs";

export function runEventsResponse(
  run: RunRecord,
  location: string,
  lastEventId: string | undefined,
  onDisconnect?: () => void,
): Response {
  return eventStreamResponse(run.follow(lastEventId), onDisconnect, {
    "Content-Location": location,
  });
}

/** One event of a stream: its name, its JSON text, its id. */
export interface StreamEvent {
  event: string;
  data: string;
  id?: string | undefined;
}

/**
 * `events` as a server-sent-events response: one frame per event, read as the client reads (no
 * buffering ahead of a slow reader); a reader that goes away calls `onDisconnect`.
 */
export function eventStreamResponse(
  events: AsyncGenerator<StreamEvent>,
  onDisconnect?: () => void,
  headers: Record<string, string> = {},
): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await events.next();
      if (next.done) controller.close();
      else
        controller.enqueue(
          encoder.encode(sseFrame(next.value.event, next.value.data, next.value.id)),
        );
    },
    cancel() {
      onDisconnect?.();
      void events.return(undefined);
    },
  });
  return new Response(body, {
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", ...headers },
  });
}
