/**
 * Protocol v2 at the wire, for the tests that compare servers: commands sent as JSON, event
 * streams read frame by frame, and the events made comparable (ids, times and task ids left
 * out). Written against the routes only, so the same script runs against both servers.
 */
import type { Handler } from "./harness";
import { VARYING } from "./scripts";

export interface WireEvent {
  seq: number;
  method: string;
  params: { namespace: string[]; data: Record<string, unknown>; node?: string };
}

export async function command(
  handler: Handler,
  threadId: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const response = await handler(
    new Request(`http://agent.test/threads/${threadId}/commands`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify(body),
    }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The events a `POST .../stream/events` sends until `until` says stop. */
export async function readEvents(
  handler: Handler,
  threadId: string,
  filter: Record<string, unknown>,
  until: (event: WireEvent) => boolean,
  headers: Record<string, string> = {},
): Promise<WireEvent[]> {
  const response = await handler(
    new Request(`http://agent.test/threads/${threadId}/stream/events`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify(filter),
    }),
  );
  if (response.status !== 200) {
    throw new Error(`stream/events answered ${response.status}: ${await response.text()}`);
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: WireEvent[] = [];
  let text = "";
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return events;
      text += value;
      let end = text.indexOf("\n\n");
      while (end !== -1) {
        const frame = text.slice(0, end);
        text = text.slice(end + 2);
        const data = frame.split("\n").find((line) => line.startsWith("data: "));
        if (data) {
          const event = JSON.parse(data.slice(6)) as WireEvent;
          events.push(event);
          if (until(event)) return events;
        }
        end = text.indexOf("\n\n");
      }
    }
  } finally {
    await reader.cancel();
  }
}

export const ALL_CHANNELS = [
  "values",
  "updates",
  "messages",
  "tools",
  "lifecycle",
  "input",
  "custom",
  "tasks",
  "checkpoints",
];

/** True for the root's last lifecycle event of a run. */
export function rootEnd(event: WireEvent): boolean {
  return (
    event.method === "lifecycle" &&
    event.params.namespace.length === 0 &&
    ["completed", "interrupted", "failed"].includes(String(event.params.data.event))
  );
}

/**
 * A value with its ids and times left out (not only their values: the reference serialises a
 * message after LangGraph's reducer has given it an id, and this server before).
 */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined || VARYING.test(key) || SERVER_LABELS.test(key)) continue;
    out[key] = withoutIds(item);
  }
  return out;
}

/** Labels servers put in run metadata about themselves (LangSmith's `ls_integration` too). */
const SERVER_LABELS = /^(langgraph_(host|plan|version|api_url)|ls_integration)$/;

/** Events as two servers must agree on them: ids, times and task ids left out. */
export function comparableEvents(events: readonly WireEvent[]) {
  return events.map((event) => ({
    method: event.method,
    namespace: event.params.namespace.map((part) => part.replace(/:[0-9a-f-]{36}$/, ":<task>")),
    ...(event.params.node !== undefined ? { node: event.params.node } : {}),
    data: withoutIds(event.params.data),
  }));
}
