/**
 * Session threads: a caller's own id (a chat session id, a LangGraph `thread_id`) resolved to the
 * service thread that holds it, for the history, the LangGraph checkpointer and any other store.
 *
 * The service has no look-up by metadata, so the thread a session creates is tagged in its metadata
 * (`lc_session: <id>`, `lc_kind: "history" | "checkpoint"`) and filed under a dataset of its own,
 * which is listed to find it: one call, however many threads the account holds
 * (`session-datasets.ts`; `session-directory.ts` says when the account is scanned instead). What a
 * process has found is remembered per account; a thread found deleted is forgotten and the
 * session looked up again.
 *
 * Two processes can create a thread for the same new session at once. The rule that keeps one
 * conversation: the session's thread is the tagged thread with the earliest `createdAt` (then the
 * smallest id). After creating, a creator lists the session's threads again; if an older one holds
 * the session, it appends its messages there, deletes its own thread and answers with the older
 * one. So both end up writing to one thread. A creator that cannot make that check does not take
 * its thread for the session's: the next look-up in the process makes the check, and moves the
 * messages if its thread lost.
 */

import * as z from "zod/v4/mini";
import type { Thread, ThreadMessageInput } from "../api-types";
import { METADATA_LIMITS } from "../api-types";
import type { StudioClient } from "../client";
import { hasLoneSurrogate } from "../converters/thread-content";
import type { EncodedMessage } from "../converters/thread-messages";
import { CODEC_KEYS } from "../records/history-message";
import { parseFields } from "../validation";
import { useEnglishMessages } from "../zod-locale";
import { DEFAULT_WRITE_POLICY, retried, type WritePolicy } from "./backoff";
import {
  appendConfirmed,
  completeBatch,
  createThreadConfirmed,
  findThreadsByKey,
  isThreadGone,
  notConfirmedError,
  PartialWrite,
  recentClientIds,
} from "./confirmed-writes";
import {
  checkThreadMetadata,
  KIND_KEY,
  SESSION_KEY,
  SESSION_RESERVED_KEYS,
  THREAD_KEY,
} from "./metadata";
import {
  directoryFor,
  directoryNow,
  type SessionDirectory,
  type SessionKind,
  type SessionRef,
  sessionRef,
} from "./session-directory";
import { sessionKey } from "./session-index";

useEnglishMessages();

export type { SessionKind } from "./session-directory";

export interface SessionScope {
  /**
   * Keep the session's thread in this dataset of yours (for export): look-ups then list that
   * dataset's threads instead of the session's own dataset.
   */
  datasetId?: string | undefined;
}

export interface CreateSessionThreadInit extends SessionScope {
  title?: string | undefined;
  /** Extra thread metadata (string values; at most 13 keys, three are the session's). */
  metadata?: Record<string, string> | undefined;
  /**
   * First messages, stored exactly once and in order. Each should carry a unique `lc_id` in its
   * metadata (it is what confirms an ambiguous write); one is added when missing.
   */
  messages?: readonly ThreadMessageInput[] | undefined;
  /** Attempts and pause for ambiguous failures (default 3 attempts, 250 ms). */
  policy?: WritePolicy | undefined;
}

export interface SessionThread {
  threadId: string;
  /** True when this call created the session's thread, false when it already existed. */
  created: boolean;
}

/**
 * What is wrong with a session id as it will be stored (a metadata value) and hashed (as UTF-8),
 * or undefined: a lone surrogate is not Unicode, a service storing UTF-8 would turn it into U+FFFD,
 * and the session would never be found again under the id the caller knows.
 */
function sessionIdProblem(sessionId: unknown): string | undefined {
  if (typeof sessionId !== "string" || sessionId === "") return "must be a non-empty string";
  if (sessionId.length > METADATA_LIMITS.maxValueLength) {
    return (
      `is ${sessionId.length} characters; it is stored as thread metadata, which holds at ` +
      `most ${METADATA_LIMITS.maxValueLength}`
    );
  }
  if (hasLoneSurrogate(sessionId)) {
    return (
      "holds a lone surrogate (half of a UTF-16 pair), which is not Unicode: a service " +
      "storing UTF-8 would change it and never find the session again"
    );
  }
  return undefined;
}

