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
  const encoder = new TextEncoder();
  const events = run.follow(lastEventId);
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
    headers: {
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-cache",
      "Content-Location": location,
    },
  });
}
