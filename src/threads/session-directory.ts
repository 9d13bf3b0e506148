/**
 * Where a process looks for a session's thread, and what it remembers of the answers: one
 * directory per account (or per client passed in, see `service-identity.ts`) and per caller's
 * dataset. What it remembers is a hint: a thread that turns out deleted is dropped and looked up
 * again (`drop`), and a session it does not know is always looked up at the service.
 *
 * Two ways to look, chosen per directory:
 *   - filed (the default): the session's own dataset is listed, one call (`session-datasets.ts`);
 *   - scan: every thread of the caller's dataset, or of the account when the service refused the
 *     made-up dataset ids, is listed once, then only the threads created since (one call per 100
 *     threads the first time, then one call). A caller's own `datasetId` keeps the session's
 *     thread in that dataset, as the caller asked (a thread has one dataset), so it is scanned.
 */
import type { StudioClient } from "../client";
import type { EncodedMessage } from "../converters/thread-messages";
import { KeyedSerialQueue } from "./serial-queue";
import { serviceIdentity, serviceIdentityNow } from "./service-identity";
import {
  createLayoutRecord,
  hasLayoutRecord,
  mayHoldUnscopedSession,
  refusesDataset,
  sessionDatasetId,
} from "./session-datasets";
import {
  listDataset,
  type SeenThread,
  SessionIndex,
  sessionKey,
  ThreadScan,
} from "./session-index";

export type SessionKind = "history" | "checkpoint" | "store";

/** A session as the directory addresses it. */
export interface SessionRef {
  sessionId: string;
  kind: SessionKind;
  /** Its key in the index. */
  key: string;
  /** The dataset its threads are filed under when filing is on. */
  ownDataset: string;
}

export async function sessionRef(sessionId: string, kind: SessionKind): Promise<SessionRef> {
  return {
    sessionId,
    kind,
    key: sessionKey(kind, sessionId),
    ownDataset: await sessionDatasetId(kind, sessionId),
  };
}

/** Sessions remembered per directory when they can be listed again one by one. */
const MAX_CACHED_SESSIONS = 10_000;
/** Accounts whose directories are kept (the least recently used beyond are dropped). */
const MAX_ACCOUNTS = 16;

/**
 * Whether this account's sessions are filed by dataset: "unknown" until a filed thread or the
 * account's record is seen, "filed" after, "refused" once the service refused a made-up id.
 */
type Filing = "unknown" | "filed" | "refused";

/**
 * A thread created for a session whose check for an older one failed, or whose creation could not
 * be confirmed (then only its client-made key is known): settled on the next look.
 */
export interface UncheckedThread {
  threadId?: string | undefined;
  /** The key in the thread's metadata, when its id is not known. */
  threadKey?: string | undefined;
  /** What the creating call wrote there. */
  batch: readonly EncodedMessage[];
}

export class SessionDirectory {
  /** Writes to a session's thread, one after another per session in this process. */
  readonly writes = new KeyedSerialQueue();
  /** By session key: never taken for the session's thread until a look-up shows it is. */
  readonly unchecked = new Map<string, UncheckedThread>();
  readonly #index = new SessionIndex();
  /** The caller's own dataset: sessions are looked up by scanning it. */
  readonly #userDataset: string | undefined;
  #scan: ThreadScan | undefined;
  #filing: Filing = "unknown";
  /** Whether the account's record is known to exist (found or created by this process). */
  #recordKnown = false;

  constructor(userDataset: string | undefined) {
    this.#userDataset = userDataset;
  }

