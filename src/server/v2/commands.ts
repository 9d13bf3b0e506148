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
import { blankThread, createChosen } from "./thread-create";

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

/** The thread a command is for: created by `run.start` when the owner has none of that id. */
async function threadFor(
  ctx: ServerContext,
  owner: string,
  id: string,
  command: ProtocolCommand,
): Promise<{ stored: StoredThread; created: boolean }> {
  const found = await ctx.threadIds.find(owner, id);
  if (found) return { stored: found, created: false };
  if (command.method !== "run.start") {
    throw new HttpProblem(404, "Not Found", `Thread ${id} not found; send run.start to create it`);
  }
  const metadata: Json = {};
  if (ctx.auth) metadata.owner = owner;
  const graphId = command.params.assistant_id;
  if (typeof graphId === "string" && ctx.graphs.has(graphId)) metadata.graph_id = graphId;
  return createChosen(ctx, owner, id, blankThread(new Date(), metadata));
}

async function result(scope: CommandScope, command: ProtocolCommand, created: boolean) {
  const { ctx, owner, stored } = scope;
  const { params } = command;
  const threadId = stored.view.thread_id;
  switch (command.method) {
    case "run.start":
      return { run_id: await runStart(scope, params, created) };
    case "input.respond":
      return { run_id: await inputRespond(scope, params) };
    case "input.inject":
      await inputInject(scope, params);
      return {};
    case "state.get":
      return stateGet(await graphOf(ctx, owner, stored.view), threadId, params);
    case "state.listCheckpoints":
      return listCheckpoints(await graphOf(ctx, owner, stored.view), threadId, params);
    case "state.fork":
      return {
        run_id: await stateFork(scope, params),
        thread_id: stored.view.client_thread_id ?? threadId,
      };
    case "agent.getTree":
      return { tree: ctx.events.of(threadId).agents.tree() };
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
  const { stored, created } = await threadFor(ctx, owner, id, command);
  const threadId = stored.view.thread_id;
  const meta = (): ResponseMeta => ({
    thread_id: stored.view.client_thread_id ?? threadId,
    applied_through_seq: ctx.events.of(threadId).lastSeq,
  });
  try {
    const answer = await result({ ctx, owner, stored, request }, command, created);
    return success(command.id, answer, meta());
  } catch (error) {
    if (error instanceof CommandError || (error instanceof HttpProblem && error.status !== 404)) {
      return failure(command.id, errorCode(error), error.message, meta());
    }
    throw error;
  }
}
