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
  type CheckpointPendingWrite,
  type CheckpointTuple,
  copyCheckpoint,
  maxChannelVersion,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
  WRITES_IDX_MAP,
} from "@langchain/langgraph-checkpoint";
import { resolveClient, type StudioClientFields } from "../client/resolve";
import { StudioValidationError } from "../errors";
import { planBlobs, rememberStored } from "./blob-plan";
import { nextVersion } from "./channel-values";
import type { CheckpointEntry, CheckpointLog } from "./checkpoint-log";
import {
  type CheckpointRecord,
  DEFAULT_PART_CHARS,
  type LoadedValue,
  loadValue,
  RECORD_FORMAT,
  recordMessages,
  type StoredRecord,
  type StoredValue,
  storeValue,
  type WritesRecord,
} from "./records";
import { planPrune } from "./retention";
import { CheckpointThreads } from "./thread-store";
import type { ThreadWindow } from "./thread-window";
import { checkpointKey, WriteOrder } from "./write-order";

export type StudioCheckpointSaverFields = StudioClientFields & {
  /** Keep the checkpoint threads among this dataset's threads (and look them up there only). */
  datasetId?: string | undefined;
  /** Serializer for checkpoints and writes (LangGraph's JSON serializer by default). */
  serde?: SerializerProtocol | undefined;
  /**
   * A record longer than this many characters is split over several messages (default 100,000).
   * The service's message size limit is not published; lower this if it refuses large messages.
   */
  maxMessageChars?: number | undefined;
  /**
   * How many LangGraph threads a saver keeps in memory (default 100), so a read costs one call;
   * a thread beyond them, least recently used first, is read again from its newest messages.
   */
  maxCachedThreads?: number | undefined;
  /**
   * "all" (default) keeps every checkpoint (history, replay, forks). "latest" keeps only the
   * newest checkpoint of each namespace, as LangGraph's shallow savers do: each `put` stores every
   * value whole and deletes the checkpoints and writes it supersedes.
   */
  keep?: "all" | "latest" | undefined;
};

export interface PruneOptions {
  /** Checkpoints to keep per namespace, newest first (at least 1). */
  keepLast: number;
}

const DEFAULT_CACHED_THREADS = 100;

export class StudioCheckpointSaver extends BaseCheckpointSaver {
  readonly #threads: CheckpointThreads;
  readonly #partChars: number;
  readonly #keep: "all" | "latest";
  readonly #order = new WriteOrder();

