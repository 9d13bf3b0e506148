/**
 * Protocol v2 routes, beside v1 on the same threads and runs: commands, and the thread's event
 * stream over SSE (`POST`).
 */
import { ownThreadId, readBody, type ServerContext } from "../context";
import { json } from "../http";
import { type RouteEntry, route } from "../router";
import { handleCommand, parseCommand } from "./commands";
import { eventStream, parseEventFilter } from "./event-stream";
import { failure } from "./responses";

export function protocolRoutes(ctx: ServerContext): RouteEntry[] {
  return [
    route("POST", "/threads/:thread_id/commands", async (request, owner, p) => {
      // Noted before any await: a stream that asks after this command reached the server waits
      // for its answer (`EventLogs#settled`), whatever its own look-up costs.
      const done = ctx.events.begin(owner, p.thread_id ?? "");
      try {
        return await answer(request, owner, p.thread_id ?? "");
      } finally {
        done();
      }
    }),
    route("POST", "/threads/:thread_id/stream/events", async (request, owner, p) => {
      const filter = parseEventFilter(await readBody(ctx, request));
      const threadId = await ownThreadId(ctx, owner, p.thread_id ?? "");
      // Before the replay is taken: an `input.respond` being handled drops the paused run's
      // events, which this stream must not replay.
      await ctx.events.settled(owner, p.thread_id ?? "");
      // With `coordination`, the thread's events are shared: any instance serves the stream.
      return eventStream(ctx.events.log(threadId), filter, ctx.heartbeatMs);
    }),
  ];

  async function answer(request: Request, owner: string, threadId: string): Promise<Response> {
    const command = parseCommand(await readBody(ctx, request));
    if (!command) {
      return json(
        failure(
          null,
          "invalid_argument",
          "a command needs an integer id, a string method and object params",
        ),
        400,
      );
    }
    return json(await handleCommand(ctx, owner, threadId, command, request));
  }
}
