/**
 * One protocol v2 run: the graph streamed with LangGraph's protocol events
 * (`streamEvents(..., { version: "v3" })`) into the thread's event log, between the root's
 * `lifecycle` "running" and its end: "completed", "interrupted" (an interrupt is pending, or the
 * run was cancelled) or "failed" (with the message a user may see, `run-errors.ts`).
 * The run lifecycle (`run-lifecycle.ts`) calls it in place of the v1 stream; admission, order
 * and the thread record's save stay the lifecycle's.
 */
import { Command, createGraphRunStream, STREAM_EVENTS_V3_MODES } from "@langchain/langgraph/web";
import { runConfig } from "../execute";
import type { RunnableGraph } from "../graphs";
import type { RunCreate } from "../requests";
import { runErrorEvent } from "../run-errors";
import type { RunRecord, RunStatus } from "../runs";
import type { ThreadEventLog } from "./event-log";
import { draftEvents, type GraphEvent } from "./protocol-events";

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

export interface ProtocolRun {
  graph: RunnableGraph;
  run: RunRecord;
  body: RunCreate;
  userId: string | undefined;
  log: ThreadEventLog;
  report(error: unknown): void;
}

export async function streamProtocolRun(spec: ProtocolRun): Promise<RunStatus> {
  const { graph, run, body, log } = spec;
  const graphName = body.assistant_id;
  const signal = run.controller.signal;
  const announced = new Set<string>();
  const root = (event: string, extra: Record<string, unknown> = {}) =>
    log.append({
      method: "lifecycle",
      namespace: [],
      data: { event, graph_name: graphName, ...extra },
    });
  root("running");
  try {
    const events = await protocolStream(graph, protocolInput(body), {
      ...runConfig(run.thread_id, run.run_id, body, spec.userId),
      ...(body.context !== undefined ? { context: body.context } : {}),
      signal,
    });
    for await (const event of events) {
      for (const draft of draftEvents(event as GraphEvent, announced)) log.append(draft);
    }
    if (signal.aborted) throw signal.reason;
  } catch (error) {
    if (signal.aborted) {
      root("interrupted");
      return "interrupted";
    }
    if (!(error instanceof Error && error.name === "GraphInterrupt")) {
      spec.report(error);
      root("failed", { error: runErrorEvent(error).message });
      return "error";
    }
  }
  const paused =
    announced.size > 0 || (await hasPendingInterrupt(graph, run.thread_id).catch(() => false));
  root(paused ? "interrupted" : "completed");
  return "success";
}
