/**
 * The protocol v2 commands that start a run on the thread: `run.start` (new input; the answer
 * to a pending interrupt; a fork when the config names a checkpoint), `input.respond`,
 * `input.inject` and `state.fork`. Each becomes a run of the run lifecycle like a v1 run (one at
 * a time per thread, the thread record saved at its end), streamed into the thread's event log.
 */
import type { ServerContext } from "../context";
import type { RunnableGraph } from "../graphs";
import { HttpProblem } from "../http";
import type { RunCreate } from "../requests";
import { checkRunMetadata } from "../reserved-metadata";
import { checkInputSize, requireStartCheckpoint } from "../run-admission";
import type { StoredThread } from "../thread-records";
import { protocolRun } from "./protocol-run";
import { CommandError } from "./responses";
import { hasPendingInterrupt } from "./run-stream";

type Json = Record<string, unknown>;

/** Who sends the command, on which thread, and the request it came in (for `onError`). */
export interface CommandScope {
  ctx: ServerContext;
  owner: string;
  /** The thread's service id. */
  threadId: string;
  /** The thread's record, read at most once, by the commands that need more than its id. */
  record(): Promise<StoredThread>;
  request: Request;
}
const STRATEGIES = ["reject", "interrupt", "rollback", "enqueue"] as const;
type Strategy = (typeof STRATEGIES)[number];

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function record(params: Json, key: string): Json | undefined {
  const value = params[key];
  if (value == null) return undefined;
  if (!isRecord(value)) throw new CommandError("invalid_argument", `${key}: must be an object`);
  return value;
}

/** `multitask_strategy` (or the SDK's `multitaskStrategy`); "enqueue" when not given. */
function strategyOf(params: Json): Strategy {
  const value = params.multitask_strategy ?? params.multitaskStrategy ?? "enqueue";
  if (!STRATEGIES.includes(value as Strategy)) {
    throw new CommandError(
      "invalid_argument",
      `multitask_strategy: must be one of ${STRATEGIES.join(", ")}`,
    );
  }
  return value as Strategy;
}

/** The owner's graph `assistantId`, or an error naming the graphs there are. */
export async function graphNamed(
  ctx: ServerContext,
  owner: string,
  assistantId: unknown,
): Promise<RunnableGraph> {
  if (typeof assistantId !== "string" || !ctx.graphs.has(assistantId)) {
    throw new CommandError(
      "invalid_argument",
      "assistant_id: names no graph of this server; use one of " +
        [...ctx.graphs.keys()].join(", "),
    );
  }
  return (await ctx.userGraphs(owner)).graphs.get(assistantId)!;
}

/**
 * The graph that last ran on the thread (a run of this process whose record is not saved yet
 * first), or an error saying to start a run first.
 */
export async function threadGraphId(scope: CommandScope): Promise<string> {
  const latest = scope.ctx.runs.list(scope.threadId)[0]?.assistant_id;
  const id = latest ?? (await scope.record()).view.metadata.graph_id;
  if (typeof id === "string") return id;
  throw new CommandError("no_such_run", "the thread has no run yet; send run.start first");
}

/** Starts a run on the thread (admitted by the run lifecycle); resolves with its id. */
export async function startRun(
  scope: CommandScope,
  body: RunCreate,
  options: { resumes?: boolean } = {},
): Promise<string> {
  const { ctx, owner, threadId, request } = scope;
  checkRunMetadata(body.metadata, body.assistant_id);
  checkInputSize(body, ctx.maxInputBytes);
  const graph = await graphNamed(ctx, owner, body.assistant_id);
  const mine = await ctx.userGraphs(owner);
  try {
    await requireStartCheckpoint(mine.checkpointer, threadId, body);
  } catch (error) {
    if (error instanceof HttpProblem) throw new CommandError("no_such_checkpoint", error.message);
    throw error;
  }
  const log = ctx.events.log(threadId);
  // A resumed run's stream must not replay the paused run's end (as the reference server), nor
  // a new run's the previous run's: the SDK opens its stream after run.start's answer and takes
  // the first values it gets as the run's. A run queued behind a live one keeps the live run's.
  if (options.resumes || (await log.quiet())) await log.clear();
  const userId = ctx.auth ? owner : undefined;
  const report = (error: unknown) => ctx.report(error, request);
  const run = await ctx.lifecycle.admit({
    owner,
    threadId,
    graph,
    body,
    userId,
    checkpointer: mine.checkpointer,
    report,
    ...protocolRun({ graph, log, userId, report }),
  });
  log.live++;
  void run.done.then(() => {
    log.live--;
  });
  return run.run_id;
}

