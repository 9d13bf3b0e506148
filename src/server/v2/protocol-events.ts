/**
 * LangGraph's protocol events (`graph.streamEvents(input, { version: "v3" })`) as the server
 * sends them: the root's lifecycle is the server's own (it knows how the run ended), a pending
 * interrupt becomes one `input.requested` per interrupt id, state values drop `__interrupt__`
 * and carry messages in the protocol's shape (`state-messages.ts`), a task's config becomes the
 * checkpoint it names. Pure: the interrupts already announced are passed in and added to.
 */
import { stateValues } from "./state-messages";

export type Namespace = string[];

/** One event before the thread's log numbers it. */
export interface DraftEvent {
  method: string;
  namespace: Namespace;
  data: unknown;
  node?: string | undefined;
}

/** What LangGraph's v3 stream yields (only the fields read here). */
export interface GraphEvent {
  method: string;
  params: { namespace?: Namespace; data?: unknown };
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null;
}

/** The interrupts of a `__interrupt__` value as `input.requested` data. */
export function inputRequests(value: unknown): { interrupt_id: string; payload: unknown }[] {
  const list = Array.isArray(value)
    ? value
    : isRecord(value) && Array.isArray(value.__interrupt__)
      ? value.__interrupt__
      : [];
  return list.flatMap((entry: unknown) =>
    isRecord(entry) && typeof entry.id === "string"
      ? [{ interrupt_id: entry.id, payload: "value" in entry ? entry.value : undefined }]
      : [],
  );
}

function requested(namespace: Namespace, value: unknown, announced: Set<string>): DraftEvent[] {
  const out: DraftEvent[] = [];
  for (const request of inputRequests(value)) {
    if (announced.has(request.interrupt_id)) continue;
    announced.add(request.interrupt_id);
    out.push({ method: "input.requested", namespace, data: request });
  }
  return out;
}

/** The checkpoint a task's config names (`thread_id`, `checkpoint_ns`...), or undefined. */
function taskCheckpoint(state: unknown): Json | undefined {
  const configurable = isRecord(state) && isRecord(state.configurable) ? state.configurable : {};
  if (typeof configurable.thread_id !== "string" || configurable.thread_id === "") {
    return undefined;
  }
  const text = (key: string) => (typeof configurable[key] === "string" ? configurable[key] : "");
  return {
    thread_id: configurable.thread_id,
    checkpoint_id: text("checkpoint_id") || null,
    checkpoint_ns: text("checkpoint_ns"),
    checkpoint_map: isRecord(configurable.checkpoint_map) ? configurable.checkpoint_map : null,
  };
}

/** A task event with its config replaced by the checkpoint it names (as the Agent Server does). */
function task(data: unknown): unknown {
  if (!isRecord(data)) return data;
  const checkpoint = taskCheckpoint(data.state);
  if (checkpoint === undefined) return data;
  const { state: _state, ...rest } = data;
  return { ...rest, checkpoint };
}

/**
 * The events one graph event becomes (none for the root's lifecycle, which the run's driver
 * sends). `announced` holds the interrupt ids already sent as `input.requested` for this run.
 */
export function draftEvents(event: GraphEvent, announced: Set<string>): DraftEvent[] {
  const { method } = event;
  const namespace = event.params.namespace ?? [];
  const data = event.params.data;
  switch (method) {
    case "lifecycle":
      return namespace.length === 0 ? [] : [{ method, namespace, data }];
    case "values": {
      const out = requested(namespace, data, announced);
      const values = stateValues(data);
      if (isRecord(values) && Object.keys(values).length === 0) return out;
      return [...out, { method, namespace, data: values }];
    }
    case "updates": {
      const update = isRecord(data) ? data : {};
      if (update.node === "__interrupt__") return requested(namespace, update.values, announced);
      const values = isRecord(update.values) ? update.values : { value: update.values };
      const node = typeof update.node === "string" ? update.node : undefined;
      return [{ method, namespace, data: stateValues(values), node }];
    }
    case "tasks":
      return [{ method, namespace, data: task(data) }];
    case "messages":
    case "tools":
    case "custom":
    case "checkpoints":
      return [{ method, namespace, data }];
    default: {
      // A stream channel of the graph's own (`custom:<name>`, or a transformer's name).
      const name = method.startsWith("custom:") ? method.slice("custom:".length) : method;
      return name === "" ? [] : [{ method: "custom", namespace, data: { name, payload: data } }];
    }
  }
}
