/**
 * Background runs through a queue every instance drains (#35): a run no client streams from its
 * admitting instance (`POST .../runs`, the `wait` routes, stateless `/runs`) is started, at its
 * turn, by whichever instance has a free worker slot (`WorkerSlots`, `maxBackgroundRuns`).
 *
 * - The admitting instance starts the run itself when it has a free slot (`ACQUIRE`, as a
 *   streamed run). Full, it marks the run `queued` (`OFFER`): once the run is its thread's head,
 *   the thread is in the `ready` sorted set, oldest first, and the instances hear of it on the
 *   ready channel.
 * - An instance with a free slot claims the oldest ready run (`CLAIM`: its lease taken with the
 *   next fence, as a takeover takes it) and runs it through the takeover path; the admitting
 *   instance, woken on the thread's channel, finds the lease held for the run and reads it on
 *   from Redis. A run an instance claims that waits here is simply started here. Only a run
 *   that never started is claimed (one that did is taken over from its checkpoints).
 * - A thread's runs still run one at a time in order: only a head is ever ready, and a run ends
 *   (`END`) before the next one is made ready.
 * - An instance claims when told a thread became ready, when one of its slots frees, and on a
 *   bounded fallback sweep (a message lost while Redis was away); never while draining. A drain
 *   marks the runs waiting here `queued`, so another instance starts them at their turn.
 */
import type { RedisKeys } from "./keys";
import { CLAIM, OFFER } from "./scripts";
import { WorkerSlots } from "./worker-slots";

/** Runs a script of `scripts.ts` (`Scripts#run`). */
export type ScriptRunner = <T>(
  script: string,
  keys: readonly string[],
  args: readonly string[],
) => Promise<T>;

export interface ReadyQueueSettings {
  keys: RedisKeys;
  instanceId: string;
  leaseMs: number;
  maxBackgroundRuns: number;
  run: ScriptRunner;
  /**
   * Runs here a run this instance claimed and does not wait for (the takeover path); false when
   * it could not (its slot is then freed).
   */
  adopt(claimed: Claimed): Promise<boolean>;
  report(error: unknown): void;
}

/** A run `CLAIM` gave this instance. */
export interface Claimed {
  runId: string;
  threadId: string;
  fence: number;
  sharedJson: string;
  runJson: string;
  format: string;
}

/** Ready threads one `CLAIM` looks at (a head cancelled but not yet ended is skipped). */
const CLAIM_SCAN = 16;

export class ReadyQueue {
  readonly slots: WorkerSlots;
  readonly #settings: ReadyQueueSettings;
  /** Background runs admitted here that have not ended. */
  readonly #background = new Set<string>();
  /** Background runs waiting here for their turn: started with the fence when claimed here. */
  readonly #waiting = new Map<string, (fence: number) => boolean>();
  #taking = true;
  #pulling = false;
  #pullAgain = false;
  /** Whether a thread may be ready (told so since the last `CLAIM` that found none). */
  #maybeReady = true;
  #told = 0;
  /** `CLAIM`s under way, and who waits for them to settle. */
  #claims = 0;
  #afterClaims: (() => void)[] = [];

  constructor(settings: ReadyQueueSettings) {
    this.#settings = settings;
    this.slots = new WorkerSlots(settings.maxBackgroundRuns);
  }

  /** The run was admitted here with no client stream attached. */
  admitted(runId: string): void {
    this.#background.add(runId);
  }

  isBackground(runId: string): boolean {
    return this.#background.has(runId);
  }

  /**
   * One try at a background run's turn: started here with a free slot (`acquire`), else offered
   * to every instance. Resolves as `ACQUIRE` does.
   */
  async attempt(runId: string, threadId: string, acquire: () => Promise<number>): Promise<number> {
    if (!this.#taking || !this.slots.ask()) return this.offer(runId, threadId);
    let fence = 0;
    try {
      fence = await acquire();
    } finally {
      if (fence > 0) this.slots.got(runId);
      else this.slots.none();
    }
    return fence;
  }

  /** Marks the run `queued`, the thread ready when the run is its head (`OFFER`). */
  offer(runId: string, threadId: string): Promise<number> {
    const k = this.#settings.keys;
    return this.#settings.run<number>(
      OFFER,
      [k.live(threadId), k.lease(threadId), k.ready, k.cancel(runId), k.run(runId)],
      [runId, String(Date.now()), k.readyChannel, threadId],
    );
  }

