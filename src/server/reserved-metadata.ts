/**
 * Metadata keys the server relies on, refused (a 422 naming the key) when a caller would set them
 * to anything else: a thread's `graph_id` and `assistant_id` say which graph reads its state, its
 * `owner` whose it is; a run's reserved keys are what the graph reads from its config. A caller
 * may repeat what the server holds (the SDK's `threads.create({ graphId })` sends `graph_id`).
 */
import { RESERVED_METADATA } from "./execute";
import { HttpProblem } from "./http";

/** The thread metadata keys the server reads back, and why a caller may not change them. */
const THREAD_KEYS: Readonly<Record<string, string>> = {
  graph_id: "the graph that reads the thread's state",
  assistant_id: "the assistant that last ran on the thread",
  owner: "the user the thread belongs to",
};

type Metadata = Record<string, unknown>;

function refuse(field: string, why: string): never {
  throw new HttpProblem(422, "Unprocessable Entity", `${field}: ${why}; leave it out`);
}

/**
 * Refuses a key of `given` the server keeps, unless it equals what `allowed` says the thread
 * holds (or, on create, would hold). `graphs` are the server's graph ids: on create the graph may
 * be named, as the SDK does, when it is one of them.
 */
export function checkThreadMetadata(
  given: Metadata | null | undefined,
  allowed: Metadata,
  graphs?: ReadonlyMap<string, unknown>,
): void {
  for (const [key, why] of Object.entries(THREAD_KEYS)) {
    if (!given || !Object.hasOwn(given, key)) continue;
    const value = given[key];
    if (value === allowed[key]) continue;
    const graphKey = key === "graph_id" || key === "assistant_id";
    if (graphs && graphKey && typeof value === "string" && graphs.has(value)) continue;
    const named =
      graphs && graphKey
        ? `; name one of its graphs (${[...graphs.keys()].join(", ")}) or`
        : " and cannot be changed;";
    throw new HttpProblem(
      422,
      "Unprocessable Entity",
      `metadata.${key}: is the server's (${why})${named} leave it out`,
    );
  }
}

/**
 * Refuses a run's metadata key the server sets on the run (`run_id`, `thread_id`, the user's id,
 * LangGraph's own): the graph reads them from its config. `graph_id` and `assistant_id` may
 * repeat the run's assistant.
 */
export function checkRunMetadata(given: Metadata | null | undefined, assistantId: string): void {
  for (const [key, value] of Object.entries(given ?? {})) {
    if ((key === "graph_id" || key === "assistant_id") && value === assistantId) continue;
    if (RESERVED_METADATA.test(key)) {
      refuse(
        `metadata.${key}`,
        "is set by the server on every run (the graph reads it from the run's config)",
      );
    }
  }
}
