/**
 * What a client of several instances does with a run, written against the SDK's `Client`: follow
 * its events to the end even when the instance serving the stream goes away (rejoin through the
 * load balancer with the last event id seen, as `useStream` does on a reload), and read back the
 * thread's messages.
 */
import type { Client } from "@langchain/langgraph-sdk";
import { say, texts } from "../integration/server/scripts";
import type { GateServer } from "./gate-server";
import { gateName, type STEPS } from "./graphs";

export interface FollowedEvent {
  id: string | undefined;
  event: string;
  data: unknown;
}

export interface Followed {
  events: FollowedEvent[];
  /** How many times the stream broke or ended early and was joined again. */
  rejoins: number;
}

type Part = { id?: string | undefined; event: string; data: unknown };

const TERMINAL = new Set(["success", "error", "interrupted", "timeout"]);

/**
 * Reads `stream` (a run's stream, or a join of `options.runId`), then, while the run is not over, joins it again
 * through `client` from the last event id seen (at most `maxRejoins` times). A break (the
 * instance was killed or shut down) and an end while the run still runs are both rejoined.
 */
export async function follow(
  client: Client,
  threadId: string,
  stream: AsyncIterable<Part>,
  options: { runId?: string; maxRejoins?: number } = {},
): Promise<Followed> {
  const maxRejoins = options.maxRejoins ?? 4;
  const events: FollowedEvent[] = [];
  let rejoins = 0;
  let current = stream;
  for (;;) {
    let broke = false;
    try {
      for await (const part of current) {
        events.push({ id: part.id, event: part.event, data: part.data });
      }
    } catch {
      // The connection broke: rejoin below.
      broke = true;
    }
    const id = options.runId ?? runIdOf(events);
    if (!id) throw new Error("the run's stream ended before it said its run id");
    const run = await retried(() => client.runs.get(threadId, id));
    // A stream that ended is the whole run once the run has; one that broke may have missed
    // the run's last events, which a rejoin replays (the run may have ended meanwhile).
    if (TERMINAL.has(run.status) && !broke) return { events, rejoins };
    if (rejoins >= maxRejoins) {
      throw new Error(`run ${id} still ${run.status} after ${rejoins} rejoins`);
    }
    rejoins++;
    const lastEventId = events.findLast((e) => e.id !== undefined)?.id ?? "-1";
    current = client.runs.joinStream(threadId, id, { lastEventId, streamMode: ["values"] });
  }
}

/** The run id of a stream's `metadata` event, once it came. */
export function runIdOf(events: readonly FollowedEvent[]): string | undefined {
  const metadata = events.find((e) => e.event === "metadata")?.data as
    | { run_id?: string }
    | undefined;
  return metadata?.run_id;
}

/** The messages' texts of the last `values` event. */
export function lastValues(events: readonly FollowedEvent[]): string[] {
  return texts(events.findLast((e) => e.event === "values")?.data ?? {});
}

/** The thread's messages, as a page shows them, read through `client`. */
export async function threadTexts(client: Client, threadId: string): Promise<string[]> {
  return texts((await retried(() => client.threads.getState(threadId))).values);
}

/**
 * Whether `error` says the instance that had the request went away while answering (the proxy's
 * 502, or the connection broke): the request may be sent again through another instance.
 */
export function instanceWentAway(error: unknown): boolean {
  const status = (error as { status?: number }).status;
  return status === 502 || status === undefined;
}

/**
 * `call` again (at most 3 times) when its instance went away while answering, as a load
 * balancer retries an idempotent request; and, at most 50 times 100 ms apart, while it answers
 * 503 (its instance reconnecting to a Redis that restarted, as the docs tell a client to retry).
 * Only for reads and other calls safe to repeat.
 */
export async function retried<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1, reconnecting = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if ((error as { status?: number }).status === 503 && reconnecting++ < 50) {
        attempt--;
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      if (!instanceWentAway(error) || attempt >= 3) throw error;
    }
  }
}

let counter = 0;
/** A text no other run of the file sends: the gates are named after it. */
export function unique(label: string): string {
  counter++;
  return `${label}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export { statusOf } from "../integration/server/harness";

/** Holds `text`'s run of `steps` at `step`: resolves once it got there, lets it go on, says who. */
export function holdStep(gates: GateServer, text: string, step: (typeof STEPS)[number]) {
  const name = gateName(text, step);
  gates.hold(name);
  return {
    reached: (times = 1) => gates.arrived(name, times),
    open: () => gates.open(name),
    by: () => gates.reachedBy(name),
  };
}

/** The instance index (0, 1, 2) a gate's caller named. */
export function instanceIndex(instanceId: string | undefined): number {
  return Number(/instance-(\d+)/.exec(instanceId ?? "")?.[1] ?? -1);
}

/**
 * Each step's checkpoint stored before the next step starts: "the run reached step two" then
 * means step one is in the service, whatever the machine's load, so a test can assert it.
 */
export const SYNC = { durability: "sync" } as const;

/** A background run of `steps` on `threadId` sent through `client`; resolves with its id. */
export async function startSteps(
  client: Client,
  threadId: string,
  text: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  return (await client.runs.create(threadId, "steps", { input: say(text), ...extra })).run_id;
}
