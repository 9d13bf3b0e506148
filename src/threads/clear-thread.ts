/**
 * Emptying a thread, for `clear()`: each of its messages deleted. Some deployments have no message
 * delete (the call answers 405 or 501, or 404 for a message that is still there); their thread
 * cannot be emptied, so the conversation starts over in a new thread instead: the old thread is
 * deleted, which is also what makes every process's session look-up (the oldest thread tagged with
 * the session) find the new one rather than the old.
 */
import type { StudioClient } from "../client";
import { StudioAPIError, StudioError, StudioNotFoundError } from "../errors";

const PAGE = 100;
/** Parallel deletes: enough to be quick, few enough not to flood the service. */
const CONCURRENCY = 4;
/** 405: the path takes no DELETE; 501: the server has no such call. */
const NO_SUCH_CALL = new Set([405, 501]);

/**
 * What became of the thread: `emptied` (it stays, without messages), `deleted` (the service
 * deletes no messages, so the thread went instead), `kept` (the service deletes neither; the
 * thread still holds the messages and the caller must stop using it).
 */
export type ClearOutcome = "emptied" | "deleted" | "kept";

/**
 * Empties `threadId`, or deletes it when the service cannot delete its messages. `sessionId`:
 * the session the thread holds, if any. A session thread found gone raises the 404 (so the
 * caller looks the session up again); a session thread that can be neither emptied nor deleted
 * raises, since a new thread would not be the one the session's look-up finds.
 */
export async function clearThread(
  client: StudioClient,
  threadId: string,
  sessionId: string | undefined,
): Promise<ClearOutcome> {
  const refused = await deleteMessages(client, threadId);
  if (refused === undefined) return "emptied";
  const deleted = await deleteThread(client, threadId, sessionId);
  if (!deleted && sessionId !== undefined) {
    throw new StudioError(
      `clear() cannot empty session "${sessionId}": the service deletes neither its messages ` +
        `(${describe(refused)}) nor its thread ${threadId}, and a new thread would not be the ` +
        "one every process finds for the session (the oldest). Use another sessionId.",
      { cause: refused },
    );
  }
  warnOnce(
    client,
    deleted
      ? `clear() deleted thread ${threadId} instead of its messages, because the service has no ` +
          `message delete (${describe(refused)}): the history's next write starts a new thread, ` +
          "so its threadId changes."
      : `clear() could not delete the messages of thread ${threadId} (${describe(refused)}) nor ` +
          "the thread itself: the thread still holds them. The history's next write starts a new " +
          "thread, so its threadId changes.",
  );
  return deleted ? "deleted" : "kept";
}

/**
 * Deletes every message; resolves to the error showing that the service deletes none, if it
 * does not (nothing was deleted then).
 */
async function deleteMessages(
  client: StudioClient,
  threadId: string,
): Promise<StudioAPIError | undefined> {
  const ids: string[] = [];
  // All ids first: deleting while paging could pull the `after` cursor from under the list.
  for await (const message of client.iterateMessages(threadId, { order: "asc", limit: PAGE })) {
    ids.push(message.id);
  }
  if (ids.length === 0) return undefined;
  // The first delete alone: it shows whether the service deletes messages at all.
  const refused = await deleteFirst(client, threadId, ids[0]!);
  if (refused !== undefined) return refused;
  let next = 1;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      try {
        await client.deleteMessage(threadId, id);
      } catch (error) {
        // Gone already: another process is clearing too.
        if (!(error instanceof StudioNotFoundError)) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ids.length - 1) }, worker));
  return undefined;
}

/**
 * Deletes the oldest message; resolves to the error when the service has no message delete. A 404
 * is that too when the message is still listed (one more call, on a 404 only); otherwise the
 * message was deleted by someone else.
 */
async function deleteFirst(
  client: StudioClient,
  threadId: string,
  messageId: string,
): Promise<StudioAPIError | undefined> {
  try {
    await client.deleteMessage(threadId, messageId);
    return undefined;
  } catch (error) {
    if (error instanceof StudioAPIError && NO_SUCH_CALL.has(error.status)) return error;
    if (!(error instanceof StudioNotFoundError)) throw error;
    const { data } = await client.listMessages(threadId, { order: "asc", limit: 1 });
    return data[0]?.id === messageId ? error : undefined;
  }
}

/** Whether the thread is gone (deleted now, or already, unless it held a session). */
async function deleteThread(
  client: StudioClient,
  threadId: string,
  sessionId: string | undefined,
): Promise<boolean> {
  try {
    await client.deleteThread(threadId);
    return true;
  } catch (error) {
    if (error instanceof StudioAPIError && NO_SUCH_CALL.has(error.status)) return false;
    if (error instanceof StudioNotFoundError && sessionId === undefined) return true;
    throw error;
  }
}

function describe(error: StudioAPIError): string {
  return `${error.method} ${error.path} answered ${error.status}`;
}

/** Service addresses already warned about: the warning is about the deployment, said once. */
const warned = new Set<string>();

function warnOnce(client: StudioClient, text: string): void {
  const address = String(client.toJSON().baseUrl);
  if (warned.has(address)) return;
  warned.add(address);
  console.warn(`[langchain-studio] ${text}`);
}
