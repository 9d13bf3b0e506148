/**
 * StudioCheckpointSaver: LangGraph checkpoints and pending writes kept in service threads, one
 * service thread per LangGraph `thread_id`.
 *
 * Per step it stores one message for the checkpoint (without its channel values, plus the values
 * of only the channels that step changed, each under its new version) and one message per task's
 * writes, as the Postgres saver stores rows. Reading rebuilds a checkpoint's `channel_values` from
 * the blobs of the versions its `channel_versions` name, wherever in the thread they were stored.
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
import type { CheckpointLog } from "./checkpoint-log";
import {
  type CheckpointRecord,
  DEFAULT_PART_CHARS,
  loadValue,
  RECORD_FORMAT,
  recordMessages,
  type StoredValue,
  storeValue,
  type WritesRecord,
} from "./records";
import { CheckpointThreads } from "./thread-store";

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
   * How many LangGraph threads keep their records in memory (default 100), so a read costs one
   * call; a thread beyond them, least recently used first, is read whole again when next used.
   */
  maxCachedThreads?: number | undefined;
};

const DEFAULT_CACHED_THREADS = 100;

export class StudioCheckpointSaver extends BaseCheckpointSaver {
  readonly #threads: CheckpointThreads;
  readonly #partChars: number;

  constructor(fields: StudioCheckpointSaverFields = {}) {
    super(fields.serde);
    const { datasetId, serde: _serde, maxMessageChars, maxCachedThreads, ...clientFields } = fields;
    if (datasetId !== undefined && (typeof datasetId !== "string" || datasetId === "")) {
      throw new StudioValidationError("datasetId", "must be a non-empty string");
    }
    if (
      maxMessageChars !== undefined &&
      (!Number.isInteger(maxMessageChars) || maxMessageChars < 1_000)
    ) {
      throw new StudioValidationError(
        "maxMessageChars",
        `must be an integer of at least 1000 (got ${String(maxMessageChars)})`,
      );
    }
    if (
      maxCachedThreads !== undefined &&
      (!Number.isInteger(maxCachedThreads) || maxCachedThreads < 1)
    ) {
      throw new StudioValidationError(
        "maxCachedThreads",
        `must be an integer of at least 1 (got ${String(maxCachedThreads)})`,
      );
    }
    this.#threads = new CheckpointThreads(
      resolveClient(clientFields),
      datasetId,
      maxCachedThreads ?? DEFAULT_CACHED_THREADS,
    );
    this.#partChars = maxMessageChars ?? DEFAULT_PART_CHARS;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const raw = config.configurable?.thread_id;
    if (raw === undefined || raw === null) return undefined;
    const threadId = threadIdOf(raw);
    const ns = namespaceOf(config);
    const log = await this.#threads.read(threadId);
    const record = log?.checkpoint(ns, config.configurable?.checkpoint_id || undefined);
    return record && log ? this.#tuple(threadId, log, record) : undefined;
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
    const threadIds = wanted === undefined ? this.#threads.threadIds() : one(wanted);
    for await (const threadId of threadIds) {
      const log = await this.#threads.read(threadId);
      if (!log) continue;
      for (const record of log.allCheckpoints(ns)) {
        if (remaining !== undefined && remaining <= 0) return;
        if (checkpointId !== undefined && record.checkpointId !== checkpointId) continue;
        if (beforeId !== undefined && record.checkpointId >= beforeId) continue;
        const tuple = await this.#tuple(threadId, log, record);
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
    const copy = copyCheckpoint(checkpoint);
    const values: Record<string, unknown> = copy.channel_values ?? {};
    const { channel_values: _values, ...withoutValues } = copy;
    const blobs: CheckpointRecord["blobs"] = {};
    for (const [channel, version] of Object.entries(newVersions)) {
      // A channel that changed to empty is stored as such, so an older value is not read back.
      const value: StoredValue =
        channel in values
          ? storeValue(await this.serde.dumpsTyped(values[channel]))
          : { type: "empty" };
      blobs[channel] = { version, value };
    }
    const record: CheckpointRecord = {
      kind: "checkpoint",
      format: RECORD_FORMAT,
      threadId,
      ns,
      checkpointId: checkpoint.id,
      parentId: config.configurable?.checkpoint_id || undefined,
      checkpoint: storeValue(await this.serde.dumpsTyped(withoutValues)),
      metadata: storeValue(await this.serde.dumpsTyped(metadata)),
      blobs,
    };
    await this.#threads.append(
      threadId,
      recordMessages(record, this.#partChars),
      `checkpoint ${checkpoint.id}`,
    );
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
    await this.#threads.append(
      threadId,
      recordMessages(record, this.#partChars),
      `the writes of task ${taskId} at checkpoint ${checkpointId}`,
    );
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.#threads.delete(threadIdOf(threadId));
  }

  async #tuple(
    threadId: string,
    log: CheckpointLog,
    record: CheckpointRecord,
  ): Promise<CheckpointTuple> {
    const checkpoint = (await this.#load(record.checkpoint)) as Checkpoint;
    const values: Record<string, unknown> = {};
    for (const [channel, version] of Object.entries(checkpoint.channel_versions ?? {})) {
      const blob = log.blob(record.ns, channel, version);
      if (blob && blob.type !== "empty") values[channel] = await this.#load(blob);
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
          async (w) => [w.taskId, w.channel, await this.#load(w.value)] as CheckpointPendingWrite,
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
    checkpoint.channel_values[TASKS] = await Promise.all(sends.map((w) => this.#load(w.value)));
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }

  #load(value: StoredValue): Promise<unknown> {
    const [type, data] = loadValue(value);
    return this.serde.loadsTyped(type, data);
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