  get #scans(): boolean {
    return this.#userDataset !== undefined || this.#filing === "refused";
  }

  /** The dataset a new thread of the session goes in. */
  datasetFor(session: SessionRef): string | undefined {
    if (this.#userDataset !== undefined) return this.#userDataset;
    return this.#filing === "refused" ? undefined : session.ownDataset;
  }

  /** The session's thread as last seen, without a call. */
  known(session: SessionRef): SeenThread | undefined {
    return this.#index.winner(session.key);
  }

  /** The session's thread: the one last seen, else looked up (undefined: the session is new). */
  async find(client: StudioClient, session: SessionRef): Promise<SeenThread | undefined> {
    return this.known(session) ?? this.look(client, session, true);
  }

  /**
   * Looks at the service for the session's threads. With `proveNew`, an empty answer is checked
   * as the account's filing requires (the record, else the account is scanned).
   */
  async look(
    client: StudioClient,
    session: SessionRef,
    proveNew = false,
  ): Promise<SeenThread | undefined> {
    if (this.#scans) return this.#scanned(client, session);
    try {
      await listDataset(client, session.ownDataset, this.#index);
      const found = this.#index.winner(session.key);
      // A service that filed one session files them all: no session of it is unfiled.
      if (found) this.#filed();
      if (found || !proveNew || this.#filing === "filed") return found;
      if (await hasLayoutRecord(client)) {
        this.#recordKnown = true;
        this.#filed();
        return undefined;
      }
    } catch (error) {
      if (!refusesDataset(error)) throw error;
      this.#refused(error);
    }
    // No record that this account files its sessions: one may have been created unfiled.
    return this.#scanned(client, session);
  }

  /**
   * Before a session thread is filed: makes sure the account records that it files sessions
   * (once per process). A refusal of the record's made-up dataset id turns filing off, with a
   * warning; any other failure leaves it for the next creation (without the record, processes
   * that only read list the account to prove a session new, which is slower, not wrong).
   */
  async prepareFiling(client: StudioClient): Promise<void> {
    if (this.#scans || this.#recordKnown) return;
    try {
      if (!(await hasLayoutRecord(client))) await createLayoutRecord(client);
      this.#recordKnown = true;
      this.#filed();
    } catch (error) {
      if (refusesDataset(error)) this.#refused(error);
    }
  }

  note(thread: Parameters<SessionIndex["note"]>[0]): void {
    this.#index.note(thread);
  }

  /** Forgets a thread of the session (deleted, or not its thread): the next find looks again. */
  drop(session: Pick<SessionRef, "key">, threadId: string | undefined): void {
    this.#index.drop(session.key, threadId);
  }

  async #scanned(client: StudioClient, session: SessionRef): Promise<SeenThread | undefined> {
    this.#scan ??= new ThreadScan(
      this.#userDataset,
      this.#index,
      this.#userDataset === undefined ? mayHoldUnscopedSession : undefined,
    );
    await this.#scan.refresh(client);
    return this.#index.winner(session.key);
  }

  #filed(): void {
    if (this.#filing !== "unknown") return;
    this.#filing = "filed";
    // From now on a forgotten session is listed again on its own: the cache can be bounded.
    this.#index.bound(MAX_CACHED_SESSIONS);
  }

  #refused(error: unknown): void {
    if (this.#filing === "refused") return;
    this.#filing = "refused";
    // A scan finds a session only if it noted every thread: start it over, unbounded.
    this.#index.bound(Number.POSITIVE_INFINITY);
    this.#scan = undefined;
    const reason = error instanceof Error ? error.message : String(error);
    console.warn(
      "[langchain-studio] The service refused a dataset id made up by the package to file " +
        `session threads (${reason}). Session look-ups fall back to listing every thread of the ` +
        "account (one call per 100 threads on a process's first look-up, then one call per " +
        "unknown session).",
    );
  }
}

const byClient = new WeakMap<StudioClient, Map<string, SessionDirectory>>();
const byAccount = new Map<string, Map<string, SessionDirectory>>();

function accountDirectories(identity: string): Map<string, SessionDirectory> {
  const found = byAccount.get(identity) ?? new Map<string, SessionDirectory>();
  // Map order is use order: the first key is the account used least recently.
  byAccount.delete(identity);
  byAccount.set(identity, found);
  if (byAccount.size > MAX_ACCOUNTS) {
    const oldest = byAccount.keys().next().value;
    if (oldest !== undefined) byAccount.delete(oldest);
  }
  return found;
}

/** The directory of the client's account (or of the client itself) for `userDataset`. */
export async function directoryFor(
  client: StudioClient,
  userDataset: string | undefined,
): Promise<SessionDirectory> {
  return directoryOf(client, await serviceIdentity(client), userDataset);
}

/** `directoryFor` without waiting, or undefined while the client's identity is computed. */
export function directoryNow(
  client: StudioClient,
  userDataset: string | undefined,
): SessionDirectory | undefined {
  const identity = serviceIdentityNow(client);
  return identity === "pending" ? undefined : directoryOf(client, identity, userDataset);
}

function directoryOf(
  client: StudioClient,
  identity: string | undefined,
  userDataset: string | undefined,
): SessionDirectory {
  let directories: Map<string, SessionDirectory>;
  if (identity === undefined) {
    directories = byClient.get(client) ?? new Map();
    byClient.set(client, directories);
  } else {
    directories = accountDirectories(identity);
  }
  const name = userDataset === undefined ? "" : `dataset:${userDataset}`;
  let directory = directories.get(name);
  if (!directory) {
    directory = new SessionDirectory(userDataset);
    directories.set(name, directory);
  }
  return directory;
}
