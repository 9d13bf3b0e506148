/**
 * A thread under an id the client chose: the owner's thread of that id when there is one, else a
 * new one (`POST /threads` with `thread_id`, and protocol v2's `run.start` on a new id).
 */
import type { ServerContext } from "../context";
import type { StoredThread } from "../thread-records";
import type { ThreadView } from "../thread-view";

export async function createChosen(
  ctx: ServerContext,
  owner: string,
  clientId: string,
  view: Omit<ThreadView, "thread_id">,
): Promise<{ stored: StoredThread; created: boolean }> {
  const existing = await ctx.threadIds.find(owner, clientId);
  if (existing) return { stored: existing, created: false };
  return ctx.threadIds.create(owner, clientId, view);
}

/** A new thread's record as `POST /threads` writes it with no metadata, at `now`. */
export function blankThread(now: Date, metadata: Record<string, unknown>) {
  const at = now.toISOString();
  return {
    created_at: at,
    updated_at: at,
    metadata,
    status: "idle" as const,
    values: {},
    interrupts: {},
    title: null,
    preview: null,
  };
}