/** A session id field (`sessionId`, a LangGraph `thread_id` used as one). */
export const sessionIdSchema = z.custom<string>().check((ctx) => {
  const problem = sessionIdProblem(ctx.value);
  if (problem !== undefined)
    ctx.issues.push({ code: "custom", input: ctx.value, message: problem });
});

/**
 * Throws the `StudioValidationError` naming `field` when `sessionId` is not a usable session id.
 */
export function checkSessionId(field: string, sessionId: unknown): asserts sessionId is string {
  parseFields(z.object({ [field]: sessionIdSchema }), { [field]: sessionId });
}

/**
 * The session's thread: the one this process last found, else looked up. A thread this process
 * created without being able to check for an older one is checked first (and its messages moved
 * to the older one if there is one).
 */
async function resolveSession(
  client: StudioClient,
  directory: SessionDirectory,
  session: SessionRef,
  policy: WritePolicy,
): Promise<string | undefined> {
  const pending = directory.unchecked.get(session.key);
  if (pending === undefined) return (await directory.find(client, session))?.id;
  let threadId = pending.threadId;
  if (threadId === undefined && pending.threadKey !== undefined) {
    // A creation whose outcome was lost: if it happened, its thread is checked like the others.
    const datasetId = directory.datasetFor(session);
    threadId = (await findThreadsByKey(client, pending.threadKey, datasetId))[0]?.id;
    if (threadId === undefined) {
      directory.unchecked.delete(session.key);
      return (await directory.find(client, session))?.id;
    }
    directory.unchecked.set(session.key, { threadId, batch: pending.batch });
  }
  const unchecked = { threadId: threadId!, batch: pending.batch };
  const winner = await directory.look(client, session, true);
  if (winner !== undefined && winner.id !== unchecked.threadId) {
    try {
      await moveToWinner(client, policy, directory, session, unchecked, winner.id, "unknown");
    } catch {
      // Tried again on the next look-up; meanwhile the session reads from its own thread.
      return winner.id;
    }
  }
  directory.unchecked.delete(session.key);
  return winner?.id;
}

/**
 * The id of the thread holding `sessionId` (of this `kind`), or undefined when none exists yet.
 * A session this process has found costs no call; otherwise its dataset is listed (one call).
 */
export async function findSessionThread(
  client: StudioClient,
  sessionId: string,
  kind: SessionKind,
  scope?: SessionScope,
): Promise<string | undefined> {
  checkSessionId("sessionId", sessionId);
  const directory = await directoryFor(client, scope?.datasetId);
  return resolveSession(client, directory, await sessionRef(sessionId, kind), DEFAULT_WRITE_POLICY);
}

/**
 * Forgets a thread of the session (one found deleted, or deleted by the caller): the next look-up
 * asks the service again. `threadId` names the thread; without it, the one last found.
 */
export function forgetSessionThread(
  client: StudioClient,
  sessionId: string,
  kind: SessionKind,
  scope?: SessionScope,
  threadId?: string,
): void {
  const session = { key: sessionKey(kind, sessionId) };
  const directory = directoryNow(client, scope?.datasetId);
  if (directory) directory.drop(session, threadId);
  // While the client's account identity is still being computed, the drop waits for it.
  else void directoryFor(client, scope?.datasetId).then((later) => later.drop(session, threadId));
}

/** Adds `lc_id` to messages that lack one, so that every write can be confirmed. */
function encoded(messages: readonly ThreadMessageInput[]): EncodedMessage[] {
  return messages.map((input) => {
    const existing = input.metadata?.[CODEC_KEYS.clientId];
    if (typeof existing === "string" && existing !== "") return { clientId: existing, input };
    const clientId = crypto.randomUUID();
    return {
      clientId,
      input: { ...input, metadata: { ...input.metadata, [CODEC_KEYS.clientId]: clientId } },
    };
  });
}

