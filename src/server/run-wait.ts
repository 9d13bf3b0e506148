/**
 * A run's final values as one JSON response, sent when the run ends (`/runs/wait`, `.../join`):
 * the last `values` the run sent, `{ "__error__": { error, message, code } }` when it failed (the
 * SDK's `wait` throws it), or the thread's state when the run sent no values (a join of a run
 * streamed without them). The status is sent at once (200), so a failure is in the body, as the
 * Agent Server answers. Until then a newline goes out every heartbeat interval (JSON allows the
 * white space before the value), so a proxy does not close a wait idle while the model thinks.
 */

import type { RunHandle } from "./coordination";
import type { HeartbeatTimer } from "./sse";
import { intervalTimer } from "./sse";
import { wireJson } from "./wire";

export interface WaitOptions {
  location: string;
  heartbeatMs: number;
  timer?: HeartbeatTimer | undefined;
  /** The thread's values when the run sent none (undefined: none to read, `null`). */
  stateValues?: (() => Promise<unknown>) | undefined;
  /**
   * The run once it has ended wherever it ran (`RunDirectory#settled`: a run handed off from
   * here ends on another instance); default: `run` itself.
   */
  settled?: ((run: RunHandle) => Promise<RunHandle>) | undefined;
  /** The reader went away before the answer. */
  onDisconnect?: (() => void) | undefined;
  /** Told why the thread's state could not be read (the body then names no cause). */
  report(error: unknown): void;
}

const UNREADABLE =
  '{"__error__":{"error":"RunError","message":"The run ended but its thread\'s state could not ' +
  'be read. Read the thread\'s state again.","code":"state_unreadable"}}';

/** The JSON text of what a wait for `run` answers, once it has ended. */
export async function finalValues(
  run: RunHandle,
  stateValues?: () => Promise<unknown>,
): Promise<string> {
  await run.done;
  if (run.errorData !== undefined) return `{"__error__":${run.errorData}}`;
  if (run.lastValues !== undefined) return run.lastValues;
  return stateValues ? wireJson(await stateValues()) : "null";
}

export function waitResponse(run: RunHandle, options: WaitOptions): Response {
  const encoder = new TextEncoder();
  let stop = () => {};
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (options.heartbeatMs > 0) {
        const newline = encoder.encode("\n");
        stop = (options.timer ?? intervalTimer).every(options.heartbeatMs, () => {
          if ((controller.desiredSize ?? 0) > 0) controller.enqueue(newline);
        });
      }
      const settled = options.settled?.(run) ?? Promise.resolve(run);
      void settled
        .then((ended) => finalValues(ended, options.stateValues))
        .catch((error: unknown) => {
          options.report(error);
          return UNREADABLE;
        })
        .then((text) => {
          stop();
          if (cancelled) return;
          controller.enqueue(encoder.encode(text));
          controller.close();
        });
    },
    cancel() {
      cancelled = true;
      stop();
      options.onDisconnect?.();
    },
  });
  return new Response(body, {
    headers: { "Content-Type": "application/json", "Content-Location": options.location },
  });
}
