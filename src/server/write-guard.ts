/**
 * The checkpointer as the graphs see it, guarding deleted threads. A run that is cancelled (a
 * DELETE, a cancel) ends before LangGraph's last `put` / `putWrites` calls have finished; deleting
 * the thread's checkpoints then leaves those writes behind, a conversation the user deleted.
 * LangGraph even queues a run's writes one after another, so some are called only after the run
 * has ended. `forbid(threadId)` makes every later write of the thread a no-op, and
 * `settled(threadId)` waits for the ones already called (counted by `threads/in-flight.ts`, the
 * tracker the checkpointer's write order uses too).
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { InFlight, RecentKeys } from "../threads/in-flight";

export interface WriteGuard {
  /** The checkpointer to give the graphs (every call goes to the one passed in). */
  saver: BaseCheckpointSaver;
  /** Another checkpointer (a user's view of the same one) guarded by the same rules. */
  wrap(checkpointer: BaseCheckpointSaver): BaseCheckpointSaver;
  /** Resolves once the thread has no write in flight (however each one ended). */
  settled(threadId: string): Promise<void>;
  /** The thread is being deleted: its writes from now on are dropped, never stored. */
  forbid(threadId: string): void;
  /** The delete failed: the thread's writes are stored again. */
  allow(threadId: string): void;
  /** True from `forbid` until `allow` (for the last `FORBIDDEN_KEPT` threads forbidden). */
  forbidden(threadId: string): boolean;
}

const TRACKED = new Set<PropertyKey>(["put", "putWrites"]);

// biome-ignore lint/suspicious/noExplicitAny: any method of the saver, called as it was given
type Method = (...args: any[]) => unknown;

/**
 * Deleted thread ids remembered to drop their late writes. Service thread ids are never reused,
 * and a cancelled run's queued writes come within moments of its end, so the oldest go first.
 */
const FORBIDDEN_KEPT = 10_000;

export function guardWrites(checkpointer: BaseCheckpointSaver): WriteGuard {
  const inFlight = new InFlight();
  const forbidden = new RecentKeys<true>(FORBIDDEN_KEPT);

  // A proxy, not a subclass or `Object.create`: the saver's own methods run with `this` the saver
  // itself (its `#private` fields), and `instanceof BaseCheckpointSaver` still holds. Each
  // method's stand-in is made once per saver and method, not on every read: LangGraph reads the
  // saver's methods many times per step (a new bound function each time was 4 % of a run's CPU).
  const wrap = (checkpointer: BaseCheckpointSaver) => {
    const made = new Map<PropertyKey, { value: unknown; standIn: unknown }>();
    const standIn = (target: BaseCheckpointSaver, property: PropertyKey, value: Method) => {
      if (!TRACKED.has(property)) return value.bind(target);
      return (config: { configurable?: Record<string, unknown> }, ...rest: unknown[]) => {
        const threadId = config?.configurable?.thread_id;
        if (typeof threadId !== "string") return value.call(target, config, ...rest);
        if (forbidden.has(threadId)) {
          // What `put` answers (the checkpoint's config); `putWrites` answers nothing.
          const checkpoint = rest[0] as { id?: unknown } | undefined;
          return Promise.resolve(
            property === "put"
              ? { configurable: { ...config.configurable, checkpoint_id: checkpoint?.id } }
              : undefined,
          );
        }
        return inFlight.track(threadId, Promise.resolve(value.call(target, config, ...rest)));
      };
    };
    return new Proxy(checkpointer, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        const known = made.get(property);
        // A method replaced on the saver gets a new stand-in.
        if (known !== undefined && known.value === value) return known.standIn;
        const fresh = standIn(target, property, value as Method);
        made.set(property, { value, standIn: fresh });
        return fresh;
      },
    });
  };

  return {
    saver: wrap(checkpointer),
    wrap,
    allow: (threadId) => forbidden.delete(threadId),
    forbid: (threadId) => forbidden.set(threadId, true),
    forbidden: (threadId) => forbidden.has(threadId),
    settled: (threadId) => inFlight.settled(threadId),
  };
}