  constructor(fields: StudioCheckpointSaverFields = {}) {
    super(fields.serde);
    const {
      datasetId,
      serde: _serde,
      maxMessageChars,
      maxCachedThreads,
      keep,
      ...clientFields
    } = fields;
    if (datasetId !== undefined && (typeof datasetId !== "string" || datasetId === "")) {
      throw new StudioValidationError("datasetId", "must be a non-empty string");
    }
    checkInteger("maxMessageChars", maxMessageChars, 1_000);
    checkInteger("maxCachedThreads", maxCachedThreads, 1);
    if (keep !== undefined && keep !== "all" && keep !== "latest") {
      throw new StudioValidationError("keep", `must be "all" or "latest" (got ${String(keep)})`);
    }
    this.#threads = new CheckpointThreads(
      resolveClient(clientFields),
      datasetId,
      maxCachedThreads ?? DEFAULT_CACHED_THREADS,
    );
    this.#partChars = maxMessageChars ?? DEFAULT_PART_CHARS;
    this.#keep = keep ?? "all";
  }

  /**
   * Versions unique to each write (a counter and a random part), so a replay, a fork or another
   * process never stores a different value under a version already used. LangGraph compares
   * them as strings; the counter is zero-padded so that string order is counter order.
   */
  override getNextVersion(current: number | undefined): number {
    // LangGraph takes string versions (compareChannelVersions); the base class types them as numbers.
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
        ? readLatest(window, ns)
        : readById(window, ns, checkpointId));
      return entry && (await this.#tuple(threadId, window.log, entry));
    });
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
      for (const found of window.log.checkpoints(ns)) {
        if (remaining !== undefined && remaining <= 0) return;
        const id = found.record.checkpointId;
        if (checkpointId !== undefined && id !== checkpointId) continue;
        if (beforeId !== undefined && id >= beforeId) continue;
        const tuple = await this.#tuple(threadId, window.log, found);
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
    const changed = new Map<string, StoredValue>();
    for (const channel of Object.keys(toStore)) {
      // A channel that changed to empty is stored as such, so an older value is not read back.
      changed.set(
        channel,
        channel in values
          ? storeValue(await this.serde.dumpsTyped(values[channel]))
          : { type: "empty" },
      );
    }
    const storedCheckpoint = storeValue(await this.serde.dumpsTyped(rest));
    const storedMetadata = storeValue(await this.serde.dumpsTyped(metadata));
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
      const record: CheckpointRecord = {
        kind: "checkpoint",
        format: RECORD_FORMAT,
        threadId,
        ns,
        checkpointId: checkpoint.id,
        parentId,
        versions,
        checkpoint: storedCheckpoint,
        metadata: storedMetadata,
        blobs: plan.blobs,
        ...(earlyWrites.length > 0 ? { earlyWrites } : {}),
      };
      const entry = await this.#append(threadId, record, `checkpoint ${checkpoint.id}`);
      const log = this.#threads.cached(threadId)?.log;
      if (!entry || !log) return;
      rememberStored(log, ns, plan, entry.place);
      if (this.#keep === "latest") await this.#deleteSuperseded(threadId, log, ns, checkpoint.id);
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
    const record: WritesRecord = {
      kind: "writes",
      format: RECORD_FORMAT,
      threadId,
      ns: namespaceOf(config),
      checkpointId,
      taskId,
      taskPath: taskPath ?? "",
      writes: await Promise.all(
        writes.map(async ([channel, value], idx) => ({
          idx: WRITES_IDX_MAP[channel] ?? idx,
          channel,
          value: storeValue(await this.serde.dumpsTyped(value)),
        })),
      ),
    };
    const known = this.#threads.cached(threadId)?.log.checkpoint(record.ns, checkpointId);
    await this.#order.write(
      checkpointKey(threadId, record.ns, checkpointId),
      taskId,
      // Empty writes leave nothing a reader could wait for.
      known !== undefined || writes.length === 0,
      () =>
        this.#append(
          threadId,
          record,
          `the writes of task ${taskId} at checkpoint ${checkpointId}`,
        ),
    );
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.#threads.delete(threadIdOf(threadId));
  }

  /**
   * Deletes the older checkpoints of each thread: per namespace, all but the `keepLast` newest
   * and those waiting on an interrupt, with their writes. A kept checkpoint that reads a value
   * through a deleted record first gets a whole copy of it. Costs: the whole thread is read (one
   * call per 100 messages), one call for the copies, and one call per deleted message.
   */
  async prune(threadIds: readonly string[], options: PruneOptions): Promise<void> {
    const keepLast = options?.keepLast;
    if (!Number.isInteger(keepLast) || keepLast < 1) {
      throw new StudioValidationError(
        "keepLast",
        `must be an integer of at least 1 (got ${String(keepLast)})`,
      );
    }
    for (const raw of threadIds) {
      const threadId = threadIdOf(raw);
      const window = await this.#threads.readAll(threadId);
      if (!window) continue;
      const plan = planPrune(window.log, threadId, keepLast);
      for (const values of plan.copies) {
        await this.#append(threadId, values, `copies of the values that kept checkpoints need`);
      }
      await this.#threads.deleteRecords(threadId, window.serviceThreadId, plan.remove);
    }
  }

  /**
   * Deletes every LangGraph thread (of the account, or of `datasetId`) whose newest message is
   * older than `olderThan`: the time-to-live the service does not have. Costs: one call per 100
   * threads of the account, one per checkpoint thread, one per deleted thread. Returns the
   * deleted `thread_id`s.
   */
  async deleteThreads(options: { olderThan: Date | number }): Promise<string[]> {
    const cutoff =
      options?.olderThan instanceof Date ? options.olderThan.getTime() : options?.olderThan;
    if (typeof cutoff !== "number" || !Number.isFinite(cutoff)) {
      throw new StudioValidationError(
        "olderThan",
        `must be a Date or a time in milliseconds (got ${String(options?.olderThan)})`,
      );
    }
    const expired = [];
    for await (const info of this.#threads.checkpointThreads(true)) {
      if (info.lastActivity !== undefined && info.lastActivity < cutoff) expired.push(info);
    }
    // Listed first, deleted after: a listing's cursor must not be a thread deleted meanwhile.
    for (const info of expired) {
      await this.#threads.deleteServiceThread(info.threadId, info.serviceThreadId);
    }
    return [...new Set(expired.map((info) => info.threadId))];
  }

  #append(threadId: string, record: StoredRecord, what: string) {
    return this.#threads.append(threadId, record, recordMessages(record, this.#partChars), what);
  }

  /**
   * "latest" mode: deletes the namespace's records other than the new checkpoint. One that cannot
   * be deleted stays in the log and is tried again after the next `put`; it never hides the new
   * checkpoint (the latest is the greatest id), so the `put` itself has succeeded.
   */
  async #deleteSuperseded(
    threadId: string,
    log: CheckpointLog,
    ns: string,
    checkpointId: string,
  ): Promise<void> {
    const window = this.#threads.cached(threadId);
    if (!window) return;
    const superseded = [...log.entries()].filter(
      (entry) => entry.ns === ns && entry.checkpointId !== checkpointId,
    );
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

  async #tuple(
    threadId: string,
    log: CheckpointLog,
    found: CheckpointEntry,
  ): Promise<CheckpointTuple> {
    const { record } = found;
    const checkpoint = (await this.#load(record.checkpoint)) as Checkpoint;
    checkpoint.channel_versions = { ...record.versions };
    const values: Record<string, unknown> = {};
    for (const [channel, version] of Object.entries(record.versions)) {
      const resolved = log.resolve(record.ns, channel, version);
      if (resolved?.value) values[channel] = await this.#loadValue(resolved.value);
    }
    checkpoint.channel_values = values;
    if (checkpoint.v < 4 && record.parentId !== undefined) {
      await this.#migratePendingSends(checkpoint, log, record.ns, record.parentId);
    }
    const config = (checkpointId: string) => ({
      configurable: { thread_id: threadId, checkpoint_ns: record.ns, checkpoint_id: checkpointId },
    });
    const pendingWrites: CheckpointPendingWrite[] = await Promise.all(
      log
        .pendingWrites(record.ns, record.checkpointId)
        .map(
          async (w) =>
            [w.taskId, w.channel, await this.#loadValue(w.value)] as CheckpointPendingWrite,
        ),
    );
    return {
      config: config(record.checkpointId),
      checkpoint,
      metadata: (await this.#load(record.metadata)) as CheckpointMetadata,
      ...(record.parentId === undefined ? {} : { parentConfig: config(record.parentId) }),
      pendingWrites,
    };
  }

  /** Checkpoints before format 4 kept pending sends as writes to TASKS on their parent. */
  async #migratePendingSends(
    checkpoint: Checkpoint,
    log: CheckpointLog,
    ns: string,
    parentId: string,
  ): Promise<void> {
    const sends = log.pendingWrites(ns, parentId).filter((w) => w.channel === TASKS);
    checkpoint.channel_values[TASKS] = await Promise.all(
      sends.map((w) => this.#loadValue(w.value)),
    );
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }

  #load(value: StoredValue): Promise<unknown> {
    const [type, data] = loadValue(value);
    return this.serde.loadsTyped(type, data);
  }

  #loadValue(value: LoadedValue): Promise<unknown> {
    return value === null
      ? Promise.resolve(undefined)
      : this.serde.loadsTyped(value.type, value.data);
  }
}

