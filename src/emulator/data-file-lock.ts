/**
 * One emulator per data file: two emulators appending to one file interleave their changes and
 * compact each other's away, so a confirmed write is lost at the next start. The emulator that
 * opens a data file creates `<file>.lock` beside it (created exclusively, holding its pid, host
 * and start time) and removes it when it closes; another emulator, in this process or any other,
 * then refuses the file with `EmulatorDataFileError`.
 *
 * A lock whose process is gone (a crash, a `kill -9`) is stale and taken over. A lock from
 * another host cannot be checked and is always respected: the error says which file to delete.
 */
import { randomUUID } from "node:crypto";
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";

export interface LockHolder {
  pid: number;
  hostname: string;
  startedAt: string;
  /** Tells this lock from a later one of the same process. */
  token: string;
}

export interface DataFileLock {
  readonly lockPath: string;
  /** Removes the lock file if it is still this lock's. Idempotent. */
  release(): void;
}

/** Why the file cannot be locked; the caller wraps it in `EmulatorDataFileError`. */
export class DataFileLockedError extends Error {}

/** Locks held by this module instance, released when the process exits without closing them. */
const held = new Set<DataFileLock>();
let exitHookInstalled = false;

export function lockDataFile(path: string): DataFileLock {
  const lockPath = `${path}.lock`;
  const me: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    token: randomUUID(),
  };
  // Twice at most: a stale lock is taken away once, then the file is created for good (or
  // another emulator that started at the same moment won it).
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, "wx");
      try {
        writeFileSync(fd, `${JSON.stringify(me)}\n`);
      } finally {
        closeSync(fd);
      }
      return hold(lockPath, me.token);
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EEXIST") {
        throw new DataFileLockedError(
          `its lock file ${lockPath} could not be created (${(error as Error).message})`,
        );
      }
    }
    const holder = readHolder(lockPath);
    if (holder === "gone") continue;
    if (holder === "starting") {
      throw new DataFileLockedError(
        `another emulator is opening it this moment (its lock file ${lockPath} is still empty); ` +
          "if no emulator uses it, delete the lock file",
      );
    }
    if (holder !== undefined && !isStale(holder)) {
      const who =
        holder.pid === process.pid && holder.hostname === me.hostname
          ? `another emulator in this process (pid ${holder.pid})`
          : `another emulator (pid ${holder.pid} on ${holder.hostname})`;
      throw new DataFileLockedError(
        `${who} has had it open since ${holder.startedAt}. Close that emulator, or pass another ` +
          `dataFile; if no emulator uses it, delete ${lockPath}`,
      );
    }
    if (holder === undefined) {
      throw new DataFileLockedError(
        `its lock file ${lockPath} is not an emulator's lock; if no emulator uses the data ` +
          "file, delete the lock file",
      );
    }
    removeStale(lockPath, holder);
  }
  throw new DataFileLockedError(
    `another emulator took its lock (${lockPath}) while this one was starting; close that ` +
      "emulator, or pass another dataFile",
  );
}

function hold(lockPath: string, token: string): DataFileLock {
  const lock: DataFileLock = {
    lockPath,
    release() {
      if (!held.delete(lock)) return;
      const holder = readHolder(lockPath);
      // Only our own lock: a stale-lock takeover elsewhere may have replaced it meanwhile.
      if (typeof holder === "object" && holder.token === token) {
        try {
          unlinkSync(lockPath);
        } catch {
          // Already gone.
        }
      }
    },
  };
  held.add(lock);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A process that ends without closing its emulators leaves no lock behind (a crash still
    // can; such a lock is stale and taken over).
    process.once("exit", () => {
      for (const lock of [...held]) lock.release();
    });
  }
  return lock;
}

/**
 * The lock's holder; "gone" when the file vanished meanwhile, "starting" while it is still empty
 * (created, not yet written); undefined when it is not an emulator's lock.
 */
function readHolder(lockPath: string): LockHolder | "gone" | "starting" | undefined {
  let text: string;
  try {
    text = readFileSync(lockPath, "utf8");
  } catch (error) {
    return (error as { code?: unknown }).code === "ENOENT" ? "gone" : undefined;
  }
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (
      typeof value.pid === "number" &&
      typeof value.hostname === "string" &&
      typeof value.startedAt === "string" &&
      typeof value.token === "string"
    ) {
      return value as LockHolder;
    }
  } catch {
    // Not JSON: empty while being written, else not an emulator's lock.
  }
  return text === "" ? "starting" : undefined;
}

/** Stale: the holder ran on this host and its process is gone. */
export function isStale(holder: LockHolder): boolean {
  if (holder.hostname !== hostname() || !(holder.pid > 0)) return false;
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    // EPERM: alive, owned by another user.
    return (error as { code?: unknown }).code === "ESRCH";
  }
}

/**
 * Takes a stale lock away without ever removing a fresh one: the lock file is moved aside (an
 * atomic rename), and if what was moved is not the stale lock (another emulator took over the
 * stale lock in between), it is put back (a link, which fails rather than overwrite).
 */
function removeStale(lockPath: string, stale: LockHolder): void {
  const aside = `${lockPath}.${process.pid}.${randomUUID()}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return; // Gone already: the next attempt creates it.
  }
  const moved = readHolder(aside);
  if (moved !== "gone" && !(typeof moved === "object" && moved.token === stale.token)) {
    try {
      linkSync(aside, lockPath);
    } catch {
      // Yet another lock is there now; it is the holder, ours goes.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // Nothing to clean.
  }
}
