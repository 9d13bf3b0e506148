/**
 * Starting a run, as every run route does it (streamed, background, wait, stateless): the body
 * read and checked, the owner's thread and graph found, the run admitted by the run lifecycle.
 * Everything that can refuse the run refuses it here, before anything is written.
 */
import { ownThreadId, readBody, runnableAssistant, type ServerContext } from "./context";
import { HttpProblem } from "./http";
import {
  parseBody,
  parseListQuery,
  type RunCreate,
  RunCreateSchema,
  RunStreamQuerySchema,
} from "./requests";
import { checkRunMetadata } from "./reserved-metadata";
import { checkInputSize, requireStartCheckpoint } from "./run-admission";
import { checkRunFields, wantsSubgraphs } from "./run-fields";
import type { RunRecord } from "./runs";
import { blankThread, createChosen } from "./v2/thread-create";

/** A run create's body and the namespaces its stream was asked for (`?namespace=`). */
export interface RunAsk {
  body: RunCreate;
  namespace: string | string[] | undefined;
}

/**
 * The request's run, checked: its body (a 422 naming a field), its input's size (413), its
 * metadata, the fields the server cannot honour (`run-fields.ts`).
 */
export async function readRunAsk(
  ctx: ServerContext,
  request: Request,
  url: URL,
  stateless: boolean,
): Promise<RunAsk> {
  const body = parseBody(RunCreateSchema, await readBody(ctx, request));
  const { namespace } = parseListQuery(RunStreamQuerySchema, url);
  checkRunMetadata(body.metadata, body.assistant_id);
  checkInputSize(body, ctx.maxInputBytes);
  checkRunFields(body, stateless);
  // Events of a subgraph's namespace exist only when the run streams its subgraphs.
  if (wantsSubgraphs(namespace)) body.stream_subgraphs = true;
  return { body, namespace };
}

/**
 * The run's graph and checkpointer as `owner` runs them: a graph given in code or one of the
 * service's assistants (`runnableAssistant`); a 404 for an assistant the server does not have.
 */
export async function requireAssistant(ctx: ServerContext, owner: string, body: RunCreate) {
  const mine = await runnableAssistant(ctx, owner, body.assistant_id);
  if (!mine) throw new HttpProblem(404, "Not Found", `Assistant ${body.assistant_id} not found`);
  return mine;
}

/**
 * The owner's thread id for a run on `threadParam` (only who owns it is read: the record itself
 * is read when the run ends): a 404, or with `if_not_exists: "create"` a new thread under that
 * id, as `POST /threads` with `thread_id` creates it.
 */
async function runThread(ctx: ServerContext, owner: string, threadParam: string, body: RunCreate) {
  try {
    return await ownThreadId(ctx, owner, threadParam);
  } catch (error) {
    if (!(error instanceof HttpProblem) || error.status !== 404) throw error;
    if (body.if_not_exists !== "create") throw error;
    const metadata: Record<string, unknown> = {};
    if (ctx.auth) metadata.owner = owner;
    if (ctx.graphs.has(body.assistant_id)) metadata.graph_id = body.assistant_id;
    const created = await createChosen(ctx, owner, threadParam, blankThread(new Date(), metadata));
    return created.stored.view.thread_id;
  }
}

/**
 * Admits the run on the owner's thread `threadId` (or `threadParam`, read from the path).
 * `background`: no client streams it from here (`POST .../runs`, the `wait` routes, whose client
 * waits for its end through the run directory from any instance), so with a coordination
 * backend any instance with a free worker slot may run it.
 */
export async function startRun(
  ctx: ServerContext,
  request: Request,
  owner: string,
  ask: RunAsk,
  thread: { param: string } | { id: string; temporary: boolean },
  background = false,
): Promise<RunRecord> {
  const { body } = ask;
  const threadId = "param" in thread ? await runThread(ctx, owner, thread.param, body) : thread.id;
  const { graph, checkpointer } = await requireAssistant(ctx, owner, body);
  await requireStartCheckpoint(checkpointer, threadId, body);
  return ctx.lifecycle.admit({
    owner,
    threadId,
    graph,
    body,
    userId: ctx.auth ? owner : undefined,
    checkpointer,
    report: (error) => ctx.report(error, request),
    temporary: "temporary" in thread && thread.temporary,
    background,
  });
}

/** The run's `on_disconnect`: true when the run goes on after its stream's reader leaves. */
export function continuesWithoutReader(run: RunRecord, body: RunCreate): boolean {
  return body.on_disconnect ? body.on_disconnect === "continue" : run.resumable;
}
