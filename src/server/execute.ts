/**
 * One run: the graph streamed with LangGraph's own modes, each chunk turned into the event the
 * SDK reads (`metadata` first with the run id, then one event per chunk, `error` on failure).
 * The SDK's `messages-tuple` is LangGraph's `messages`; subgraph chunks are named
 * `<mode>|<namespace>` when `stream_subgraphs` is on.
 */
import { Command, isGraphDrained, RunControl } from "@langchain/langgraph/web";
import { debugEvent } from "./debug-events";
import type { RunnableGraph } from "./graphs";
import type { RunCreate, StreamMode } from "./requests";
import { runErrorEvent } from "./run-errors";
import { durabilityOf } from "./run-fields";
import type { RunRecord, RunStatus } from "./runs";
import { wireJson } from "./wire";

/**
 * LangGraph's modes for the SDK's: `messages-tuple` is `messages`; `checkpoints` is read from
 * `debug` (LangGraph's own `checkpoints` mode now sends bare envelopes, not the SDK's snapshots).
 */
function graphModes(modes: readonly StreamMode[]): string[] {
  const named: Partial<Record<StreamMode, string>> = {
    "messages-tuple": "messages",
    checkpoints: "debug",
  };
  return [...new Set(modes.map((mode) => named[mode] ?? mode))];
}

/** The SDK's `checkpoints` event: the snapshot a debug `checkpoint` chunk carries. */
function checkpointSnapshot(event: unknown): unknown {
  const { type, payload } = event as { type?: string; payload?: Record<string, unknown> };
  if (type !== "checkpoint" || !payload) return undefined;
  const { values, next, config, metadata, tasks, parent_config } = payload;
  return { values, next, config, metadata, tasks, parent_config };
}

/** The checkpoint id a `checkpoints` chunk (LangGraph's snapshot or envelope) names. */
function checkpointIdOf(chunk: unknown): string | undefined {
  const { config, id } = (chunk ?? {}) as {
    config?: { configurable?: { checkpoint_id?: unknown } };
    id?: unknown;
  };
  const found = config?.configurable?.checkpoint_id ?? id;
  return typeof found === "string" ? found : undefined;
}

export function requestedModes(body: RunCreate): StreamMode[] {
  const modes = body.stream_mode;
  if (modes == null) return ["values"];
  const list = Array.isArray(modes) ? modes : [modes];
  return list.length === 0 ? ["values"] : list;
}

/** The graph's input: a `Command` when the body has one (resume, update, goto). */
function graphInput(body: RunCreate): unknown {
  const command = body.command;
  if (command == null) return body.input ?? null;
  const goto =
    command.goto == null ? undefined : Array.isArray(command.goto) ? command.goto : [command.goto];
  return new Command({
    ...(command.resume !== undefined ? { resume: command.resume } : {}),
    ...(command.update !== undefined ? { update: command.update as never } : {}),
    ...(goto !== undefined ? { goto: goto as string[] } : {}),
  });
}

/**
 * Configurable keys a client may not set: LangGraph's internals (`__pregel_*`...), the caller's
 * identity (the server sets it from `auth`) and the assistant (the server names it `graph_id`,
 * as the reference embed server does; a caller's `assistant_id` would contradict it).
 */
const RESERVED_CONFIGURABLE = /^(__|langgraph_auth_user|assistant_id$)/;

/**
 * Run metadata keys a client may not set: the graph reads them (`config.metadata`) and the
 * checkpoints keep them (history filters), so they must be the server's word, not the body's.
 */
export const RESERVED_METADATA =
  /^(__|langgraph_auth_user|assistant_id$|graph_id$|run_id$|thread_id$|run_attempt$)/;

function callerMetadata(values: Record<string, unknown> | null | undefined) {
  return Object.fromEntries(
    Object.entries(values ?? {}).filter(([key]) => !RESERVED_METADATA.test(key)),
  );
}

function callerConfigurable(values: Record<string, unknown> | null | undefined) {
  return Object.fromEntries(
    Object.entries(values ?? {}).filter(([key]) => !RESERVED_CONFIGURABLE.test(key)),
  );
}

/**
 * The run's config: the caller's, the checkpoint to start from (edit, regenerate), then what the
 * server decides: the thread, the run, and the caller's user id (`langgraph_auth_user_id`, as the
 * Agent Server names it, so a graph can keep each user's memories apart in the store).
 */
