/**
 * Runs coordinated across instances through one Redis (`coordination.ts` says what for). What
 * each operation costs in Redis commands is in `docs/deployment.md`; the atomic parts are the
 * scripts of `scripts.ts`. Three connections per instance: commands, pub/sub (cancels and
 * wake-ups), and one more per stream read from another instance (a blocking `XREAD`).
 */
import { StudioError, StudioStoredFormatError } from "../../errors";
import type {
  CoordinationHooks,
  RunCoordination,
  RunHandle,
  SharedRun,
  Turn,
} from "../coordination";
import { HttpProblem } from "../http";
import type { RunEvent, RunRecord } from "../runs";
import { delay, unrefTimer as unref, withinTime } from "../timers";
import { hashOf, type RedisClientLike, readAfter, Scripts } from "./connection";
import { END_ENTRY, entryId, RedisKeys, resumeAfter } from "./keys";
import { type Claimed, ReadyQueue } from "./ready-queue";
import { RemoteRun } from "./remote-run";
import { ACQUIRE, ADMIT, APPEND, END, RENEW, TAKE_OVER } from "./scripts";
import { RedisV2Events } from "./v2-events";

export interface RedisCoordinationSettings {
  /** The client whose settings the backend's connections copy (built when first needed). */
  base: () => Promise<RedisClientLike>;
  keyPrefix: string;
  instanceId: string;
  leaseMs: number;
  maxBackgroundRuns: number;
  eventTtlSeconds: number;
  recordTtlSeconds: number;
  maxEventsPerRun: number;
}

/**
 * The format of the run records this version writes (`docs/storage.md`, "In Redis"); a record
 * of a newer one is an error, not a run read wrongly.
 */
export const RUN_RECORD_FORMAT = 1;

/** Runs kept in a thread's run list (the oldest go first). */
const RUNS_KEPT = 100;
/** How long a request may wait for Redis before it is a 503. */
const ANSWER_TIMEOUT_MS = 3_000;
/** The largest entry id a run's events have: reading after it waits for the end marker only. */
const AFTER_ALL_EVENTS = "0-18446744073709551615";

interface Lease {
  threadId: string;
  value: string;
  timer: ReturnType<typeof setInterval>;
}

export class RedisCoordination implements RunCoordination {
  readonly #settings: RedisCoordinationSettings;
  readonly #keys: RedisKeys;
  // Set by `#connect`, which every entry point awaits before it uses them.
  #cmd!: RedisClientLike;
  #sub!: RedisClientLike;
  #scripts!: Scripts;
  #connected: Promise<void> | undefined;
  #hooks: CoordinationHooks | undefined;
  /** Runs of this instance that have not ended, by id. */
  readonly #local = new Map<string, RunRecord>();
  readonly #leases = new Map<string, Lease>();
  readonly #lost = new Set<string>();
  /** Runs waiting for their turn, by thread: each is tried again when the thread's head changes. */
  readonly #waiting = new Map<string, Set<() => void>>();
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #sweeping = false;
  #takingOver = true;
  readonly #queue: ReadyQueue;
  #closed = false;
  #down = false;
  #v2: RedisV2Events | undefined;

