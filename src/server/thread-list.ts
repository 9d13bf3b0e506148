/**
 * A listed thread as a search asks for it: `select` keeps only the named fields, `extract` adds
 * `extracted` (alias to the value at a path of the thread, `values.messages[-1].content`). Pure:
 * the route reads the records, this shapes them.
 */
import type { ThreadView } from "./thread-view";

/**
 * The fields a thread of this server has, which `select` may name. The SDK's other ones
 * (`state_updated_at`, `config`, `context`) are not kept: naming one is a 422, not a silent gap.
 */
export const THREAD_FIELDS = [
  "thread_id",
  "created_at",
  "updated_at",
  "metadata",
  "status",
  "values",
  "interrupts",
  "title",
  "preview",
] as const;
export type ThreadField = (typeof THREAD_FIELDS)[number];

/** One step of an extract path: a key, or an index (negative from the end). */
type Step = string | number;

/** `name`, then any `[n]` or `[-n]`, dot-separated: `values.messages[-1].content`. */
const PATH = /^[^.[\]]+(\[-?\d+\])*(\.[^.[\]]+(\[-?\d+\])*)*$/;

/**
 * The steps of an extract path, or a reason it is not one (its first key must be a field
 * `select` may name).
 */
export function parseExtractPath(path: string): Step[] | string {
  if (!PATH.test(path)) {
    return "must be a path of keys and [index] steps, e.g. values.messages[-1].content";
  }
  const steps: Step[] = [];
  for (const part of path.split(".")) {
    const key = part.slice(0, part.includes("[") ? part.indexOf("[") : undefined);
    steps.push(key);
    for (const index of part.matchAll(/\[(-?\d+)\]/g)) steps.push(Number(index[1]));
  }
  if (!(THREAD_FIELDS as readonly Step[]).includes(steps[0]!)) {
    return `must start with one of ${THREAD_FIELDS.join(", ")}`;
  }
  return steps;
}

/** The value at `steps` in `value`, or null where the path leads nowhere. */
function valueAt(value: unknown, steps: readonly Step[]): unknown {
  let at: unknown = value;
  for (const step of steps) {
    if (typeof step === "number") {
      if (!Array.isArray(at)) return null;
      at = at[step < 0 ? at.length + step : step];
    } else {
      if (typeof at !== "object" || at === null || Array.isArray(at)) return null;
      at = Object.hasOwn(at, step) ? (at as Record<string, unknown>)[step] : undefined;
    }
    if (at === undefined) return null;
  }
  return at;
}

export interface ListShape {
  select?: readonly ThreadField[] | undefined;
  /** Alias to the parsed steps of its path (`parseExtractPath`). */
  extract?: Readonly<Record<string, readonly Step[]>> | undefined;
}

/** The thread as the search answers it: the selected fields, and `extracted` when asked. */
export function listedThread(view: ThreadView, shape: ListShape): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields = shape.select ?? THREAD_FIELDS;
  for (const field of fields) out[field] = view[field];
  if (shape.extract) {
    const extracted: Record<string, unknown> = {};
    for (const [alias, steps] of Object.entries(shape.extract)) {
      extracted[alias] = valueAt(view, steps);
    }
    out.extracted = extracted;
  }
  return out;
}