/** The newest checkpoint of `ns`, read until every value it names is read. */
async function readLatest(window: ThreadWindow, ns: string): Promise<CheckpointEntry | undefined> {
  const { log } = window;
  await window.catchUp();
  await window.extendDown(() => {
    const head = log.checkpoint(ns);
    return head !== undefined && log.isReadable(head);
  });
  const head = log.checkpoint(ns);
  window.trim();
  return head;
}

/** The checkpoint `id` of `ns`: in the window, else above it (a catch-up), else further down. */
async function readById(
  window: ThreadWindow,
  ns: string,
  id: string,
): Promise<CheckpointEntry | undefined> {
  const { log } = window;
  if (!log.checkpoint(ns, id)) await window.catchUp();
  await window.extendDown(() => {
    const found = log.checkpoint(ns, id);
    return found !== undefined && log.isReadable(found);
  });
  return log.checkpoint(ns, id);
}

function checkInteger(field: string, value: unknown, min: number): void {
  if (value !== undefined && (!Number.isInteger(value) || (value as number) < min)) {
    throw new StudioValidationError(
      field,
      `must be an integer of at least ${min} (got ${String(value)})`,
    );
  }
}

function namespaceOf(config: RunnableConfig): string {
  return config.configurable?.checkpoint_ns ?? "";
}

/** The thread id as stored (a number is taken as its decimal text, as other savers do). */
function threadIdOf(threadId: unknown): string {
  if (typeof threadId === "number" && Number.isFinite(threadId)) return String(threadId);
  if (typeof threadId !== "string" || threadId === "") {
    throw new StudioValidationError(
      "config.configurable.thread_id",
      `must be a non-empty string (got ${JSON.stringify(threadId) ?? String(threadId)})`,
    );
  }
  return threadId;
}

function requireThreadId(config: RunnableConfig, action: string): string {
  const threadId = config.configurable?.thread_id;
  if (threadId === undefined || threadId === null) {
    throw new StudioValidationError(
      "config.configurable.thread_id",
      `is required to ${action}: pass { configurable: { thread_id: "<your conversation id>" } } when you invoke the graph`,
    );
  }
  return threadIdOf(threadId);
}

/** Metadata filter as the Postgres saver applies it (`metadata @> filter`), key by key. */
function matches(
  metadata: CheckpointMetadata | undefined,
  filter: Record<string, unknown>,
): boolean {
  const values = (metadata ?? {}) as Record<string, unknown>;
  return Object.entries(filter).every(([key, value]) => sameJson(values[key], value));
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

async function* one<T>(value: T): AsyncGenerator<T> {
  yield value;
}