  constructor(settings: RedisCoordinationSettings) {
    this.#settings = settings;
    this.#keys = new RedisKeys(settings.keyPrefix);
    this.#queue = new ReadyQueue({
      ...settings,
      keys: this.#keys,
      run: (script, keys, args) => this.#scripts.run(script, keys, args),
      adopt: (claimed) => this.#adoptClaimed(claimed),
      report: (error) => this.#outage(error),
    });
  }

  get instanceId(): string {
    return this.#settings.instanceId;
  }

  attach(hooks: CoordinationHooks): void {
    this.#hooks = hooks;
    void this.#connect().catch((error: unknown) => this.#outage(error));
    const every = Math.max(50, Math.floor(this.#settings.leaseMs / 2));
    // The ready queue's fallback sweep after the takeovers': one slot's claim under way would
    // otherwise make the takeover sweep find no free slot, every time.
    this.#sweeper = setInterval(() => {
      void this.#sweep().then(() => {
        if (this.#takingOver && this.#ready()) this.#queue.sweep();
      });
    }, every);
    unref(this.#sweeper);
  }

  #connect(): Promise<void> {
    this.#connected ??= (async () => {
      const base = await this.#settings.base();
      this.#cmd = base.duplicate({ RESP: 2 });
      this.#sub = base.duplicate({ RESP: 2 });
      this.#scripts = new Scripts(this.#cmd);
      for (const client of [this.#cmd, this.#sub]) {
        client.on("error", (error) => this.#outage(error));
      }
      try {
        await Promise.all([this.#cmd.connect(), this.#sub.connect()]);
      } catch (error) {
        // A connection that failed for good (node-redis retries an unreachable Redis by
        // itself; this is a refused handshake, a bad URL): the next call starts over.
        for (const client of [this.#cmd, this.#sub]) client.destroy();
        this.#connected = undefined;
        throw error;
      }
      await this.#sub.subscribe(this.#keys.cancelChannel, (runId) => {
        this.#hooks?.cancelLocal(runId);
      });
      await this.#sub.subscribe(this.#keys.wakeChannel, (message) => {
        const handoff = message.startsWith("handoff:");
        this.#wake(handoff ? message.slice("handoff:".length) : message);
        if (handoff) void this.#sweep();
      });
      await this.#sub.subscribe(this.#keys.readyChannel, () => {
        if (this.#takingOver) this.#queue.told();
      });
    })();
    return this.#connected;
  }

  /** Reports the first error of an outage (node-redis reconnects by itself meanwhile). */
  #outage(error: unknown): void {
    if (this.#down || this.#closed) return;
    this.#down = true;
    this.#hooks?.report(
      new StudioError("The run coordinator lost Redis; reconnecting", { cause: error }),
    );
  }

  /** True once Redis answers again (clears the outage, so the next one is reported). */
  #ready(): boolean {
    const ready = this.#cmd?.isReady === true;
    if (ready) this.#down = false;
    return ready;
  }

  #unavailable(cause?: unknown): HttpProblem {
    if (cause !== undefined) this.#hooks?.report(cause);
    return new HttpProblem(
      503,
      "Service Unavailable",
      "The server's run coordinator is unreachable: runs cannot be started, read or cancelled " +
        "right now; try again in a moment",
    );
  }

  /**
   * Resolves once Redis answers, or throws the 503 at once (a request waits at most
   * `ANSWER_TIMEOUT_MS` to connect): node-redis would queue a command until Redis is back.
   */
  async #usable(): Promise<void> {
    await Promise.race([this.#connect(), delay(ANSWER_TIMEOUT_MS)]).catch(() => {});
    if (!this.#ready()) throw this.#unavailable();
  }

  /** A command a request waits for: a 503 when Redis does not answer in time. */
  async #send<T = unknown>(args: readonly string[]): Promise<T> {
    try {
      return await withinTime(this.#cmd.sendCommand<T>(args), ANSWER_TIMEOUT_MS, "a Redis answer");
    } catch (error) {
      throw this.#unavailable(error);
    }
  }

  async admit(run: RunRecord, shared: SharedRun): Promise<{ ahead: boolean }> {
    await this.#usable();
    const k = this.#keys;
    const threadId = run.thread_id;
    let reply: [string, string];
    try {
      reply = await withinTime(
        this.#scripts.run<[string, string]>(
          ADMIT,
          [k.live(threadId), k.runs(threadId), k.run(run.run_id), k.due],
          [
            run.run_id,
            run.multitask_strategy,
            String(Date.parse(run.created_at)),
            JSON.stringify(run.toJSON()),
            JSON.stringify({
              owner: shared.owner,
              userId: shared.userId,
              body: shared.body,
              protocol: shared.protocol,
              background: shared.background,
              temporary: shared.temporary,
            }),
            k.cancelPrefix,
            k.cancelChannel,
            String(Date.now()),
            String(this.#settings.leaseMs),
            threadId,
            String(RUNS_KEPT),
            String(RUN_RECORD_FORMAT),
            shared.background ? "1" : "",
          ],
        ),
        ANSWER_TIMEOUT_MS,
        "a Redis answer to an admission",
      );
    } catch (error) {
      throw this.#unavailable(error);
    }
    if (reply[0] === "busy") {
      throw new HttpProblem(
        409,
        "Conflict",
        `Thread ${threadId} is busy with run ${reply[1]}; wait, cancel it, or send ` +
          `multitask_strategy "interrupt" or "enqueue"`,
      );
    }
    this.#local.set(run.run_id, run);
    if (shared.background) this.#queue.admitted(run.run_id);
    return { ahead: Number(reply[1]) > 0 };
  }

  turn(run: RunRecord): Promise<Turn> {
    const k = this.#keys;
    const threadId = run.thread_id;
    const signal = run.controller.signal;
    const draining = run.draining.signal;
    const background = this.#queue.isBackground(run.run_id);
    return new Promise<Turn>((resolve) => {
      let settled = false;
      let trying = false;
      let again = false;
      const waiters = this.#waiting.get(threadId) ?? new Set();
      this.#waiting.set(threadId, waiters);
      const poll = setInterval(() => attempt(), Math.max(50, this.#settings.leaseMs / 2));
      unref(poll);
      const finish = (turn: Turn, after?: Promise<unknown>) => {
        if (settled) return;
        settled = true;
        clearInterval(poll);
        waiters.delete(attempt);
        if (waiters.size === 0) this.#waiting.delete(threadId);
        this.#queue.stopWaiting(run.run_id);
        signal.removeEventListener("abort", onAbort);
        draining.removeEventListener("abort", onDrain);
        const settle = () => turn;
        resolve(after?.then(settle, settle) ?? turn);
      };
      const onAbort = () => finish({ cancelled: true });
      // Draining: the run stays in line for another instance, which starts it at its turn (a
      // background run at once, from the ready queue, once marked for it).
      const onDrain = () =>
        finish(
          { elsewhere: true },
          background ? this.#queue.offer(run.run_id, threadId) : undefined,
        );
      // One attempt at a time: a second one would find this run's own lease and think it lost.
      const attempt = (): void => {
        if (settled) return;
        if (trying) {
          again = true;
          return;
        }
        trying = true;
        again = false;
        const now = Date.now();
        const acquire = () =>
          this.#scripts.run<number>(
            ACQUIRE,
            [
              k.live(threadId),
              k.lease(threadId),
              k.fence(threadId),
              k.due,
              k.cancel(run.run_id),
              k.run(run.run_id),
            ],
            [
              run.run_id,
              this.instanceId,
              String(this.#settings.leaseMs),
              String(now),
              threadId,
              new Date(now).toISOString(),
            ],
          );
        (background ? this.#queue.attempt(run.run_id, threadId, acquire) : acquire())
          .then((fence) => {
            if (settled) {
              // Taken just as the wait ended (a cancel, a drain): given back at once.
              if (fence > 0)
                void this.#handBack(
                  run.run_id,
                  threadId,
                  `${run.run_id}|${this.instanceId}|${fence}`,
                );
              return;
            }
            if (fence === -2 && background && this.#queue.claiming) {
              // A claim of this instance may hold it: it starts the run here, or the next try
              // finds it started elsewhere.
              void this.#queue.afterClaims().then(attempt);
              return;
            }
            if (fence > 0) {
              this.#hold(run.run_id, threadId, `${run.run_id}|${this.instanceId}|${fence}`);
              finish({ fence });
            } else if (fence === -1) finish({ cancelled: true });
            else if (fence === -2) finish({ elsewhere: true });
          })
          // Redis unreachable: tried again at the next wake-up or poll.
          .catch(() => {})
          .finally(() => {
            trying = false;
            if (again) attempt();
          });
      };
      if (signal.aborted) return finish({ cancelled: true });
      if (draining.aborted) return finish({ elsewhere: true });
      signal.addEventListener("abort", onAbort, { once: true });
      draining.addEventListener("abort", onDrain, { once: true });
      waiters.add(attempt);
      if (background) {
        this.#queue.waitHere(run.run_id, (fence) => {
          if (settled) return false;
          this.#hold(run.run_id, threadId, `${run.run_id}|${this.instanceId}|${fence}`);
          finish({ fence });
          return true;
        });
      }
      attempt();
    });
  }

  /** Frees a lease this instance took but will not use: due at once for another instance. */
  async #handBack(runId: string, threadId: string, value: string): Promise<void> {
    await this.#endScript(threadId, runId, { lease: value, handedOff: true }).catch(
      (error: unknown) => this.#outage(error),
    );
  }

  /** Runs `END` (see `scripts.ts`) for the run: its end, or a hand-off. */
  #endScript(
    threadId: string,
    runId: string,
    end: {
      lease: string;
      handedOff?: boolean;
      status?: string;
      updatedAt?: string;
      values?: string | undefined;
      error?: string | undefined;
      runJson?: string;
    },
  ): Promise<unknown> {
    const k = this.#keys;
    return this.#scripts.run(
      END,
      [k.live(threadId), k.lease(threadId), k.run(runId), k.events(runId), k.due, k.ready],
      [
        runId,
        end.lease,
        end.status ?? "",
        end.updatedAt ?? new Date().toISOString(),
        end.values ?? "",
        end.error ?? "",
        end.handedOff ? "1" : "",
        String(this.#settings.recordTtlSeconds),
        String(this.#settings.eventTtlSeconds),
        String(Date.now()),
        String(this.#settings.leaseMs),
        threadId,
        k.wakeChannel,
        end.runJson ?? "",
        k.runPrefix,
        k.readyChannel,
      ],
    );
  }

  #wake(threadId: string): void {
    for (const attempt of this.#waiting.get(threadId) ?? []) attempt();
  }

  /** Holds the thread's lease for `runId`, renewing it until the run ends here. */
  #hold(runId: string, threadId: string, value: string): void {
    const k = this.#keys;
    const renew = () => {
      this.#scripts
        .run<number>(
          RENEW,
          [k.lease(threadId), k.due],
          [value, String(this.#settings.leaseMs), String(Date.now()), threadId],
        )
        .then((held) => {
          if (held !== 0 || !this.#leases.has(runId)) return;
          // Another instance took the run over (this one was unreachable past the lease): it
          // goes on there, so this one stops and writes nothing more.
          this.#release(runId);
          this.#lost.add(runId);
          this.#local.get(runId)?.controller.abort();
          this.#hooks?.report(
            new StudioError(
              `Run ${runId} lost its lease on thread ${threadId} to another instance; it goes ` +
                "on there",
            ),
          );
        })
        // Unreachable: the run goes on; the lease is taken again once Redis answers (`RENEW`).
        .catch(() => {});
    };
    const timer = setInterval(renew, Math.max(20, Math.floor(this.#settings.leaseMs / 3)));
    unref(timer);
    this.#leases.set(runId, { threadId, value, timer });
  }

  #release(runId: string): Lease | undefined {
    const lease = this.#leases.get(runId);
    if (lease) clearInterval(lease.timer);
    this.#leases.delete(runId);
    return lease;
  }

  /** The threads' protocol v2 events, shared through this Redis (`v2-events.ts`). */
  protocolLogs(): RedisV2Events {
    this.#v2 ??= new RedisV2Events({
      client: async () => {
        await this.#connect();
        return this.#cmd;
      },
      keys: this.#keys,
      maxEvents: this.#settings.maxEventsPerRun,
      ttlSeconds: this.#settings.eventTtlSeconds,
      leaseOf: (threadId) =>
        [...this.#leases.values()].find((lease) => lease.threadId === threadId)?.value,
      busy: async (threadId) => (await this.busy([threadId])).has(threadId),
      report: (error) => this.#outage(error),
    });
    return this.#v2;
  }

  lost(runId: string): boolean {
    return this.#lost.has(runId);
  }

  event(run: RunRecord, event: RunEvent): void {
    const lease = this.#leases.get(run.run_id);
    if (!lease) return;
    const k = this.#keys;
    this.#scripts
      .run(
        APPEND,
        [k.lease(run.thread_id), k.events(run.run_id)],
        [
          lease.value,
          entryId(Number(event.id)),
          event.event,
          event.data,
          String(this.#settings.maxEventsPerRun),
        ],
      )
      .catch((error: unknown) => this.#outage(error));
  }

  checkpoint(run: RunRecord, checkpointId: string): void {
    const seq = run.afterCheckpoint(checkpointId);
    this.#cmd
      .sendCommand([
        "HSET",
        this.#keys.run(run.run_id),
        `cp:${checkpointId}`,
        String(Number(seq) + 1),
        "checkpointed",
        "1",
      ])
      .catch((error: unknown) => this.#outage(error));
  }

  async end(run: RunRecord, options: { handedOff?: boolean }): Promise<void> {
    const lease = this.#release(run.run_id);
    this.#local.delete(run.run_id);
    this.#queue.ended(run.run_id);
    if (this.#lost.delete(run.run_id)) return;
    // Handed off before it started here (another instance started it, or this one drains):
    // nothing of it is this instance's to free (`END` would change nothing).
    if (options.handedOff && !lease) return;
    await this.#endScript(run.thread_id, run.run_id, {
      lease: lease?.value ?? "",
      handedOff: options.handedOff,
      status: run.status,
      updatedAt: run.updated_at,
      values: run.lastValues,
      error: run.errorData,
      // An ended run lists no input (as `RunRecord#end` clears it here).
      runJson: JSON.stringify(options.handedOff ? run.toJSON() : { ...run.toJSON(), kwargs: {} }),
    });
  }

  /**
   * The run as this instance runs it, when its events are all here (not a run taken over from
   * another instance, nor one handed off): read from memory, not Redis.
   */
  #readHere(runId: string): RunRecord | undefined {
    const local = this.#local.get(runId);
    return local && local.firstSeq === 0 && !local.handedOff ? local : undefined;
  }

  async find(threadId: string, runId: string): Promise<RunHandle | undefined> {
    await this.#usable();
    const local = this.#readHere(runId);
    if (local && local.thread_id === threadId) return local;
    const [hash, stream] = await Promise.all([
      this.#send(["HGETALL", this.#keys.run(runId)]).then(hashOf),
      this.#send<number>(["EXISTS", this.#keys.events(runId)]),
    ]);
    if (hash.thread !== threadId || !hash.run) return undefined;
    checkFormat(hash.format);
    return new RemoteRun(this, runId, hash, stream === 1);
  }

  async list(threadId: string, status?: string, most?: number): Promise<RunHandle[]> {
    await this.#usable();
    const last = status === undefined && most !== undefined ? String(most - 1) : "-1";
    const ids = await this.#send<string[]>(["ZREVRANGE", this.#keys.runs(threadId), "0", last]);
    const hashes = await Promise.all(
      ids.map((id) => this.#send(["HGETALL", this.#keys.run(id)]).then(hashOf)),
    );
    const runs: RunHandle[] = [];
    for (const [i, hash] of hashes.entries()) {
      const id = ids[i] ?? "";
      if (hash.thread !== threadId || !hash.run) continue;
      checkFormat(hash.format);
      const run = this.#readHere(id) ?? new RemoteRun(this, id, hash, true);
      if (status === undefined || run.status === status) runs.push(run);
    }
    return runs;
  }

  async forget(threadId: string, runId: string): Promise<boolean> {
    await this.#usable();
    const hash = hashOf(await this.#send(["HGETALL", this.#keys.run(runId)]));
    if (hash.thread !== threadId) return true;
    if (hash.ended !== "1") return false;
    await Promise.all([
      this.#send(["DEL", this.#keys.run(runId), this.#keys.events(runId)]),
      this.#send(["ZREM", this.#keys.runs(threadId), runId]),
    ]);
    return true;
  }

  /** Cancels a run wherever it runs: one that has not started reads the mark at its turn. */
  async cancel(runId: string): Promise<void> {
    await this.#usable();
    const k = this.#keys;
    await Promise.all([
      this.#send(["SET", k.cancel(runId), "1", "PX", "86400000"]),
      this.#send(["PUBLISH", k.cancelChannel, runId]),
    ]);
  }

  async cancelThread(threadId: string): Promise<void> {
    await this.#usable();
    const live = await this.#send<string[]>(["LRANGE", this.#keys.live(threadId), "0", "-1"]);
    await Promise.all(live.map((runId) => this.cancel(runId)));
  }

  async busy(threadIds: readonly string[]): Promise<Set<string>> {
    await this.#usable();
    const lengths = await Promise.all(
      threadIds.map((id) => this.#send<number>(["LLEN", this.#keys.live(id)])),
    );
    return new Set(threadIds.filter((_, i) => (lengths[i] ?? 0) > 0));
  }

  async *follow(runId: string, lastEventId?: string): AsyncGenerator<RunEvent> {
    yield* this.#read(runId, resumeAfter(lastEventId));
  }

  /** Resolves when the run has ended (its end marker is in its events). */
  async untilEnded(runId: string): Promise<void> {
    for await (const _ of this.#read(runId, AFTER_ALL_EVENTS)) {
      // Nothing comes before the end marker from here.
    }
  }

  /** The run's record as stored now. */
  async record(runId: string): Promise<Record<string, string>> {
    await this.#usable();
    return hashOf(await this.#send(["HGETALL", this.#keys.run(runId)]));
  }

  /**
   * The run's events after entry `after`, until its end marker, on a connection of its own (a
   * blocking read holds it). A run whose record is gone (expired, forgotten) ends the read.
   */
  async *#read(runId: string, after: string): AsyncGenerator<RunEvent> {
    await this.#connect();
    const reader = this.#cmd.duplicate({ RESP: 2 });
    reader.on("error", () => {});
    const key = this.#keys.events(runId);
    let from = after;
    try {
      await reader.connect();
      while (!this.#closed) {
        let reply: unknown;
        try {
          reply = await readAfter(reader, key, from, 2_000);
        } catch {
          // Redis unreachable: read again from the same place once it answers.
          await delay(200);
          continue;
        }
        if (reply === null) {
          const exists = await this.#cmd.sendCommand<number>(["EXISTS", this.#keys.run(runId)]);
          if (exists === 0) return;
          continue;
        }
        for (const [id, fields] of entriesOf(reply)) {
          if (id === END_ENTRY) return;
          from = id;
          const seq = Number(id.slice(2)) - 1;
          yield { id: String(seq), event: fields.e ?? "", data: fields.d ?? "null" };
        }
      }
      // Closed mid-run (the process stops): the reader's stream must break, not end as if the
      // run had, so that its client reconnects to another instance and reads on from there.
      throw new StudioError(
        `Run ${runId}: this server stopped reading its events (closed); reconnect to read on`,
      );
    } finally {
      reader.destroy();
    }
  }

  stopTakingOver(): void {
    this.#takingOver = false;
    this.#queue.stop();
  }

  /** Takes over threads whose head has no lease past its time (see `scripts.ts`). */
  async #sweep(): Promise<void> {
    if (this.#sweeping || !this.#takingOver || this.#closed || !this.#ready()) return;
    this.#sweeping = true;
    try {
      const due = await this.#cmd.sendCommand<string[]>([
        "ZRANGEBYSCORE",
        this.#keys.due,
        "-inf",
        String(Date.now()),
        "LIMIT",
        "0",
        "8",
      ]);
      for (const threadId of due) {
        if (!this.#takingOver || !this.#queue.slots.ask()) break;
        await this.#takeOver(threadId);
      }
    } catch (error) {
      this.#outage(error);
    } finally {
      this.#sweeping = false;
    }
  }

  /** Takes over the thread's head, a worker slot asked for it (`WorkerSlots#ask`). */
  async #takeOver(threadId: string): Promise<void> {
    const k = this.#keys;
    const now = Date.now();
    const slots = this.#queue.slots;
    let taken: string[] | null;
    try {
      taken = await this.#scripts.run<string[] | null>(
        TAKE_OVER,
        [k.live(threadId), k.lease(threadId), k.fence(threadId), k.due],
        [
          threadId,
          this.instanceId,
          String(this.#settings.leaseMs),
          String(now),
          k.runPrefix,
          k.cancelPrefix,
          new Date(now).toISOString(),
        ],
      );
    } catch (error) {
      slots.none();
      throw error;
    }
    const runId = taken?.[0];
    if (!taken || !runId) return slots.none();
    slots.got(runId);
    const [, fence = "0", sharedJson, runJson, cancelled, checkpointed, format, started] = taken;
    const adopted = await this.#adopt(threadId, runId, Number(fence), {
      sharedJson,
      runJson,
      cancelled: cancelled === "1",
      checkpointed: checkpointed === "1",
      format,
      started,
    });
    if (!adopted) slots.release(runId);
  }

  /** Runs here a run this instance claimed from the ready queue (`ready-queue.ts`). */
  async #adoptClaimed(claimed: Claimed): Promise<boolean> {
    const { runId, threadId, fence } = claimed;
    if (this.#local.has(runId)) {
      // Admitted here and no longer waiting (cancelled as it was claimed): its end is coming.
      await this.#handBack(runId, threadId, `${runId}|${this.instanceId}|${fence}`);
      return false;
    }
    return this.#adopt(threadId, runId, fence, { ...claimed, fresh: true });
  }

  /**
   * Runs here the run whose lease this instance just took (`TAKE_OVER`, `CLAIM`); false when it
   * does not (ended, another version's, or refused by the lifecycle and handed back). A `fresh`
   * run never started: it has no checkpoints or events to read.
   */
  async #adopt(
    threadId: string,
    runId: string,
    fence: number,
    taken: {
      sharedJson?: string | undefined;
      runJson?: string | undefined;
      cancelled?: boolean;
      checkpointed?: boolean;
      format?: string | undefined;
      started?: string | undefined;
      fresh?: boolean;
    },
  ): Promise<boolean> {
    const value = `${runId}|${this.instanceId}|${fence}`;
    const { format, runJson } = taken;
    if (Number(format || 1) > RUN_RECORD_FORMAT) {
      // Another version's run: left to an instance that reads it (its lease lapses meanwhile).
      this.#release(runId);
      this.#hooks?.report(new StudioStoredFormatError("redis-run", Number(format), 1));
      return false;
    }
    const shared = parseShared(taken.sharedJson, runJson);
    if (!shared || taken.cancelled) {
      // A record gone (expired) or a run cancelled before anyone ran it: it ends here.
      await this.#endScript(threadId, runId, {
        lease: value,
        status: shared ? "interrupted" : "error",
        runJson: runJson || JSON.stringify({ run_id: runId, thread_id: threadId }),
      });
      return false;
    }
    shared.checkpoints = taken.checkpointed ? await this.#checkpointsOf(runId) : [];
    shared.startedAt = taken.started || undefined;
    shared.nextSeq = taken.fresh ? 0 : await this.#nextSeq(runId);
    this.#hold(runId, threadId, value);
    const adopted = await this.#hooks
      ?.takeOver(shared, fence)
      .catch((error: unknown) => this.#hooks?.report(error));
    if (!adopted) {
      this.#release(runId);
      // Freed at once for another instance (this one drains, or has no such graph).
      await this.#handBack(runId, threadId, value);
      return false;
    }
    this.#local.set(runId, adopted);
    return true;
  }

  /** The root checkpoints the run wrote (the `cp:<id>` fields of its record). */
  async #checkpointsOf(runId: string): Promise<string[]> {
    const fields = await this.#cmd.sendCommand<string[]>(["HKEYS", this.#keys.run(runId)]);
    return fields.filter((field) => field.startsWith("cp:")).map((field) => field.slice(3));
  }

  /** The number the run's next event gets: after the last one stored. */
  async #nextSeq(runId: string): Promise<number> {
    const last = await this.#cmd.sendCommand<unknown>([
      "XREVRANGE",
      this.#keys.events(runId),
      "+",
      "-",
      "COUNT",
      "2",
    ]);
    for (const [id] of entriesOf([[this.#keys.events(runId), last]])) {
      if (id !== END_ENTRY) return Number(id.slice(2));
    }
    return 0;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue.stop();
    if (this.#sweeper) clearInterval(this.#sweeper);
    for (const runId of [...this.#leases.keys()]) this.#release(runId);
    this.#v2?.close();
    if (!this.#connected) return;
    await this.#connected.catch(() => {});
    await Promise.all(
      [this.#cmd, this.#sub].map((client) => client?.close().catch(() => client.destroy())),
    );
  }
}

/** Throws for a run record of a format newer than this version reads. */
function checkFormat(format: string | undefined): void {
  const found = Number(format || 1);
  if (found > RUN_RECORD_FORMAT) {
    throw new StudioStoredFormatError("redis-run", found, RUN_RECORD_FORMAT);
  }
}

function parseShared(sharedJson: string | undefined, runJson: string | undefined) {
  if (!sharedJson || !runJson) return undefined;
  try {
    const stored = JSON.parse(sharedJson) as Omit<SharedRun, "run" | "checkpoints" | "nextSeq">;
    const run = JSON.parse(runJson) as Record<string, unknown>;
    return { ...stored, run, checkpoints: [], nextSeq: 0 } as SharedRun;
  } catch {
    return undefined;
  }
}

/** The entries of an `XREAD` reply (RESP2: [[key, [[id, [field, value, ...]], ...]]]). */
function* entriesOf(reply: unknown): Generator<[string, Record<string, string>]> {
  if (!Array.isArray(reply)) return;
  for (const stream of reply) {
    const entries = Array.isArray(stream) ? stream[1] : undefined;
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      if (!Array.isArray(entry)) continue;
      yield [String(entry[0]), hashOf(entry[1])];
    }
  }
}
