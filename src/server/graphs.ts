/**
 * The graphs the server runs, each bound to the server's checkpointer and store. A `createAgent`
 * result is its compiled `.graph`. The user's graph object is not changed: the server runs a
 * copy whose prototype is the graph, with its own `checkpointer` and `store`.
 */
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";

/** The part of a compiled LangGraph graph (Pregel) the server calls. */
export interface RunnableGraph {
  stream(input: unknown, options?: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  getState(
    config: Record<string, unknown>,
    options?: Record<string, unknown>,
  ): Promise<StateSnapshotLike>;
  getStateHistory(
    config: Record<string, unknown>,
    options?: Record<string, unknown>,
  ): AsyncIterable<StateSnapshotLike>;
  updateState(config: Record<string, unknown>, values: unknown, asNode?: string): Promise<unknown>;
  checkpointer?: unknown;
  store?: unknown;
}

export interface StateSnapshotLike {
  values: unknown;
  next: readonly string[];
  tasks: readonly {
    id: string;
    name: string;
    error?: unknown;
    interrupts?: unknown[];
    path?: unknown;
    state?: unknown;
    result?: unknown;
  }[];
  metadata?: unknown;
  createdAt?: string | undefined;
  config?: { configurable?: Record<string, unknown> } | undefined;
  parentConfig?: { configurable?: Record<string, unknown> } | undefined;
}

/** A compiled graph, or anything holding one as `.graph` (a `createAgent` result). */
export type GraphLike = RunnableGraph | { graph: RunnableGraph };

function isRunnable(value: unknown): value is RunnableGraph {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as RunnableGraph).stream === "function" &&
    typeof (value as RunnableGraph).getState === "function"
  );
}

/** A value `graphs` may hold: a compiled graph, or a `createAgent` result holding one. */
export function isGraphLike(value: unknown): value is GraphLike {
  return isRunnable(value) || isRunnable((value as { graph?: unknown } | null)?.graph);
}

export function bindGraph(
  graph: GraphLike,
  id: string,
  checkpointer: BaseCheckpointSaver,
  store: BaseStore | undefined,
): RunnableGraph {
  // A createAgent result runs its compiled `.graph` (and keeps its own fields private).
  const held = (graph as { graph?: unknown }).graph;
  const inner = isRunnable(held) ? held : graph;
  if (!isRunnable(inner)) {
    throw new TypeError(
      `graphs.${id} is not a compiled LangGraph graph: pass StateGraph#compile() or a ` +
        `createAgent result`,
    );
  }
  const bound = Object.create(inner) as RunnableGraph;
  bound.checkpointer = checkpointer;
  bound.store = store ?? inner.store;
  return bound;
}
