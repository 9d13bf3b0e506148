/**
 * The data file, in JSON lines: the first line is a snapshot of the state, each further line one
 * change made since. A change is appended before it is applied and answered, so a killed process
 * loses nothing it confirmed; no fsync per change, so a power cut may lose the last ones.
 *
 * Once the log holds more changes than the snapshot has records (and at least
 * `MIN_CHANGES_BEFORE_COMPACTION`), the file is compacted: rewritten as one new snapshot line
 * (temporary file, fsync, rename), so a crash leaves the old file or the new one. Saving thus costs
 * one short append per change, whatever the size of the state, and start-up reads about twice the
 * state at most. A crash in the middle of an append can only cut the last line short; that line
 * never reached its caller as a success, and is dropped on load.
 */
import {
  appendFileSync,
  closeSync,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { z } from "zod/v4";
import { AssistantSchema, ThreadMessageSchema, ThreadSchema } from "../api-types";
import { type DataFileLock, DataFileLockedError, lockDataFile } from "./data-file-lock";
import { createRng, type Rng } from "./rng";
import { type Change, type Snapshot, Store } from "./store";

export const DATA_FORMAT = "langchain-studio-emulator";
/** 1 was the snapshot alone, without a newline; it is still read. */
export const DATA_VERSION = 2;
const MIN_CHANGES_BEFORE_COMPACTION = 1_000;

// The wire schemas use zod's mini API (no methods), so they are extended by spreading shapes.
const ThreadRecordSchema = z.looseObject({
  ...ThreadSchema.shape,
  id: z.string().startsWith("thread_"),
});
const MessageRecordSchema = z.looseObject({ ...ThreadMessageSchema.shape, threadId: z.string() });
const AssistantRecordSchema = z.looseObject({
  ...AssistantSchema.shape,
  id: z.string().startsWith("asst_"),
});

/** The first line; the wire schemas check the resources themselves. */
const SnapshotLineSchema = z.object({
  format: z.literal(DATA_FORMAT),
  version: z.union([z.literal(1), z.literal(DATA_VERSION)]),
  seq: z.number().int().nonnegative(),
  threads: z.array(ThreadRecordSchema),
  messages: z.array(MessageRecordSchema),
  assistants: z.array(AssistantRecordSchema),
});

/** Every further line. */
const ChangeSchema = z.discriminatedUnion("op", [
  z.object({
    op: z.literal("createThread"),
    thread: ThreadRecordSchema,
    messages: z.array(MessageRecordSchema),
  }),
  z.object({ op: z.literal("deleteThread"), id: z.string() }),
  z.object({ op: z.literal("addMessage"), message: MessageRecordSchema }),
  z.object({ op: z.literal("deleteMessage"), threadId: z.string(), id: z.string() }),
  z.object({ op: z.literal("createAssistant"), assistant: AssistantRecordSchema }),
  z.object({ op: z.literal("deleteAssistant"), id: z.string() }),
  z.object({ op: z.literal("clear") }),
]);

export class EmulatorDataFileError extends Error {
  readonly file: string;

  /** `tail`: what follows the reason (by default, what to do with a file that cannot be read). */
  constructor(
    file: string,
    reason: string,
    options?: { cause?: unknown },
    tail = "It was left untouched; fix it, move it away, or pass another dataFile.",
  ) {
    super(`Emulator data file ${file} cannot be used: ${reason}. ${tail}`, options);
    this.name = "EmulatorDataFileError";
    this.file = file;
  }
}

/** What a data file holds. */
export interface SavedState {
  snapshot: Snapshot;
  changes: Change[];
  /** Appending would damage the file (a version 1 file, a cut last line): rewrite it first. */
  rewriteFirst: boolean;
}

/**
 * The store kept in `file`: its saved state restored, and every later change appended to it. The
 * file is locked for this emulator until `dataFile.shutdown()` (see `data-file-lock.ts`).
 */
export async function openStore(
  file: string,
  rng: Rng,
): Promise<{ store: Store; dataFile: DataFile }> {
  const path = resolve(file);
  await mkdir(dirname(path), { recursive: true });
  let lock: DataFileLock;
  try {
    lock = lockDataFile(path);
  } catch (error) {
    if (!(error instanceof DataFileLockedError)) throw error;
    throw new EmulatorDataFileError(
      path,
      error.message,
      { cause: error },
      "It was left untouched.",
    );
  }
  try {
    const saved = await loadDataFile(path);
    const dataFile = new DataFile(path, saved, () => store.snapshot(), lock);
    const store = new Store(rng, (change) => dataFile.append(change));
    if (saved) replay(store, saved);
    return { store, dataFile };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** The state `file` holds, read without opening it for writing (undefined: no such file). */
export async function readDataFile(file: string): Promise<Snapshot | undefined> {
  const saved = await loadDataFile(resolve(file));
  if (!saved) return undefined;
  // Replaying issues no id, so the seed of the store's generator does not matter.
  const store = new Store(createRng(0));
  replay(store, saved);
  return store.snapshot();
}

function replay(store: Store, saved: SavedState): void {
  store.restore(saved.snapshot);
  for (const change of saved.changes) store.apply(change);
}

/** The saved state, or undefined when the file does not exist yet. */
export async function loadDataFile(path: string): Promise<SavedState | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return undefined;
    throw new EmulatorDataFileError(path, `it could not be read (${(error as Error).message})`, {
      cause: error,
    });
  }
  const firstEnd = bytes.indexOf(0x0a);
  const firstLine = bytes.toString("utf8", 0, firstEnd === -1 ? bytes.length : firstEnd);
  const {
    format: _format,
    version: _version,
    ...snapshot
  } = parseLine(path, firstLine, SnapshotLineSchema, "") as Snapshot & {
    format: string;
    version: number;
  };
  if (firstEnd === -1) return { snapshot, changes: [], rewriteFirst: true };

  // Only the last line can be cut short, and it is the part after the last newline.
  const lastEnd = bytes.lastIndexOf(0x0a);
  const changes: Change[] = [];
  const lines = bytes.toString("utf8", firstEnd + 1, lastEnd).split("\n");
  lines.forEach((line, i) => {
    if (line.trim() !== "") {
      changes.push(parseLine(path, line, ChangeSchema, `line ${i + 2}`) as Change);
    }
  });
  return { snapshot, changes, rewriteFirst: lastEnd < bytes.length - 1 };
}

/**
 * Checked against the schema, but the parsed JSON itself is returned, not zod's copy: that copy
 * drops a metadata key named "__proto__". The records are what the emulator itself wrote.
 */
function parseLine(path: string, text: string, schema: z.ZodType, where: string): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const at = where ? ` at ${where}` : "";
    throw new EmulatorDataFileError(
      path,
      `it is not valid JSON${at} (${(error as Error).message})`,
      {
        cause: error,
      },
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.join(".") : "";
    const at = [where, field].filter(Boolean).join(", ");
    throw new EmulatorDataFileError(
      path,
      `it is not emulator data${at ? ` at ${at}` : ""} (${issue?.message ?? "unexpected shape"})`,
    );
  }
  return json;
}

