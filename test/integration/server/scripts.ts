/**
 * Scripts a chat UI would run, written against the SDK's `Client` only, so the same script runs
 * against this package's server and against `@langchain/langgraph-api`'s embed server. Each
 * returns the events it saw, for the comparison.
 */
import type { Client } from "@langchain/langgraph-sdk";

export interface SeenEvent {
  event: string;
  data: unknown;
}

export async function collect(
  stream: AsyncIterable<{ event: string; data: unknown }>,
): Promise<SeenEvent[]> {
  const seen: SeenEvent[] = [];
  for await (const part of stream) seen.push({ event: part.event, data: part.data });
  return seen;
}

/** A user message in the SDK's input shape. */
/** The text of each message in a state's `values`, as the page shows it. */
export function texts(values: unknown): string[] {
  const messages = (values as { messages?: { content: unknown }[] }).messages ?? [];
  return messages.map((m) =>
    typeof m.content === "string" ? m.content : JSON.stringify(m.content),
  );
}

export function say(text: string) {
  return { messages: [{ type: "human", content: text }] };
}

export async function agentTurn(client: Client, threadId: string, text: string, graph = "agent") {
  return collect(
    client.runs.stream(threadId, graph, {
      input: say(text),
      streamMode: ["values", "messages-tuple", "updates"],
    }),
  );
}

export async function approvalUntilInterrupt(client: Client, threadId: string) {
  return collect(
    client.runs.stream(threadId, "approval", {
      input: say("write to Ada"),
      streamMode: ["values", "updates", "custom"],
    }),
  );
}

export async function approvalResume(client: Client, threadId: string) {
  return collect(
    client.runs.stream(threadId, "approval", {
      command: { resume: "yes" },
      streamMode: ["values", "updates"],
    }),
  );
}

/** Keys whose values differ from run to run (ids, times): compared by presence only. */
export const VARYING =
  /(^id$|_id$|^ids$|^created_at$|^updated_at$|^checkpoint$|^parent_checkpoint$|^interrupt_id$|^created$|^timestamp$)/;
/** Labels the reference (the dev server) puts in run metadata about itself. */
const SERVER_LABELS = /^langgraph_(host|plan|version|api_url)$/;

/** A value with its ids and times replaced by a marker. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined || SERVER_LABELS.test(key)) continue;
    out[key] = VARYING.test(key) && item !== null ? "<varies>" : redact(item);
  }
  return out;
}

/**
 * What two servers must agree on: the event names in order, and each event's data with ids and
 * times redacted. Not compared: the metadata event's extra keys, and LangGraph's metadata in a
 * `messages` tuple (each server adds keys of its own there).
 */
export function comparable(events: readonly SeenEvent[]) {
  // The reference also sends `checkpoints` envelopes nobody asked for (its newer protocol's
  // pairing for `values`); the SDK's stream consumers ignore them.
  const asked = events.filter(({ event }) => !event.startsWith("checkpoints"));
  return asked.map(({ event: name, data }) => {
    // Subgraph namespaces hold task ids: `messages|node:<task id>`.
    const event = name.replace(/:[0-9a-f-]{36}/g, ":<task>");
    if (event === "metadata") return { event, data: "run" };
    if (event.startsWith("messages") && Array.isArray(data)) {
      return { event, data: redact(data[0]) };
    }
    return { event, data: redact(data) };
  });
}
