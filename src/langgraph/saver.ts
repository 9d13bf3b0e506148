/**
 * StudioCheckpointSaver: LangGraph checkpoints and pending writes kept in service threads, one
 * service thread per LangGraph `thread_id`.
 *
 * Per step it stores one message for the checkpoint (without its channel values, plus the values
 * of the channels that step changed, each under its new version) and one message per task's
 * writes, as the Postgres saver stores rows; a value that only grew at its end is stored as the
 * appended part (`channel-values.ts`, `blob-plan.ts`). Reading rebuilds a checkpoint's
 * `channel_values` from the copies its `channel_versions` name, read from the thread's newest
 * messages (`thread-window.ts`).
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  copyCheckpoint,
  type PendingWrite,
  type SerializerProtocol,
  WRITES_IDX_MAP,
} from "@langchain/langgraph-checkpoint";
import type { StudioClient } from "../client";
import { pickClientOptions } from "../client/options";
import { resolveClient } from "../client/resolve";
import { isContextualSerde } from "../crypto/encrypted-serde";
import { StudioValidationError } from "../errors";
import { checkpointRecord, writesRecord } from "../records/checkpoint";
import { cutBlobs, cutWrites, planBlobs, rememberStored } from "./blob-plan";
import { nextVersion } from "./channel-values";
import type { RecordEntry } from "./checkpoint-log";
import { recordMessages, type StoredRecord, type StoredValue, storeValue } from "./records";
import { planPrune, planSuperseded, prunedThread } from "./retention";
import {
  checkedKeepLast,
  checkedThreadIds,
  checkSweepOptions,
  type DeleteThreadsOptions,
  matches,
  namespaceOf,
  one,
  type PruneOptions,
  type PruneReport,
  requireThreadId,
  retentionCutoff,
  retentionScope,
  type StudioCheckpointSaverFields,
  type SweepOptions,
  saverSettings,
  threadIdOf,
} from "./saver-config";
import { PLAIN_RECORDS, type RecordCodec, sealedRecords } from "./sealed-records";
import { CheckpointThreads, type ThreadCreation } from "./thread-store";
import { ThreadTtl } from "./ttl";
import { checkpointTuple } from "./tuples";
import { checkpointKey, WriteOrder } from "./write-order";

export type {
  CheckpointTTL,
  DeleteThreadsOptions,
  PrunedThread,
  PruneOptions,
  PruneReport,
  RetentionScope,
  StudioCheckpointSaverFields,
  SweepOptions,
} from "./saver-config";

export class StudioCheckpointSaver extends BaseCheckpointSaver {
  readonly #threads: CheckpointThreads;
  readonly #partChars: number;
  readonly #keep: "all" | "latest";
  readonly #order = new WriteOrder();
  /** Turns values into bytes: the serde, or the one inside an encrypting serde. */
  readonly #values: SerializerProtocol;
  /** Seals and opens records' values for their place when the serde encrypts. */
  readonly #codec: RecordCodec;
  /** The time to live: activity, read refreshes, deleting expired threads. */
  readonly #ttl: ThreadTtl;
  /** The saver's own fields (not the client's), for `withSerde`. */
  readonly #own: StudioCheckpointSaverFields;
  readonly #client: StudioClient;
  /** The dataset the saver keeps its threads in (and its retention reaches), if any. */
  readonly datasetId: string | undefined;

  constructor(fields: StudioCheckpointSaverFields = {}) {
    super(fields.serde);
    const settings = saverSettings(fields);
    const serde = this.serde;
    this.#values = isContextualSerde(serde) ? serde.inner : serde;
    this.#codec = isContextualSerde(serde) ? sealedRecords(serde) : PLAIN_RECORDS;
    this.#client = resolveClient(settings.clientFields);
    this.datasetId = settings.datasetId;
    const clientKeys = new Set([...Object.keys(pickClientOptions(fields)), "client"]);
    this.#own = Object.fromEntries(
      Object.entries(fields).filter(([key]) => !clientKeys.has(key)),
    ) as StudioCheckpointSaverFields;
    this.#threads = new CheckpointThreads(
      this.#client,
      settings.datasetId,
      settings.maxCachedThreads,
      this.#codec,
    );
    this.#partChars = settings.maxMessageChars;
    this.#keep = settings.keep;
    this.#ttl = new ThreadTtl(settings.ttl, this.#threads, (threadId, record, what) =>
      this.#append(threadId, record, what),
    );
  }

  /**
   * A saver like this one (its client, dataset, `keep`, `ttl`...) whose values go through `serde`,
   * e.g. one user's `createEncryptedSerde`. It shares the client, not the cache: a cached thread
   * holds opened values, which another key must not see.
   */
  withSerde(serde: SerializerProtocol): StudioCheckpointSaver {
    return new StudioCheckpointSaver({ ...this.#own, client: this.#client, serde });
  }

  /**
   * Versions unique to each write (a counter and a random part), so a replay, a fork or another
   * process never stores a different value under a version already used. LangGraph compares
   * them as strings; the counter is zero-padded so that string order is counter order.
   */
  override getNextVersion(current: number | undefined): number {
    // LangGraph takes string versions (compareChannelVersions); the base class types them as
    // numbers.
    return nextVersion(current) as unknown as number;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const raw = config.configurable?.thread_id;
    if (raw === undefined || raw === null) return undefined;
    const threadId = threadIdOf(raw);
    const ns = namespaceOf(config);
    const checkpointId: string | undefined = config.configurable?.checkpoint_id || undefined;
    const found = await this.#threads.read(threadId, async (window) => {
      const entry = await (checkpointId === undefined
        ? window.readLatest(ns)
        : window.readCheckpoint(ns, checkpointId));
      return (
        entry &&
        (await checkpointTuple(this.#values, threadId, window.log, entry, () =>
          this.getNextVersion(undefined),
        ))
      );
    });
    if (found) await this.#ttl.refreshOnRead(threadId);
    return found ?? undefined;
  }

  async *list(
    config: RunnableConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    const { before, filter } = options;
    let remaining = options.limit;
    const raw = config.configurable?.thread_id;
    const wanted = raw === undefined || raw === null ? undefined : threadIdOf(raw);
    const ns: string | undefined = config.configurable?.checkpoint_ns ?? undefined;
    const checkpointId: string | undefined = config.configurable?.checkpoint_id || undefined;
    const beforeId: string | undefined = before?.configurable?.checkpoint_id;
    const threadIds = wanted === undefined ? this.#allThreadIds() : one(wanted);
    for await (const threadId of threadIds) {
      const window = await this.#threads.readAll(threadId);
      if (!window) continue;
      if (wanted !== undefined) await this.#ttl.refreshOnRead(threadId);
      for (const found of window.log.checkpoints(ns)) {
        if (remaining !== undefined && remaining <= 0) return;
        const id = found.record.checkpointId;
        if (checkpointId !== undefined && id !== checkpointId) continue;
        if (beforeId !== undefined && id >= beforeId) continue;
        const tuple = await checkpointTuple(this.#values, threadId, window.log, found, () =>
          this.getNextVersion(undefined),
        );
        if (filter && !matches(tuple.metadata, filter)) continue;
        if (remaining !== undefined) remaining -= 1;
        yield tuple;
      }
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = requireThreadId(config, "put a checkpoint");
    const ns = namespaceOf(config);
    const parentId: string | undefined = config.configurable?.checkpoint_id || undefined;
    const copy = copyCheckpoint(checkpoint);
    const values: Record<string, unknown> = copy.channel_values ?? {};
    const { channel_values: _values, channel_versions: versions = {}, ...rest } = copy;
    // In "latest" mode each checkpoint is whole, so that everything older can be deleted.
    const toStore = this.#keep === "latest" ? versions : newVersions;
    // Serialized now, all of them before the first await: LangGraph's next step may change the
    // objects in place (a reducer gives a message its id) while this put is still running.
    const channels = Object.keys(toStore);
    const [storedCheckpoint, storedMetadata, ...storedValues] = await Promise.all([
      this.#values.dumpsTyped(rest),
      this.#values.dumpsTyped(metadata),
      ...channels.map((channel) =>
        channel in values ? this.#values.dumpsTyped(values[channel]) : undefined,
      ),
    ]);
    const changed = new Map<string, StoredValue>();
    for (const [i, channel] of channels.entries()) {
      const dumped = storedValues[i];
      // A channel that changed to empty is stored as such, so an older value is not read back.
      changed.set(channel, dumped ? storeValue(dumped) : { type: "empty" });
    }
    const key = checkpointKey(threadId, ns, checkpoint.id);
    await this.#order.put(key, async (earlyWrites) => {
      const window = this.#threads.cached(threadId);
      const parent =
        this.#keep === "all" && parentId ? window?.log.checkpoint(ns, parentId) : undefined;
      const plan = planBlobs({
        ns,
        versions: { ...versions, ...newVersions },
        changed,
        parentVersions: parent?.record.versions,
        log: window?.log,
        now: window?.now,
      });
      const blobs = cutBlobs(plan, window?.log, ns, versions);
      const record = checkpointRecord({
        threadId,
        ns,
        checkpointId: checkpoint.id,
        parentId,
        versions,
        checkpoint: storeValue(storedCheckpoint),
        metadata: storeValue(storedMetadata),
        blobs,
        ...(earlyWrites.length > 0 ? { earlyWrites } : {}),
      });
      const entry = await this.#append(
        threadId,
        record,
        `checkpoint ${checkpoint.id}`,
        parentId === undefined ? "always" : "unless-deleted",
      );
      const log = this.#threads.cached(threadId)?.log;
      if (!entry || !log) return;
      rememberStored(log, ns, plan, entry.place);
      if (this.#keep === "latest") {
        await this.#deleteSuperseded(
          threadId,
          planSuperseded(log, ns, checkpoint.id, entry.place.position),
        );
      }
    });
    return {
      configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id },
    };
  }

  async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    const threadId = requireThreadId(config, "put writes");
    const checkpointId = config.configurable?.checkpoint_id;
    if (typeof checkpointId !== "string" || checkpointId === "") {
      throw new StudioValidationError(
        "config.configurable.checkpoint_id",
        "is required to put writes: writes belong to a checkpoint (pass the config put() returned)",
      );
    }
    const ns = namespaceOf(config);
    // Serialized now: LangGraph may change the objects in place once this call returns.
    const stored = await Promise.all(
      writes.map(async ([channel, value], idx) => ({
        idx: WRITES_IDX_MAP[channel] ?? idx,
        channel,
        value: storeValue(await this.#values.dumpsTyped(value)),
      })),
    );
    const known = this.#threads.cached(threadId)?.log.checkpoint(ns, checkpointId);
    await this.#order.write(
      checkpointKey(threadId, ns, checkpointId),
      taskId,
      // Empty writes leave nothing a reader could wait for.
      known !== undefined || writes.length === 0,
      () => {
        // Planned once the checkpoint's own put is done: its values are what a write may hold.
        const cut = cutWrites(stored, this.#threads.cached(threadId)?.log, ns, checkpointId);
        const record = writesRecord({
          threadId,
          ns,
          checkpointId,
          taskId,
          taskPath: taskPath ?? "",
          writes: cut,
        });
        return this.#append(
          threadId,
          record,
          `the writes of task ${taskId} at checkpoint ${checkpointId}`,
          // LangGraph may store a step's writes before its checkpoint, the first one's too.
          "unless-deleted",
        );
      },
    );
  }

  async deleteThread(threadId: string): Promise<void> {
    const id = threadIdOf(threadId);
    await this.#threads.delete(id);
    this.#ttl.forget(id);
  }

  /**
   * Deletes the older checkpoints of each thread: per namespace, all but the `keepLast` newest
   * and those waiting on an interrupt, with their writes. A kept checkpoint that reads a value
   * through a deleted record first gets a whole copy of it. Safe beside a run in another process:
   * only records this prune read are deleted, and never a write whose checkpoint it has not read
   * (a step's writes are stored before its checkpoint). Costs: the whole thread is read (one call
   * per 100 messages), one call for the copies, and one call per deleted message. With `dryRun`,
   * only the reads: the report says what would be deleted.
   */
  async prune(threadIds: readonly string[], options: PruneOptions): Promise<PruneReport> {
    const ids = checkedThreadIds(threadIds);
    const keepLast = checkedKeepLast(options);
    const dryRun = options.dryRun === true;
    const report: PruneReport = { dryRun, checkpoints: 0, writes: 0, messages: 0, threads: [] };
    for (const raw of ids) {
      const threadId = threadIdOf(raw);
      const window = await this.#threads.readAll(threadId);
      if (!window) continue;
      const plan = planPrune(window.log, threadId, keepLast);
      const pruned = prunedThread(threadId, plan.remove);
      if (!dryRun) {
        for (const values of plan.copies) {
          await this.#append(threadId, values, `copies of the values that kept checkpoints need`);
        }
        await this.#threads.deleteRecords(threadId, window.serviceThreadId, plan.remove);
      }
      report.checkpoints += pruned.checkpoints.length;
      report.writes += pruned.writes;
      report.messages += pruned.messages;
      report.threads.push(pruned);
    }
    return report;
  }

  /**
   * Deletes every LangGraph thread of this saver (of its `datasetId`, or in no dataset; with
   * `scope: "account"`, of the whole account) whose newest message is
   * older than `olderThan` (a Date) or `maxAgeMs` (an age); without options, older than the
   * saver's `ttl`. The time-to-live the service does not have. Costs: one call per 100 threads of
   * the account, one per checkpoint thread, two per deleted thread (its newest message is read
   * again just before the delete: a thread another process wrote meanwhile is kept). Returns the
   * deleted (with `dryRun`, the expired and kept) `thread_id`s: their number is what was removed.
   */
  async deleteThreads(options?: DeleteThreadsOptions): Promise<string[]> {
    const cutoff = retentionCutoff(options, this.#ttl.ms, Date.now());
    const scope = retentionScope(options);
    return this.#ttl.deleteOlderThan(cutoff, options?.dryRun === true, scope);
  }

  /**
   * Deletes the threads the saver's `ttl` has expired (see `deleteThreads` for the cost); with
   * `dryRun`, only lists them.
   */
  async sweep(options: SweepOptions = {}): Promise<string[]> {
    checkSweepOptions(options);
    const { dryRun, scope } = options ?? {};
    return this.deleteThreads({ maxAgeMs: this.#ttl.sweepAge(), dryRun, scope });
  }

  async #append(
    threadId: string,
    record: StoredRecord,
    what: string,
    creates: ThreadCreation = "never",
  ) {
    this.#ttl.wrote(threadId);
    const stored = await this.#codec.seal(threadId, record);
    const messages = recordMessages(stored, this.#partChars);
    return this.#threads.append(threadId, record, messages, what, creates);
  }

  /**
   * "latest" mode: deletes the namespace's records other than the new checkpoint. One that cannot
   * be deleted stays in the log and is tried again after the next `put`; it never hides the new
   * checkpoint (the latest is the greatest id), so the `put` itself has succeeded.
   */
  async #deleteSuperseded(threadId: string, superseded: RecordEntry[]): Promise<void> {
    const window = this.#threads.cached(threadId);
    if (!window) return;
    try {
      await this.#threads.deleteRecords(threadId, window.serviceThreadId, superseded);
    } catch {
      // Kept in the log: deleted with the next put's records.
    }
  }

  async *#allThreadIds(): AsyncGenerator<string> {
    const seen = new Set<string>();
    for await (const { threadId } of this.#threads.checkpointThreads()) {
      if (seen.has(threadId)) continue;
      seen.add(threadId);
      yield threadId;
    }
  }
}