/**
 * The session's thread with `messages` appended: an existing thread of the session when there is
 * one, else a new thread created with them (tagged so any process finds it). Serialised per
 * session within the process; across processes the race rule in this module's comment holds.
 * @throws StudioWriteNotConfirmedError saying which messages are stored, which not, which unknown.
 */
export async function createSessionThread(
  client: StudioClient,
  sessionId: string,
  kind: SessionKind,
  init: CreateSessionThreadInit = {},
): Promise<SessionThread> {
  checkSessionId("sessionId", sessionId);
  checkThreadMetadata(init.metadata, SESSION_RESERVED_KEYS, "the session");
  const batch = encoded(init.messages ?? []);
  try {
    return await writeSessionThread(client, sessionId, kind, batch, init);
  } catch (error) {
    if (!(error instanceof PartialWrite)) throw error;
    throw notConfirmedError(
      error,
      batch.map((_, i) => i),
      batch.length,
    );
  }
}

export interface WriteSessionInit extends Omit<CreateSessionThreadInit, "messages"> {
  /** Client-made key of the thread, should one be created. */
  threadKey?: string | undefined;
  /** The last message known stored in a thread: read-backs in that thread stop there. */
  anchor?: { threadId: string; clientId: string } | undefined;
}

/**
 * `createSessionThread` on encoded messages, for the history. A session thread found deleted
 * (another process started the session over) is forgotten, and the batch written once more to
 * the session's thread as it is now: what the deleted thread held went with it.
 * @throws PartialWrite (positions in `batch`) when the write stops.
 */
export async function writeSessionThread(
  client: StudioClient,
  sessionId: string,
  kind: SessionKind,
  batch: readonly EncodedMessage[],
  init: WriteSessionInit = {},
): Promise<SessionThread> {
  const policy = init.policy ?? DEFAULT_WRITE_POLICY;
  const directory = await directoryFor(client, init.datasetId);
  const session = await sessionRef(sessionId, kind);
  return directory.writes.run(session.key, async () => {
    try {
      return await writeOnce(client, directory, session, batch, init, policy);
    } catch (error) {
      if (!isThreadGone(error)) throw error;
      directory.drop(session, error.threadId);
      return writeOnce(client, directory, session, batch, init, policy);
    }
  });
}

async function writeOnce(
  client: StudioClient,
  directory: SessionDirectory,
  session: SessionRef,
  batch: readonly EncodedMessage[],
  init: WriteSessionInit,
  policy: WritePolicy,
): Promise<SessionThread> {
  const nothingWritten = (what: string, cause: unknown) =>
    new PartialWrite({
      at: 0,
      state: "notStored",
      later: "notStored",
      attempts: 1,
      what,
      cause,
      threadId: undefined,
    });
  let existing: string | undefined;
  try {
    existing = await resolveSession(client, directory, session, policy);
  } catch (error) {
    throw nothingWritten(`look up the thread of session "${session.sessionId}"`, error);
  }
  if (existing !== undefined) {
    const anchor = init.anchor?.threadId === existing ? init.anchor.clientId : undefined;
    await appendConfirmed(client, policy, existing, batch, anchor);
    return { threadId: existing, created: false };
  }

  await directory.prepareFiling(client);
  const datasetId = directory.datasetFor(session);
  const metadata: Record<string, string> = {
    ...init.metadata,
    [SESSION_KEY]: session.sessionId,
    [KIND_KEY]: session.kind,
    [THREAD_KEY]: init.threadKey ?? crypto.randomUUID(),
  };
  let thread: Thread;
  try {
    const created = await createThreadConfirmed(client, policy, {
      messages: batch.map((message) => message.input),
      metadata,
      ...(init.title === undefined ? {} : { title: init.title }),
      ...(datasetId === undefined ? {} : { datasetId }),
    });
    thread = created.thread;
    if (created.foundAfterFailure) await completeBatch(client, policy, thread.id, batch);
  } catch (error) {
    if (!(error instanceof PartialWrite)) throw error;
    if (error.threadId === undefined) {
      // The create may have happened (its answer and the look-up by key were lost): a thread of
      // the session nobody checked against an older one. The next look-up looks for its key.
      if (error.state === "unknown") {
        directory.unchecked.set(session.key, { threadKey: metadata[THREAD_KEY], batch });
      }
      throw error;
    }
    // Created, but not checked against an older thread of the session yet.
    directory.unchecked.set(session.key, { threadId: error.threadId, batch });
    throw unchecked(error, error.threadId);
  }

  // The thread is not taken for the session's before this listing: an older one may exist.
  const threadId = thread.id;
  let winner: string | undefined;
  try {
    winner = (
      await retried(
        policy,
        () => directory.look(client, session),
        () => true,
      )
    )?.id;
  } catch (error) {
    directory.unchecked.set(session.key, { threadId, batch });
    throw unchecked(
      new PartialWrite({
        at: 0,
        state: "unknown",
        attempts: policy.maxAttempts,
        what:
          `check that no other process created session "${session.sessionId}"'s thread at ` +
          "the same time",
        cause: error,
        threadId,
      }),
      threadId,
    );
  }
  if (winner === undefined || winner === threadId) {
    // (A listing that lags behind the create does not show it yet.)
    directory.note(thread);
    return { threadId, created: true };
  }
  // Another process created the session's thread first: move this call's messages there.
  try {
    await moveToWinner(client, policy, directory, session, { threadId, batch }, winner, "all");
  } catch (error) {
    // What did not reach the winner is in this call's thread: the next look-up finishes the move.
    if (error instanceof PartialWrite) directory.unchecked.set(session.key, { threadId, batch });
    throw error;
  }
  return { threadId: winner, created: false };
}