export function runConfig(
  threadId: string,
  runId: string,
  body: RunCreate,
  userId?: string,
): Record<string, unknown> {
  const configurable: Record<string, unknown> = {
    ...callerConfigurable(body.config?.configurable),
    ...(body.checkpoint_id ? { checkpoint_id: body.checkpoint_id } : {}),
    ...callerConfigurable(body.checkpoint),
    // LangGraph's own switch for `strict_resume` (its `UnknownInterruptError`, thread unchanged).
    ...(body.strict_resume === true ? { __pregel_strict_resume: true } : {}),
    thread_id: threadId,
    run_id: runId,
    graph_id: body.assistant_id,
    ...(userId !== undefined ? { langgraph_auth_user_id: userId } : {}),
  };
  return {
    configurable,
    ...(body.config?.tags ? { tags: body.config.tags } : {}),
    ...(body.config?.recursion_limit != null
      ? { recursionLimit: body.config.recursion_limit }
      : {}),
    metadata: {
      ...callerMetadata(body.metadata),
      run_id: runId,
      thread_id: threadId,
      graph_id: body.assistant_id,
      run_attempt: 1,
      ...(userId !== undefined ? { langgraph_auth_user_id: userId } : {}),
    },
  };
}

function isAbort(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (error instanceof Error && error.name === "AbortError");
}

/** LangGraph's pause for an interrupt: the thread's state shows it, it is not a failure. */
function isGraphInterrupt(error: unknown): boolean {
  return error instanceof Error && error.name === "GraphInterrupt";
}

/**
 * Streams the run into its record; resolves with how it ended. A failure is an `error` event the
 * user may see (`run-errors.ts`), its cause handed to `report`.
 */
export async function executeRun(
  graph: RunnableGraph,
  run: RunRecord,
  body: RunCreate,
  userId: string | undefined,
  report: (error: unknown) => void,
): Promise<RunStatus> {
  const modes = requestedModes(body);
  const wantsDebug = modes.includes("debug");
  const wantsCheckpoints = modes.includes("checkpoints");
  const subgraphs = body.stream_subgraphs === true;
  const signal = run.controller.signal;
  const durability = durabilityOf(body);
  // A resumable run learns its checkpoints' ids, so a join can start after one (`checkpoint_id`);
  // so does a run shared with other instances (one taken over resumes past its checkpoints).
  const marks = (run.resumable || run.onCheckpoint !== undefined) && !modes.includes("checkpoints");
  run.push("metadata", wireJson({ run_id: run.run_id, attempt: 1 }));
  // A drain stops the graph at its next superstep boundary, its checkpoint saved, to go on in
  // another instance (`RunControl`, LangGraph's cooperative drain).
  const control = new RunControl();
  const drain = () => control.requestDrain("the server is draining");
  run.draining.signal.addEventListener("abort", drain, { once: true });
  if (run.draining.signal.aborted) drain();
  try {
    const stream = await graph.stream(graphInput(body), {
      ...runConfig(run.thread_id, run.run_id, body, userId),
      ...(body.context !== undefined ? { context: body.context } : {}),
      ...(body.interrupt_before ? { interruptBefore: body.interrupt_before } : {}),
      ...(body.interrupt_after ? { interruptAfter: body.interrupt_after } : {}),
      ...(durability ? { durability } : {}),
      streamMode: marks ? [...graphModes(modes), "checkpoints"] : graphModes(modes),
      subgraphs,
      signal,
      control,
    });
    for await (const chunk of stream) {
      const [namespace, mode, data] = (subgraphs ? chunk : [[], ...(chunk as unknown[])]) as [
        string[],
        string,
        unknown,
      ];
      const named = (event: string) =>
        namespace.length > 0 ? `${event}|${namespace.join("|")}` : event;
      if (mode === "checkpoints") {
        const id = checkpointIdOf(data);
        if (id && namespace.length === 0) run.markCheckpoint(id);
        continue;
      }
      if (mode !== "debug") {
        run.push(named(mode), wireJson(data));
        continue;
      }
      const debug = debugEvent(data);
      if (wantsDebug) run.push(named("debug"), wireJson(debug));
      const snapshot = wantsCheckpoints ? checkpointSnapshot(debug) : undefined;
      if (snapshot) {
        const id = checkpointIdOf(snapshot);
        if (id && namespace.length === 0) run.markCheckpoint(id);
        run.push(named("checkpoints"), wireJson(snapshot));
      }
    }
    return "success";
  } catch (error) {
    if (isAbort(error, signal)) return "interrupted";
    if (isGraphDrained(error)) {
      run.drained = true;
      return "interrupted";
    }
    if (isGraphInterrupt(error)) return "success";
    // A resume `strict_resume` refused is the caller's mistake, told in the event, not a fault.
    if (!(error instanceof Error && error.name === "UnknownInterruptError")) report(error);
    run.push("error", wireJson(runErrorEvent(error)));
    return "error";
  } finally {
    run.draining.signal.removeEventListener("abort", drain);
  }
}
