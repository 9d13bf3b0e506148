/**
 * Where the backend keeps things in Redis, under one prefix (`keyPrefix`, default `lcs:`), so
 * several servers (or tenants) can share a Redis. One Redis node (or a primary with replicas):
 * the scripts touch a thread's keys and the shared `due` set together, which Redis Cluster's
 * slots do not allow.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  /** The thread's runs that have not ended, in admission order. */
  live(threadId: string): string {
    return `${this.prefix}t:${threadId}:live`;
  }
  lease(threadId: string): string {
    return `${this.prefix}t:${threadId}:lease`;
  }
  fence(threadId: string): string {
    return `${this.prefix}t:${threadId}:fence`;
  }
  /** The thread's runs by creation time (the run list). */
  runs(threadId: string): string {
    return `${this.prefix}t:${threadId}:runs`;
  }
  /** Threads whose head should be running by a time (see `scripts.ts`). */
  get due(): string {
    return `${this.prefix}due`;
  }
  /** The run's record (a hash). */
  run(runId: string): string {
    return `${this.runPrefix}${runId}`;
  }
  get runPrefix(): string {
    return `${this.prefix}r:`;
  }
  /** The run's events (a stream). */
  events(runId: string): string {
    return `${this.prefix}e:${runId}`;
  }
  /** The thread's protocol v2 events (a stream, entry id `0-<seq>`; `v2-events.ts`). */
  v2Events(threadId: string): string {
    return `${this.prefix}v2:${threadId}`;
  }
  /** How many commands on the owner's thread (the id the client named) instances handle now. */
  v2Commands(owner: string, threadId: string): string {
    return `${this.prefix}v2c:${JSON.stringify([owner, threadId])}`;
  }
  /** Set when the run was cancelled (a run that has not started yet reads it at its turn). */
  cancel(runId: string): string {
    return `${this.cancelPrefix}${runId}`;
  }
  get cancelPrefix(): string {
    return `${this.prefix}c:`;
  }
  /** Pub/sub: run ids to cancel; thread ids whose head changed. */
  get cancelChannel(): string {
    return `${this.prefix}cancel`;
  }
  get wakeChannel(): string {
    return `${this.prefix}wake`;
  }
  /**
   * Threads whose head is a background run no instance has started yet, by when it became
   * ready (`ready-queue.ts`). `CLAIM` builds a thread's keys from `threadPrefix` itself.
   */
  get ready(): string {
    return `${this.prefix}ready`;
  }
  get threadPrefix(): string {
    return `${this.prefix}t:`;
  }
  /** Pub/sub: a thread just joined `ready` (instances with a free slot claim it). */
  get readyChannel(): string {
    return `${this.prefix}ready-wake`;
  }
}

/** A run's event number as its stream entry id (entry ids start above 0-0). */
export function entryId(seq: number): string {
  return `0-${seq + 1}`;
}

/** The id after which a reader resumes for `Last-Event-ID` `lastEventId` (all: none given). */
export function resumeAfter(lastEventId: string | undefined): string {
  const n = lastEventId === undefined ? Number.NaN : Number.parseInt(lastEventId, 10);
  return Number.isFinite(n) && n >= 0 ? entryId(n) : "0-0";
}

/** The entry that marks a run's end: after every event (whose ids are 0-n). */
export const END_ENTRY = "1-0";