/**
 * A stop in a thread not yet known to be the session's: whatever it stored may not be in the
 * session's thread, so nothing of the batch counts as stored; the next look-up settles it.
 */
function unchecked(partial: PartialWrite, threadId: string): PartialWrite {
  return new PartialWrite({
    at: 0,
    state: "unknown",
    later: "unknown",
    attempts: partial.attempts,
    what: partial.what,
    cause: partial.cause,
    threadId,
    note:
      `Thread ${threadId} was created for the session and holds what was stored, but it is ` +
      "not known yet whether another process created the session's thread first. The next " +
      "look-up of the session in this process checks, and moves these messages to the " +
      "session's thread if so; calling addMessages again with the same message objects " +
      "stores only what the session's thread lacks.",
  });
}

/**
 * Appends what `loser` holds of its batch to the session's thread `winner`, then deletes `loser`.
 * `held`: "all" when the loser is known to hold the whole batch, "unknown" to read it first.
 */
async function moveToWinner(
  client: StudioClient,
  policy: WritePolicy,
  directory: SessionDirectory,
  session: SessionRef,
  loser: { threadId: string; batch: readonly EncodedMessage[] },
  winner: string,
  held: "all" | "unknown",
): Promise<void> {
  let moving = loser.batch;
  if (held === "unknown") {
    const inLoser = await recentClientIds(client, loser.threadId, undefined);
    const inWinner = await recentClientIds(client, winner, undefined);
    moving = loser.batch.filter((m) => inLoser.has(m.clientId) && !inWinner.has(m.clientId));
  }
  try {
    await appendConfirmed(client, policy, winner, moving, undefined);
  } catch (error) {
    if (!(error instanceof PartialWrite)) throw error;
    // The messages from the stop on are not confirmed in the winner, but the loser holds them:
    // "not stored" would be wrong (issue 28), and the next look-up moves them (the caller keeps
    // the loser as unchecked), so in the session's thread they are unknown until then.
    throw new PartialWrite({
      at: error.at,
      state: "unknown",
      later: "unknown",
      attempts: error.attempts,
      what: error.what,
      cause: error.cause,
      threadId: winner,
      note:
        `Another process created session "${session.sessionId}"'s thread ${winner} at the ` +
        `same time; the messages not confirmed there are in thread ${loser.threadId}, which the ` +
        `session's next look-up in this process moves to ${winner} and deletes.`,
    });
  }
  try {
    await client.deleteThread(loser.threadId);
  } catch {
    // Harmless if it stays (look-ups always pick the older thread), and gone already is fine.
  }
  directory.drop(session, loser.threadId);
}
