/**
 * `POST /threads/:id/commands`: one protocol v2 command, answered with the protocol's `success`
 * or `error` (an unknown method is `unknown_command` naming it). `run.start` on an id the owner
 * has no thread under creates the thread under that id; every other command needs the thread
 * (another user's is not found either).
 */
import { graphOf, type ServerContext, threadIdOf } from "../context";
import { HttpProblem } from "../http";
import type { StoredThread } from "../thread-records";
import { CommandError, errorCode, failure, type ResponseMeta, success } from "./responses";
import { type CommandScope, inputInject, inputRespond, runStart, stateFork } from "./run-commands";
import { listCheckpoints, stateGet } from "./state-commands";
import { blankThread } from "./thread-create";

type Json = Record<string, unknown>;

export interface ProtocolCommand {
  id: number;
  method: string;
  params: Json;
}

/** The command in a request body, or undefined when it is not one. */
export function parseCommand(body: unknown): ProtocolCommand | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { id, method, params } = body as Json;
  if (typeof id !== "number" || !Number.isInteger(id) || id < 0) return undefined;
  if (typeof method !== "string") return undefined;
  if (params != null && (typeof params !== "object" || Array.isArray(params))) return undefined;
  return { id, method, params: (params ?? {}) as Json };
}

/** The thread a command is on: its service id, and its record once read. */
interface Target {
  threadId: string;
  stored?: StoredThread | undefined;
  created: boolean;
}

/**
 * The thread a command is for: created by `run.start` when the owner has none of that id. A
 * thread this process has seen costs no call here: only the commands that need its record read
 * it (`CommandScope.record`).
 */
async function threadFor(
  ctx: ServerContext,
  owner: string,
  id: string,
  command: ProtocolCommand,
): Promise<Target> {
  const found = await ctx.threadIds.locate(owner, id);
  if (found) return { threadId: found.serviceId, stored: found.stored, created: false };
  if (command.method !== "run.start") {
    throw new HttpProblem(404, "Not Found", `Thread ${id} not found; send run.start to create it`);
  }
  const metadata: Json = {};
  if (ctx.auth) metadata.owner = owner;
  const graphId = command.params.assistant_id;
  if (typeof graphId === "string" && ctx.graphs.has(graphId)) metadata.graph_id = graphId;
  // The look-up above found none: straight to the creation (which checks for a concurrent one).
  // The run starts at once, and its end reads the record back: held for that read.
  const { stored, created } = await ctx.threadIds.create(
    owner,
    id,
    blankThread(new Date(), metadata),
    { heldForRead: true },
  );
  return { threadId: stored.view.thread_id, stored, created };
}

/** The thread's record, read once when first asked for (a 404 when it is gone). */
function recordOf(ctx: ServerContext, owner: string, target: Target): () => Promise<StoredThread> {
  let read: Promise<StoredThread> | undefined;
  return () => {
    read ??= target.stored
      ? Promise.resolve(target.stored)
      : ctx.records.get(owner, target.threadId).then((stored) => {
          if (!stored) throw new HttpProblem(404, "Not Found", "Thread not found");
          return stored;
        });
    return read;
  };
}

/** The command's answer; `id` is the thread's id as the command named it. */
async function result(scope: CommandScope, command: ProtocolCommand, created: boolean, id: string) {
  const { ctx, owner, threadId } = scope;
  const { params } = command;
  switch (command.method) {
    case "run.start":
      return { run_id: await runStart(scope, params, created) };
    case "input.respond":
      return { run_id: await inputRespond(scope, params) };
    case "input.inject":
      await inputInject(scope, params);
      return {};
    case "state.get":
      return stateGet(await graphOf(ctx, owner, (await scope.record()).view), threadId, params);
    case "state.listCheckpoints":
      return listCheckpoints(
        await graphOf(ctx, owner, (await scope.record()).view),
        threadId,
        params,
      );
    case "state.fork":
      return { run_id: await stateFork(scope, params), thread_id: id };
    case "agent.getTree":
      return { tree: await ctx.events.log(threadId).tree() };
    default:
      throw new CommandError("unknown_command", `Unknown protocol command: ${command.method}`);
  }
}

export async function handleCommand(
  ctx: ServerContext,
  owner: string,
  param: string,
  command: ProtocolCommand,
  request: Request,
): Promise<Json> {
  const id = threadIdOf(param);
  if (
    command.method === "subscription.subscribe" ||
    command.method === "subscription.unsubscribe"
  ) {
    // Over HTTP each event stream carries its own filter: there is nothing to keep (as the
    // reference server); the WebSocket keeps its subscriptions itself (`websocket.ts`).
    const subscribed = command.method === "subscription.subscribe";
    return success(command.id, subscribed ? { subscription_id: crypto.randomUUID() } : {});
  }
  const target = await threadFor(ctx, owner, id, command);
  const { threadId } = target;
  const scope: CommandScope = {
    ctx,
    owner,
    threadId,
    record: recordOf(ctx, owner, target),
    request,
  };
  // The thread under the id the command named (as the reference server answers).
  // Left out when the thread's last `seq` cannot be read (the shared log's Redis is down).
  const meta = async (): Promise<ResponseMeta | undefined> => {
    const seq = await ctx.events
      .log(threadId)
      .lastSeqNow()
      .catch(() => undefined);
    return seq === undefined ? undefined : { thread_id: id, applied_through_seq: seq };
  };
  try {
    const answer = await result(scope, command, target.created, id);
    return success(command.id, answer, await meta());
  } catch (error) {
    // No run will read the record it was held for.
    if (target.created) ctx.records.release(threadId);
    if (error instanceof CommandError || (error instanceof HttpProblem && error.status !== 404)) {
      return failure(command.id, errorCode(error), error.message, await meta());
    }
    throw error;
  }
}