  /** While the run waits here, a claim of it by this instance starts it with `start(fence)`. */
  waitHere(runId: string, start: (fence: number) => boolean): void {
    this.#waiting.set(runId, start);
  }

  stopWaiting(runId: string): void {
    this.#waiting.delete(runId);
  }

  /** True while a `CLAIM` of this instance is under way (it may be claiming a run waiting here). */
  get claiming(): boolean {
    return this.#claims > 0;
  }

  /** Resolves once no `CLAIM` of this instance is under way. */
  afterClaims(): Promise<void> {
    if (this.#claims === 0) return Promise.resolve();
    return new Promise((resolve) => this.#afterClaims.push(resolve));
  }

  /** The run ended here (or went elsewhere): its slot, if it held one, claims the next run. */
  ended(runId: string): void {
    this.#background.delete(runId);
    this.#waiting.delete(runId);
    if (this.slots.release(runId) && this.#maybeReady) this.pull();
  }

  /** A thread became ready (the ready channel): claim it with a free slot. */
  told(): void {
    this.#told++;
    this.#maybeReady = true;
    this.pull();
  }

  /** The fallback sweep: claims even when no message said a thread is ready. */
  sweep(): void {
    this.#maybeReady = true;
    this.pull();
  }

  /** Claims nothing more (the instance drains or closes). */
  stop(): void {
    this.#taking = false;
  }

  /** Claims ready runs while slots are free, one `CLAIM` at a time. */
  pull(): void {
    if (this.#pulling) {
      this.#pullAgain = true;
      return;
    }
    this.#pulling = true;
    void this.#pullAll().finally(() => {
      this.#pulling = false;
    });
  }

  async #pullAll(): Promise<void> {
    do {
      this.#pullAgain = false;
      while (this.#taking && this.#maybeReady && this.slots.ask()) {
        if (!(await this.#claimOne())) break;
      }
    } while (this.#pullAgain && this.#taking);
  }

  /** One `CLAIM`: true when it gave this instance a run. */
  async #claimOne(): Promise<boolean> {
    const told = this.#told;
    this.#claims++;
    try {
      const claimed = await this.#claim().catch((error: unknown) => {
        this.#settings.report(error);
        return undefined;
      });
      if (!claimed) {
        this.slots.none();
        // No message came while it was asked: nothing is ready until one comes.
        if (told === this.#told) this.#maybeReady = false;
        return false;
      }
      this.slots.got(claimed.runId);
      // Waiting here: started here, before a try of its own could take the lease for elsewhere.
      if (this.#waiting.get(claimed.runId)?.(claimed.fence)) return true;
      const adopted = await this.#settings.adopt(claimed).catch((error: unknown) => {
        this.#settings.report(error);
        return false;
      });
      if (!adopted) this.slots.release(claimed.runId);
      return true;
    } finally {
      this.#claims--;
      if (this.#claims === 0) for (const resolve of this.#afterClaims.splice(0)) resolve();
    }
  }

  async #claim(): Promise<Claimed | undefined> {
    const { keys: k, instanceId, leaseMs } = this.#settings;
    const now = Date.now();
    const reply = await this.#settings.run<string[] | null>(
      CLAIM,
      [k.ready, k.due],
      [
        instanceId,
        String(leaseMs),
        String(now),
        k.threadPrefix,
        k.runPrefix,
        k.cancelPrefix,
        new Date(now).toISOString(),
        k.wakeChannel,
        String(CLAIM_SCAN),
      ],
    );
    if (!reply) return undefined;
    const [runId = "", fence = "0", sharedJson = "", runJson = "", threadId = "", format = "1"] =
      reply;
    return { runId, threadId, fence: Number(fence), sharedJson, runJson, format };
  }
}
