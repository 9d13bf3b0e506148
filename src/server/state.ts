/** LangGraph's state snapshots in the Agent Server's `ThreadState` shape. */
import type { StateSnapshotLike } from "./graphs";

export interface CheckpointRef {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string | null;
  checkpoint_map: Record<string, unknown> | null;
}

export function checkpointOf(
  config: { configurable?: Record<string, unknown> } | undefined,
  requireId = true,
): CheckpointRef | null {
  const c = config?.configurable;
  if (!c || typeof c.thread_id !== "string") return null;
  const id = typeof c.checkpoint_id === "string" ? c.checkpoint_id : null;
  if (requireId && id === null) return null;
  return {
    thread_id: c.thread_id,
    checkpoint_ns: typeof c.checkpoint_ns === "string" ? c.checkpoint_ns : "",
    checkpoint_id: id,
    checkpoint_map:
      typeof c.checkpoint_map === "object" && c.checkpoint_map !== null
        ? (c.checkpoint_map as Record<string, unknown>)
        : null,
  };
}

function isSnapshot(value: unknown): value is StateSnapshotLike {
  return typeof value === "object" && value !== null && "values" in value && "next" in value;
}

function errorText(error: unknown): string | null {
  if (error == null) return null;
  return error instanceof Error ? error.message : String(error);
}

export function toThreadState(state: StateSnapshotLike): Record<string, unknown> {
  return {
    values: state.values,
    next: state.next,
    tasks: state.tasks.map((task) => ({
      id: task.id,
      name: task.name,
      error: errorText(task.error),
      interrupts: task.interrupts ?? [],
      path: task.path,
      checkpoint:
        task.state && !isSnapshot(task.state)
          ? ((task.state as { configurable?: unknown }).configurable ?? null)
          : null,
      state: isSnapshot(task.state) ? toThreadState(task.state) : null,
      result: task.result ?? null,
    })),
    metadata: state.metadata,
    created_at: state.createdAt ?? null,
    checkpoint: checkpointOf(state.config),
    parent_checkpoint: checkpointOf(state.parentConfig),
  };
}

/** The state of a thread no run has touched yet. */
export function emptyThreadState(): Record<string, unknown> {
  return {
    values: {},
    next: [],
    tasks: [],
    metadata: undefined,
    created_at: null,
    checkpoint: null,
    parent_checkpoint: null,
  };
}

/** The fields of a thread's state that `select` may name (besides `values.<key>`). */
export const STATE_FIELDS: readonly string[] = [
  "values",
  "next",
  "tasks",
  "checkpoint",
  "metadata",
  "created_at",
  "parent_checkpoint",
  "interrupts",
];

/**
 * The state with only the `select`ed fields (all when none): `values.<key>` keeps that key of
 * `values`, `interrupts` is every task's pending interrupts in one list.
 */
export function selectState(
  state: Record<string, unknown>,
  select: readonly string[] | null | undefined,
): Record<string, unknown> {
  if (!select || select.length === 0) return state;
  const out: Record<string, unknown> = {};
  const values = (state.values ?? {}) as Record<string, unknown>;
  for (const field of select) {
    if (field.startsWith("values.")) {
      if (select.includes("values")) continue;
      const key = field.slice("values.".length);
      const kept = (out.values ?? {}) as Record<string, unknown>;
      if (Object.hasOwn(values, key)) kept[key] = values[key];
      out.values = kept;
    } else if (field === "interrupts") {
      const tasks = (state.tasks ?? []) as { interrupts?: unknown[] }[];
      out.interrupts = tasks.flatMap((task) => task.interrupts ?? []);
    } else {
      out[field] = state[field];
    }
  }
  return out;
}
