/**
 * One protocol v2 run: the graph streamed with LangGraph's protocol events
 * (`streamEvents(..., { version: "v3" })`) into the thread's event log, between the root's
 * `lifecycle` "running" and its end: "completed", "interrupted" (an interrupt is pending, or the
 * run was cancelled) or "failed" (with the message a user may see, `run-errors.ts`).
 * The run lifecycle (`run-lifecycle.ts`) calls it in place of the v1 stream; admission, order
 * and the thread record's save stay the lifecycle's.
 */
import {
  Command,
  createGraphRunStream,
  isGraphDrained,
  RunControl,
  STREAM_EVENTS_V3_MODES,
} from "@langchain/langgraph/web";
import { runConfig } from "../execute";
import type { RunnableGraph } from "../graphs";
import type { RunCreate } from "../requests";
import { runErrorEvent } from "../run-errors";
import type { RunRecord, RunStatus } from "../runs";
import { draftEvents, type GraphEvent } from "./protocol-events";
import type { ProtocolLog } from "./protocol-log";

/** What a compiled graph holds that LangGraph's protocol stream reads. */
interface GraphDefaults {
  config?: { recursionLimit?: number; configurable?: Record<string, unknown> };
  streamTransformers?: unknown[];
}

/**
 * LangGraph's protocol events for the run: what `graph.streamEvents(input, { version: "v3" })`
 * does, through public calls. The server runs a copy of the user's graph (`graphs.ts`), and
 * `streamEvents` v3 is a private method (`#streamEventsV3`) that refuses a copy as its receiver.
 */
async function protocolStream(
  graph: RunnableGraph,
  input: unknown,
  options: Record<string, unknown>,
): Promise<AsyncIterable<unknown>> {
  const defaults = graph as RunnableGraph & GraphDefaults;
  const configurable = options.configurable as Record<string, unknown> | undefined;
  const source = graph.stream(input, {
    recursionLimit: defaults.config?.recursionLimit,
    ...options,
    configurable: { ...defaults.config?.configurable, ...configurable },
    version: "v3",
    streamMode: STREAM_EVENTS_V3_MODES,
    subgraphs: true,
  });
  const chunks = {
    async *[Symbol.asyncIterator]() {
      yield* (await source) as AsyncIterable<never>;
    },
  };
  return createGraphRunStream(chunks, (defaults.streamTransformers ?? []) as never) as never;
}

/** The graph's input: a `Command` when the run resumes or updates. */
export function protocolInput(body: RunCreate): unknown {
  const command = body.command;
  if (command == null) return body.input ?? null;
  return new Command({
    ...(command.resume !== undefined ? { resume: command.resume } : {}),
    ...(command.update != null ? { update: command.update as never } : {}),
    ...(command.goto != null ? { goto: command.goto as never } : {}),
  });
}

/** True when the thread's state has an interrupt no run has answered yet. */
export async function hasPendingInterrupt(graph: RunnableGraph, threadId: string) {
  const state = await graph.getState(
    { configurable: { thread_id: threadId } },
    { subgraphs: true },
  );
  return state.tasks.some((task) => (task.interrupts?.length ?? 0) > 0);
}

/** How the graph's stream ended, for the root's last `lifecycle` event. */
export interface RunEnd {
  event?: "completed" | "interrupted" | "failed";
  error?: string;
}

export interface ProtocolRun {
  graph: RunnableGraph;
  run: RunRecord;
  body: RunCreate;
  userId: string | undefined;
  log: ProtocolLog;
  report(error: unknown): void;
  /** A run taken over from another instance: its root's "running" was sent there. */
  takenOver?: boolean | undefined;
  /** Filled in when the stream ends (`endEvent` sends it once the thread record is saved). */
  end: RunEnd;
}

/**
 * The root's last `lifecycle` data once the run has ended (its thread record saved, so a client
 * that reloads the thread list on it sees the thread's new status): from how the stream ended,
 * unless the save failed; undefined for a run cancelled before it started.
 */
export function endEvent(
  graphName: string,
  status: RunStatus,
  end: RunEnd,
): Record<string, unknown> | undefined {
  const failed = (error: string) => ({ event: "failed", graph_name: graphName, error });
  if (status === "error" && end.event !== "failed") {
    return failed(
      end.event === undefined
        ? "The run could not start: the checkpoint it starts from is gone. Run from the " +
            "thread's latest state."
        : "The run ended but the thread was not saved. Try again; if it keeps failing, " +
            "contact the site's owner.",
    );
  }
  if (end.event === undefined) return undefined;
  return { event: end.event, graph_name: graphName, ...(end.error ? { error: end.error } : {}) };
}

export async function streamProtocolRun(spec: ProtocolRun): Promise<RunStatus> {
  const { graph, run, body, log } = spec;
  const graphName = body.assistant_id;
  const signal = run.controller.signal;
  const announced = new Set<string>();
  let raised = false;
  await log.open();
  if (!spec.takenOver) {
    log.append({
      method: "lifecycle",
      namespace: [],
      data: { event: "running", graph_name: graphName },
    });
  }
  const root = (event: RunEnd["event"], error?: string) => {
    spec.end.event = event;
    if (error !== undefined) spec.end.error = error;
  };
  // A drain stops the graph at its next superstep boundary, its checkpoint saved, to go on in
  // another instance (as a v1 run, `execute.ts`).
  const control = new RunControl();
  const drain = () => control.requestDrain("the server is draining");
  run.draining.signal.addEventListener("abort", drain, { once: true });
  if (run.draining.signal.aborted) drain();
  try {
    const events = await protocolStream(graph, protocolInput(body), {
      ...runConfig(run.thread_id, run.run_id, body, spec.userId),
      ...(body.context !== undefined ? { context: body.context } : {}),
      signal,
      control,
    });
    for await (const event of events) {
      for (const draft of draftEvents(event as GraphEvent, announced)) log.append(draft);
    }
    if (signal.aborted) throw signal.reason;
  } catch (error) {
    if (isGraphDrained(error)) {
      run.drained = true;
      return "interrupted";
    }
    if (signal.aborted) {
      root("interrupted");
      return "interrupted";
    }
    if (!(error instanceof Error && error.name === "GraphInterrupt")) {
      spec.report(error);
      root("failed", runErrorEvent(error).message);
      return "error";
    }
    raised = true;
  } finally {
    run.draining.signal.removeEventListener("abort", drain);
  }
  // The stream announces every interrupt (its `updates` and `values` carry them), so a run that
  // ended without one reads no state here: the lifecycle reads it once, for the thread record.
  // An interrupt raised out of the stream unannounced is looked for in the state.
  const paused =
    announced.size > 0 ||
    (raised && (await hasPendingInterrupt(graph, run.thread_id).catch(() => false)));
  root(paused ? "interrupted" : "completed");
  return "success";
}