/** Keeps the data file in step with the store: appends changes, compacts the log when it is due. */
export class DataFile {
  /** Open for appending; undefined while the file must be rewritten before the next append. */
  private fd: number | undefined;
  private snapshotRecords: number;
  private changesSinceSnapshot: number;
  private tempCounter = 0;

  constructor(
    readonly path: string,
    saved: SavedState | undefined,
    private readonly snapshot: () => Snapshot,
    private readonly lock?: DataFileLock,
  ) {
    this.snapshotRecords = saved ? recordsOf(saved.snapshot) : 0;
    this.changesSinceSnapshot = saved?.changes.length ?? 0;
    if (saved && !saved.rewriteFirst) {
      try {
        this.fd = openSync(path, "a");
      } catch (error) {
        throw new EmulatorDataFileError(
          path,
          `it could not be opened for writing (${(error as Error).message})`,
          { cause: error },
        );
      }
    }
  }

  /** Appends one change; throws, saying the change was not stored, when that fails. */
  append(change: Change): void {
    try {
      const due =
        this.changesSinceSnapshot >= Math.max(MIN_CHANGES_BEFORE_COMPACTION, this.snapshotRecords);
      if (this.fd === undefined || due) this.compact();
      appendFileSync(this.fd!, `${JSON.stringify(change)}\n`);
      this.changesSinceSnapshot += 1;
    } catch (error) {
      // Part of the line may be in the file, where the next change would follow it: rewrite first.
      this.close();
      throw new Error(
        `Emulator data file ${this.path} could not be written (${(error as Error).message}); ` +
          "the change was not stored. Check that the file's folder exists, is writable and " +
          "has space.",
        { cause: error },
      );
    }
  }

  /** Rewrites the file as one snapshot of the current state. */
  compact(): void {
    const snapshot = this.snapshot();
    const text = `${JSON.stringify({ format: DATA_FORMAT, version: DATA_VERSION, ...snapshot })}\n`;
    this.tempCounter += 1;
    const temp = join(
      dirname(this.path),
      `.${basename(this.path)}.${process.pid}.${this.tempCounter}.tmp`,
    );
    try {
      const fd = openSync(temp, "w");
      try {
        writeFileSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, this.path);
    } catch (error) {
      try {
        unlinkSync(temp);
      } catch {
        // Never created, or already renamed.
      }
      throw error;
    }
    this.close();
    this.fd = openSync(this.path, "a");
    this.snapshotRecords = recordsOf(snapshot);
    this.changesSinceSnapshot = 0;
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  /** The emulator is done with the file: closes it and releases its lock. */
  shutdown(): void {
    this.close();
    this.lock?.release();
  }
}

function recordsOf(snapshot: Snapshot): number {
  return snapshot.threads.length + snapshot.messages.length + snapshot.assistants.length;
}
