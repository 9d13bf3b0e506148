/**
 * A run as another instance stored it in Redis: what the run routes read of a run (`RunHandle`),
 * read from its record, its events followed from its stream, a cancel sent to where it runs.
 */
import type { RunHandle } from "../coordination";
import type { RunEvent, RunStatus } from "../runs";

/** What a run read from Redis asks of the backend (`RedisCoordination` has it). */
export interface StoredRuns {
  untilEnded(runId: string): Promise<void>;
  record(runId: string): Promise<Record<string, string>>;
  cancel(runId: string): Promise<void>;
  follow(runId: string, lastEventId?: string): AsyncGenerator<RunEvent>;
}

export class RemoteRun implements RunHandle {
  readonly #coordination: StoredRuns;
  readonly run_id: string;
  #record: Record<string, string>;
  readonly #run: Record<string, unknown>;
  readonly #hasEvents: boolean;
  #done: Promise<void> | undefined;

  constructor(
    coordination: StoredRuns,
    runId: string,
    record: Record<string, string>,
    hasEvents: boolean,
  ) {
    this.#coordination = coordination;
    this.run_id = runId;
    this.#record = record;
    this.#run = parseObject(record.run);
    this.#hasEvents = hasEvents;
  }

  get thread_id(): string {
    return String(this.#run.thread_id ?? this.#record.thread ?? "");
  }
  get assistant_id(): string {
    return String(this.#run.assistant_id ?? "");
  }
  get status(): RunStatus {
    return (this.#record.status || this.#run.status || "pending") as RunStatus;
  }
  get resumable(): boolean {
    return this.#run.resumable === true;
  }
  get ended(): boolean {
    return this.#record.ended === "1";
  }
  /** An ended run whose events expired: nothing left to join. */
  get eventsDropped(): boolean {
    return this.ended && !this.#hasEvents;
  }
  get lastValues(): string | undefined {
    return this.#record.values || undefined;
  }
  get errorData(): string | undefined {
    return this.#record.error || undefined;
  }

  /** Resolves when the run has ended, its record then read again (its final values). */
  get done(): Promise<void> {
    this.#done ??= this.ended
      ? Promise.resolve()
      : this.#coordination.untilEnded(this.run_id).then(async () => {
          const latest = await this.#coordination.record(this.run_id);
          if (latest.run) this.#record = latest;
        });
    return this.#done;
  }

  cancel(): void {
    void this.#coordination.cancel(this.run_id).catch(() => {});
  }

  follow(lastEventId?: string): AsyncGenerator<RunEvent> {
    return this.#coordination.follow(this.run_id, lastEventId);
  }

  afterCheckpoint(checkpointId: string): string | undefined {
    const at = this.#record[`cp:${checkpointId}`];
    return at === undefined ? undefined : String(Number(at) - 1);
  }

  toJSON(): Record<string, unknown> {
    const { resumable: _, ...shown } = this.#run;
    return {
      ...shown,
      status: this.status,
      updated_at: this.#record.updated_at || shown.updated_at,
    };
  }
}

function parseObject(text: string | undefined): Record<string, unknown> {
  try {
    const value = JSON.parse(text ?? "{}") as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