/** `run.start`: input, or the answer to a pending interrupt, or a fork from a checkpoint. */
export async function runStart(scope: CommandScope, params: Json, isNew: boolean): Promise<string> {
  const { ctx, owner, threadId } = scope;
  const config = record(params, "config");
  const configurable = config ? record(config, "configurable") : undefined;
  const forkFrom = configurable?.checkpoint_id;
  const fork = typeof forkFrom === "string" && forkFrom !== "" ? forkFrom : undefined;
  const graph = await graphNamed(ctx, owner, params.assistant_id);
  const input = params.input ?? null;
  // The protocol's state machine: input to an interrupted thread is the interrupt's answer.
  const resumes =
    input !== null && !isNew && fork === undefined && (await hasPendingInterrupt(graph, threadId));
  const body: RunCreate = {
    assistant_id: params.assistant_id as string,
    ...(resumes ? { command: { resume: input } } : { input }),
    config: {
      ...(config ?? {}),
      configurable: { ...(configurable ?? {}) },
    },
    metadata: record(params, "metadata") ?? {},
    ...(fork !== undefined ? { checkpoint_id: fork } : {}),
    multitask_strategy: strategyOf(params),
  };
  return startRun(scope, body, { resumes });
}

/** The interrupts `input.respond` answers: `{ interrupt_id, response }` or `responses[]`. */
function answers(params: Json): Json {
  const resume: Json = {};
  if (Array.isArray(params.responses)) {
    for (const entry of params.responses) {
      if (!isRecord(entry) || typeof entry.interrupt_id !== "string") {
        throw new CommandError("invalid_argument", "responses[]: each needs an interrupt_id");
      }
      resume[entry.interrupt_id] = entry.response;
    }
  } else if (typeof params.interrupt_id === "string") {
    resume[params.interrupt_id] = params.response;
  }
  if (Object.keys(resume).length === 0) {
    throw new CommandError(
      "invalid_argument",
      "input.respond needs interrupt_id and response (or responses[])",
    );
  }
  return resume;
}

/** The ids of the thread's pending interrupts (its subgraphs' included). */
async function pendingInterruptIds(graph: RunnableGraph, threadId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  const visit = (tasks: readonly { interrupts?: unknown[]; state?: unknown }[]) => {
    for (const task of tasks) {
      for (const item of task.interrupts ?? []) {
        const id = (item as { id?: unknown }).id;
        if (typeof id === "string") ids.add(id);
      }
      const sub = task.state as { tasks?: typeof tasks } | undefined;
      if (sub && Array.isArray(sub.tasks)) visit(sub.tasks);
    }
  };
  const state = await graph.getState(
    { configurable: { thread_id: threadId } },
    { subgraphs: true },
  );
  visit(state.tasks);
  return ids;
}

/** `input.respond`: resumes the thread's pending interrupts with the answers given. */
export async function inputRespond(scope: CommandScope, params: Json): Promise<string> {
  const { ctx, owner, threadId } = scope;
  const resume = answers(params);
  const assistantId = await threadGraphId(scope);
  const graph = await graphNamed(ctx, owner, assistantId);
  const pending = await pendingInterruptIds(graph, threadId);
  for (const id of Object.keys(resume)) {
    if (!pending.has(id)) {
      throw new CommandError(
        "no_such_interrupt",
        `interrupt ${id} is not pending on this thread (answered already, or never asked); ` +
          "read the thread's state for the pending ones",
      );
    }
  }
  const update = params.update;
  const goto = params.goto;
  const config = record(params, "config");
  const body: RunCreate = {
    assistant_id: assistantId,
    command: {
      resume,
      ...(isRecord(update) || Array.isArray(update) ? { update } : {}),
      ...(goto != null ? { goto } : {}),
    },
    ...(config ? { config } : {}),
    metadata: record(params, "metadata") ?? {},
    multitask_strategy: "enqueue",
  };
  return startRun(scope, body, { resumes: true });
}

/** `input.inject`: the message as the next input of the thread's graph (after its live run). */
export async function inputInject(scope: CommandScope, params: Json): Promise<string> {
  const message = record(params, "message");
  const role = message?.role;
  if (!message || (role !== "user" && role !== "system") || typeof message.content !== "string") {
    throw new CommandError(
      "invalid_argument",
      'message: needs role "user" or "system" and a string content',
    );
  }
  const input = {
    messages: [
      {
        type: role === "user" ? "human" : "system",
        content: message.content,
        ...(typeof message.name === "string" ? { name: message.name } : {}),
      },
    ],
  };
  const body: RunCreate = {
    assistant_id: await threadGraphId(scope),
    input,
    multitask_strategy: "enqueue",
  };
  return startRun(scope, body);
}

/** `state.fork`: a run from the checkpoint, with the input given (a new branch of the thread). */
export async function stateFork(scope: CommandScope, params: Json): Promise<string> {
  if (typeof params.checkpoint_id !== "string" || params.checkpoint_id === "") {
    throw new CommandError("invalid_argument", "checkpoint_id: name the checkpoint to fork from");
  }
  const config = record(params, "config");
  const body: RunCreate = {
    assistant_id: await threadGraphId(scope),
    input: params.input ?? null,
    config: {
      ...(config ?? {}),
      configurable: { ...(config ? record(config, "configurable") : {}) },
    },
    checkpoint_id: params.checkpoint_id,
    multitask_strategy: "enqueue",
  };
  return startRun(scope, body);
}
