/**
 * What a run must have before it starts, so that a run that cannot succeed changes nothing:
 * - its input fits `maxInputBytes`. An input the model cannot take fails only after it is saved
 *   in the conversation, and then every later turn sends it again and fails the same way.
 * - the checkpoint it starts from (an edit, a regenerate) can be read. LangGraph starts a run
 *   whose checkpoint is missing from an empty state, and under `keep: "latest"` its save then
 *   deletes the thread's earlier turns.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { runConfig } from "./execute";
import { HttpProblem } from "./http";
import type { RunCreate } from "./requests";

/**
 * The largest run input accepted unless told otherwise: 256 KiB, about 64,000 tokens of text,
 * which leaves room for the conversation in a 128,000-token window.
 */
export const DEFAULT_MAX_INPUT_BYTES = 256 * 1024;

const utf8 = new TextEncoder();

/** The bytes of what the run adds to the conversation: its input and its command. */
export function inputBytes(body: RunCreate): number {
  return utf8.encode(JSON.stringify([body.input ?? null, body.command ?? null])).length;
}

/** A 413 naming the limit when the run's input is over `limit` bytes. */
export function checkInputSize(body: RunCreate, limit: number): void {
  const size = inputBytes(body);
  if (size <= limit) return;
  throw new HttpProblem(
    413,
    "Payload Too Large",
    `the run's input is ${size} bytes, over the server's maxInputBytes (${limit}); ` +
      "send a shorter message",
  );
}

/** The checkpoint a run names to start from (edit, regenerate), if any. */
export function startCheckpoint(
  threadId: string,
  body: RunCreate,
): { checkpoint_id: string; checkpoint_ns: string } | undefined {
  const { configurable } = runConfig(threadId, "", body) as {
    configurable: Record<string, unknown>;
  };
  const id = configurable.checkpoint_id;
  if (typeof id !== "string" || id === "") return undefined;
  const ns = configurable.checkpoint_ns;
  return { checkpoint_id: id, checkpoint_ns: typeof ns === "string" ? ns : "" };
}

/** The error for a run whose starting checkpoint cannot be read. */
export function checkpointGone(threadId: string, checkpointId: string): HttpProblem {
  return new HttpProblem(
    409,
    "Conflict",
    `Checkpoint ${checkpointId} of thread ${threadId} cannot be read (deleted, e.g. under ` +
      'keep: "latest"); run from the thread\'s latest state instead',
  );
}

/** Throws `checkpointGone` (a 409) when the run's starting checkpoint cannot be read. */
export async function requireStartCheckpoint(
  checkpointer: BaseCheckpointSaver,
  threadId: string,
  body: RunCreate,
): Promise<void> {
  const start = startCheckpoint(threadId, body);
  if (!start) return;
  const found = await checkpointer.getTuple({ configurable: { thread_id: threadId, ...start } });
  if (!found) throw checkpointGone(threadId, start.checkpoint_id);
}
