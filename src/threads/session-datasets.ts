/**
 * Sessions filed under datasets of their own, so that a fresh process finds a session, or proves
 * it new, in one or two calls however many threads the account holds.
 *
 * The service filters threads by `datasetId` and by nothing else. So the thread created for a
 * session carries `datasetId: "lc-<kind>-<32 hex of SHA-256(kind NUL sessionId)>"`, and listing
 * that dataset lists the session's threads and nothing else (a hash collision would only share a
 * listing: threads are still told apart by their `lc_session`/`lc_kind` tags). Why one dataset
 * per session, rather than a fixed number of hashed buckets or an index thread:
 *   - the cost is constant: one call returning one thread, at any account size. Buckets grow with
 *     the number of sessions, and their count is a layout parameter every version would have to
 *     keep forever;
 *   - nothing shared is updated: an index thread takes a write of its own on every new session
 *     and a race rule of its own; here the session's thread is the only write, and the race rule
 *     applies unchanged to the few threads of one listing (the creator's check is that listing);
 *   - nothing to migrate: the dataset id follows from the session id alone.
 * The price is one dataset id per session on the service, and a thread can be in one dataset
 * only: a caller who files sessions under a dataset of their own (for export) gets that dataset
 * listed instead (see `session-directory.ts`).
 *
 * The spec does not say whether a `datasetId` must name a dataset created beforehand. A service
 * that refuses made-up ids with a 4xx is noticed on the listing or on the first create, and the
 * package falls back to listing every thread, with a warning. A service could also answer an
 * empty list for an unknown dataset yet refuse it on create: a process that only reads would then
 * miss sessions created during a fallback. So the account records that it files sessions: a
 * thread in the dataset "lc-sessions" tagged `lc_kind: "session-layout"`, created before the
 * first session thread. An empty session dataset proves a session new only when that record
 * exists; without it (a new account, or a service that cannot file), the account is listed.
 */
import type { Thread } from "../api-types";
import type { StudioClient } from "../client";
import { StudioAPIError } from "../errors";
import { isLayoutRecord, LAYOUT_DATASET, layoutThread } from "../records/session-layout";
import { sha256Hex } from "./service-identity";

/** Hex digits of the hash kept in a session's dataset id: 128 bits. */
const HASH_DIGITS = 32;

/** The dataset a session's threads are filed under. */
export async function sessionDatasetId(kind: string, sessionId: string): Promise<string> {
  const hash = await sha256Hex(`${kind}\u0000${sessionId}`);
  return `lc-${kind}-${hash.slice(0, HASH_DIGITS)}`;
}

const SESSION_DATASET = new RegExp(`^lc-[a-z]+-[0-9a-f]{${HASH_DIGITS}}$`);

/**
 * Whether a thread may hold a session looked up without a dataset of the caller's: one in no
 * dataset (created where filing was refused), or in its session's own dataset. A session thread
 * in a caller's dataset belongs to that dataset's sessions. (The spec's Thread has no `datasetId`;
 * a service that does not send it leaves the two apart only by the listing that finds them.)
 */
export function mayHoldUnscopedSession(thread: Thread): boolean {
  const datasetId = thread.datasetId;
  return datasetId === undefined || datasetId === null || SESSION_DATASET.test(datasetId);
}

/** Whether a call that named a made-up dataset id was refused because of it. */
export function refusesDataset(error: unknown): boolean {
  return (
    error instanceof StudioAPIError &&
    // A 404 that blames the address (baseUrl and proxyUrl swapped) is no refusal: no fallback.
    error.wrongAddress === undefined &&
    (error.status === 400 || error.status === 404 || error.status === 422)
  );
}

/**
 * Whether the account holds the record that its sessions are filed by dataset.
 * @throws StudioStoredFormatError for a record of a newer format.
 */
export async function hasLayoutRecord(client: StudioClient): Promise<boolean> {
  const query = { datasetId: LAYOUT_DATASET, order: "asc" as const, limit: 1 };
  for await (const thread of client.iterateThreads(query)) {
    return isLayoutRecord(thread.metadata);
  }
  return false;
}

/**
 * Creates the record. Two processes may both create one: any number of records says the same.
 * @throws the service's error, e.g. a refusal of the dataset id (`refusesDataset`).
 */
export async function createLayoutRecord(client: StudioClient): Promise<void> {
  await client.createThread(layoutThread());
}
