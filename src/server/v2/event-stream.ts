/**
 * `POST /threads/:id/stream/events`: the thread's protocol v2 events a filter matches, as
 * server-sent events (the buffered ones first, then the live ones), until the client closes it.
 * The filter is the protocol's `EventStreamRequest`: `channels` (required), `namespaces` (prefix
 * match), `depth` (below those prefixes), `since` (only events after that `seq`).
 */
import { isSupportedChannel } from "@langchain/langgraph/stream";
import { HttpProblem } from "../http";
import { eventStreamResponse } from "../sse";
import type { EventFilter, LoggedEvent } from "./event-log";
import type { ProtocolLog } from "./protocol-log";

const FIELDS = new Set(["channels", "namespaces", "depth", "since"]);

function invalid(message: string): HttpProblem {
  return new HttpProblem(422, "Unprocessable Entity", message);
}

function count(body: Record<string, unknown>, key: string): number | undefined {
  const value = body[key];
  if (value == null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw invalid(`${key}: must be a whole number of at least 0`);
  }
  return value;
}

/** The stream's filter, or a 422 naming the field that is wrong. */
export function parseEventFilter(body: Record<string, unknown>): EventFilter {
  for (const key of Object.keys(body)) {
    if (!FIELDS.has(key)) throw invalid(`${key}: not a field of an event stream request`);
  }
  const { channels, namespaces } = body;
  if (!Array.isArray(channels) || channels.length === 0) {
    throw invalid('channels: name at least one channel (e.g. ["values", "lifecycle"])');
  }
  for (const channel of channels) {
    if (typeof channel !== "string" || !isSupportedChannel(channel)) {
      throw invalid(`channels: ${JSON.stringify(channel)} is not a protocol channel`);
    }
  }
  if (
    namespaces != null &&
    !(
      Array.isArray(namespaces) &&
      namespaces.every((ns) => Array.isArray(ns) && ns.every((part) => typeof part === "string"))
    )
  ) {
    throw invalid("namespaces: must be a list of namespaces (lists of strings)");
  }
  return {
    channels: channels as string[],
    namespaces: (namespaces ?? undefined) as string[][] | undefined,
    depth: count(body, "depth"),
    since: count(body, "since"),
  };
}

async function* frames(events: AsyncGenerator<LoggedEvent>) {
  for await (const event of events) {
    yield { event: event.method, data: event.json, id: String(event.seq) };
  }
}

export function eventStream(log: ProtocolLog, filter: EventFilter, heartbeatMs: number): Response {
  const closed = new AbortController();
  return eventStreamResponse(frames(log.follow(filter, closed.signal)), {
    heartbeatMs,
    onCancel: () => closed.abort(),
  });
}
