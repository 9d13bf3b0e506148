/**
 * The run request of a run another instance started and this one takes over (`coordination.ts`,
 * rule 10 of `run-lifecycle.ts`): its graph as its owner runs it here, its errors reported with
 * a request naming the run (no client's request is behind it). A protocol v2 run stays one: it
 * goes on streaming into the thread's shared v2 events.
 */
import { runnableAssistant, type ServerContext } from "./context";
import type { SharedRun } from "./coordination";
import type { RunRequest } from "./run-lifecycle";
import { protocolRun } from "./v2/protocol-run";

export async function takenOverRequest(
  ctx: ServerContext,
  shared: SharedRun,
  internal: (path: string) => Request,
): Promise<RunRequest | undefined> {
  const found = await runnableAssistant(ctx, shared.owner, shared.body.assistant_id);
  if (!found) return undefined;
  const threadId = String(shared.run.thread_id);
  const where = internal(`${ctx.prefix}/threads/${threadId}/runs/${String(shared.run.run_id)}`);
  const report = (error: unknown) => ctx.report(error, where);
  const v2 =
    shared.protocol === "v2"
      ? protocolRun({
          graph: found.graph,
          log: ctx.events.log(threadId),
          userId: shared.userId,
          report,
          takenOver: true,
        })
      : {};
  return {
    owner: shared.owner,
    threadId,
    graph: found.graph,
    body: shared.body,
    userId: shared.userId,
    checkpointer: found.checkpointer,
    report,
    temporary: shared.temporary,
    ...v2,
  };
}
