/**
 * The data file: loaded once at start, saved after mutations. Saves are atomic (temporary file in
 * the same directory, fsync, rename), so a crash leaves the old file or the new one, never half of
 * one; bursts of mutations are coalesced into one write; `flush()` always writes what is pending.
 */
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { type Snapshot, SnapshotSchema } from "./store";

const COALESCE_MS = 20;

export class EmulatorDataFileError extends Error {
  readonly file: string;

  constructor(file: string, reason: string, options?: { cause?: unknown }) {
    super(
      `Emulator data file ${file} cannot be used: ${reason}. It was left untouched; fix it, move it away, or pass another dataFile.`,
      options,
    );
    this.name = "EmulatorDataFileError";
    this.file = file;
  }
}

/** The saved state, or undefined when the file does not exist yet. */
export async function loadSnapshot(file: string): Promise<Snapshot | undefined> {
  const path = resolve(file);
  await mkdir(dirname(path), { recursive: true });
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return undefined;
    throw new EmulatorDataFileError(path, `it could not be read (${(error as Error).message})`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new EmulatorDataFileError(path, `it is not valid JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  const parsed = SnapshotSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
    throw new EmulatorDataFileError(
      path,
      `it is not emulator data${where} (${issue?.message ?? "unexpected shape"})`,
    );
  }
  // Checked against the wire schemas above; the records are what the emulator itself wrote. The
  // parsed JSON itself is kept, not zod's copy: that copy drops a metadata key named "__proto__".
  return json as Snapshot;
}

export class Persister {
  private readonly path: string;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private saving: Promise<void> | undefined;
  private tempCounter = 0;
  private lastError: unknown;

  constructor(
    file: string,
    private readonly snapshot: () => Snapshot,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.path = resolve(file);
  }

  markDirty(): void {
    this.dirty = true;
    if (this.timer || this.saving) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.saveNow().catch(() => {});
    }, COALESCE_MS);
    this.timer.unref();
  }

  /** Writes whatever is pending (retrying a failed write once); rejects when that write fails. */
  async flush(): Promise<void> {
    for (;;) {
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
      if (this.saving) {
        await this.saving.catch(() => {});
      } else if (this.dirty || this.lastError !== undefined) {
        await this.saveNow();
      } else {
        return;
      }
    }
  }

  private saveNow(): Promise<void> {
    this.dirty = false;
    const data = JSON.stringify(this.snapshot());
    this.saving = this.write(data)
      .then(() => {
        this.lastError = undefined;
      })
      .catch((error: unknown) => {
        this.lastError = error;
        this.onError(error);
        throw error;
      })
      .finally(() => {
        this.saving = undefined;
        // Mutations that arrived during the write get their own (coalesced) save.
        if (this.dirty) this.markDirty();
      });
    return this.saving;
  }

  private async write(data: string): Promise<void> {
    this.tempCounter += 1;
    const temp = join(
      dirname(this.path),
      `.${basename(this.path)}.${process.pid}.${this.tempCounter}.tmp`,
    );
    const handle = await open(temp, "w");
    try {
      await handle.writeFile(data, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, this.path);
    } catch (error) {
      await unlink(temp).catch(() => {});
      throw error;
    }
  }
}
