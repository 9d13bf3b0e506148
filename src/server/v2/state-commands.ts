/**
 * The protocol v2 commands that read the thread's state: `state.get` (values of the root or of a
 * subgraph namespace, optionally only some keys) and `state.listCheckpoints` (newest first, a
 * page at a time with `before`), read from the graph's checkpointer as `GET .../state` does.
 */
import type { RunnableGraph, StateSnapshotLike } from "../graphs";
import { toWire } from "../wire";
import { CommandError } from "./responses";
import { stateValues } from "./state-messages";

type Json = Record<string, unknown>;

function namespaceOf(params: Json): string[] {
  const namespace = params.namespace ?? [];
  if (!Array.isArray(namespace) || !namespace.every((part) => typeof part === "string")) {
    throw new CommandError("invalid_argument", "namespace: must be a list of strings");
  }
  return namespace;
}

function config(threadId: string, namespace: string[], extra: Json = {}) {
  return {
    configurable: {
      thread_id: threadId,
      ...(namespace.length > 0 ? { checkpoint_ns: namespace.join("|") } : {}),
      ...extra,
    },
  };
}

async function snapshot(graph: RunnableGraph, threadId: string, namespace: string[]) {
  try {
    return await graph.getState(config(threadId, namespace));
  } catch (error) {
    if (namespace.length === 0) throw error;
    // LangGraph names a namespace it cannot find with a plain Error ("Subgraph ... not found").
    throw new CommandError(
      "no_such_namespace",
      `namespace ${JSON.stringify(namespace)} names no subgraph of this thread; ` +
        "use one from agent.getTree",
    );
  }
}

function checkpointId(state: StateSnapshotLike): string | undefined {
  const id = state.config?.configurable?.checkpoint_id;
  return typeof id === "string" ? id : undefined;
}

/** `state.get`: `{ values, checkpoint }` of the namespace's latest checkpoint. */
export async function stateGet(graph: RunnableGraph | undefined, threadId: string, params: Json) {
  const namespace = namespaceOf(params);
  if (!graph) return { values: {} };
  const state = await snapshot(graph, threadId, namespace);
  const values = stateValues(toWire(state.values)) as Json;
  const keys = params.keys;
  const picked = Array.isArray(keys)
    ? Object.fromEntries(Object.entries(values ?? {}).filter(([key]) => keys.includes(key)))
    : (values ?? {});
  const id = checkpointId(state);
  return {
    values: picked,
    ...(id !== undefined ? { checkpoint: { id, ns: namespace.join("|") } } : {}),
  };
}

function summary(state: StateSnapshotLike) {
  const metadata = (toWire(state.metadata) ?? {}) as Json;
  const writes = metadata.writes;
  const nodes = writes && typeof writes === "object" ? Object.keys(writes) : [];
  return {
    id: checkpointId(state) ?? "",
    timestamp: state.createdAt ?? "",
    step: typeof metadata.step === "number" ? metadata.step : -1,
    ...(nodes.length === 1 ? { node_name: nodes[0] } : {}),
    metadata,
  };
}

/** `state.listCheckpoints`: the namespace's checkpoints, newest first. */
export async function listCheckpoints(
  graph: RunnableGraph | undefined,
  threadId: string,
  params: Json,
) {
  const namespace = namespaceOf(params);
  const limit = params.limit ?? 10;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1) {
    throw new CommandError("invalid_argument", "limit: must be a whole number of at least 1");
  }
  const before = params.before;
  if (before !== undefined && typeof before !== "string") {
    throw new CommandError("invalid_argument", "before: must be a checkpoint id");
  }
  if (!graph) return { checkpoints: [] };
  const checkpoints = [];
  for await (const state of graph.getStateHistory(config(threadId, namespace), {
    limit,
    ...(before ? { before: { configurable: { checkpoint_id: before } } } : {}),
  })) {
    checkpoints.push(summary(state));
  }
  return { checkpoints };
}
