/**
 * The storage mapping of a recorded chat model run: one thread of the dataset per run, created
 * with all its messages in one call. Pure functions only; the recorder and the export do the I/O.
 *
 * The thread holds, in order:
 *   1. a header: a system message whose text is the JSON of the tools offered to the model (an
 *      array in the OpenAI function-tool shape, `[]` for none), marked by the run id in
 *      `additional_kwargs.lc_recorded_run`. Tools go in the text because it is the only place
 *      with room: metadata takes 16 values of at most 512 characters, and one tool's schema can
 *      exceed that;
 *   2. the messages the model was sent;
 *   3. the model's answer.
 * Each message goes through the thread codec, so it reads back equal to what was recorded.
 * The thread's metadata carries the run id as its client-made key (`lc_thread_key`, which lets a
 * write settle an ambiguous failure), `lc_kind: "model_run"` and the model (`lc_model`).
 *
 * Other readers of the dataset (`loadDatasetConversations`, the dashboard) see the header as a
 * system message holding JSON.
 */
import { type BaseMessage, SystemMessage } from "@langchain/core/messages";
import {
  type ChatTool,
  type CreateThreadRequest,
  type DatasetThreadMessages,
  METADATA_LIMITS,
  type Metadata,
  PATHS,
  type ThreadMessage,
} from "../api-types";
import {
  decodeMessage,
  decodeMessages,
  type EncodedMessage,
  encodeMessage,
  encodeMessages,
} from "../converters/thread-messages";
import { StudioResponseError, StudioValidationError } from "../errors";
import { KIND_KEY, THREAD_KEY } from "../threads/metadata";

/** Key, in the header's `additional_kwargs`, holding the run id. */
export const RUN_HEADER_KEY = "lc_recorded_run";
/** `lc_kind` of a recorded run's thread. */
export const RUN_KIND = "model_run";
/** Thread metadata key naming the model that ran. */
export const MODEL_KEY = "lc_model";

export interface RecordedRun {
  runId: string;
  /** What the model was sent, then its answer (last). */
  messages: BaseMessage[];
  /** The tools offered, in the OpenAI function-tool shape; empty when none. */
  tools: ChatTool[];
  model: string | undefined;
}

/** A run as a create-thread call, and its messages with their client ids (to confirm them). */
export interface RunThread {
  body: CreateThreadRequest & { metadata: Metadata };
  batch: EncodedMessage[];
}

/** A thread of a dataset as LangChain messages, with the run id and tools when recorded. */
export interface StoredConversation {
  threadId: string;
  createdAt: string | number | undefined;
  /** The recorded run; undefined for threads written by something else. */
  runId: string | undefined;
  /** The tools offered to the model; empty when none or unknown. */
  tools: ChatTool[];
  /** The conversation, without the header. */
  messages: BaseMessage[];
}

/**
 * The create-thread call storing `run` in `datasetId`. Throws `StudioValidationError` (naming
 * `messages[i]`) when a message cannot be stored losslessly; nothing is sent then.
 */
export function encodeRunThread(run: RecordedRun, datasetId: string): RunThread {
  if (run.runId.length > METADATA_LIMITS.maxValueLength) {
    throw new StudioValidationError(
      "runId",
      `is ${run.runId.length} characters; thread metadata holds at most ` +
        `${METADATA_LIMITS.maxValueLength}`,
    );
  }
  const header = new SystemMessage({
    content: JSON.stringify(run.tools),
    additional_kwargs: { [RUN_HEADER_KEY]: run.runId },
  });
  const headerId = crypto.randomUUID();
  const batch = [
    { clientId: headerId, input: encodeMessage(header, headerId, "tools") },
    ...encodeMessages(run.messages),
  ];
  const metadata: Metadata = { [THREAD_KEY]: run.runId, [KIND_KEY]: RUN_KIND };
  // The model name is for people curating the dataset; one too long to keep is left out.
  if (run.model && run.model.length <= METADATA_LIMITS.maxValueLength) {
    metadata[MODEL_KEY] = run.model;
  }
  return { body: { datasetId, metadata, messages: batch.map((m) => m.input) }, batch };
}

function runIdOf(message: BaseMessage): string | undefined {
  if (!SystemMessage.isInstance(message)) return undefined;
  const runId = message.additional_kwargs?.[RUN_HEADER_KEY];
  return typeof runId === "string" ? runId : undefined;
}

function readTools(header: BaseMessage, threadId: string, runId: string): ChatTool[] {
  let tools: unknown;
  try {
    tools = JSON.parse(header.text);
  } catch (error) {
    tools = error;
  }
  if (!Array.isArray(tools) || !tools.every((t) => typeof t === "object" && t !== null)) {
    throw new StudioResponseError(
      "POST",
      PATHS.listDatasetThreadsMessages,
      `thread ${threadId} holds recorded run ${runId}, but its tools message is not a JSON list ` +
        "of tools; it was changed outside this package. Delete the thread or rewrite that message.",
    );
  }
  return tools as ChatTool[];
}

/**
 * A dataset thread as a conversation. The header is looked for anywhere (the listing's message
 * order is not given by the spec); threads without one come back with no run id and no tools.
 * Throws `StudioResponseError` when a message cannot be read back.
 */
export function decodeRunThread(entry: DatasetThreadMessages): StoredConversation {
  const messages = decodeMessages(entry.messages);
  const at = messages.findIndex((message) => runIdOf(message) !== undefined);
  const base = { threadId: entry.threadId, createdAt: entry.createdAt };
  if (at < 0) return { ...base, runId: undefined, tools: [], messages };
  const header = messages[at]!;
  const runId = runIdOf(header)!;
  return {
    ...base,
    runId,
    tools: readTools(header, entry.threadId, runId),
    messages: messages.filter((_, i) => i !== at),
  };
}

/**
 * Copies of `messages` that share nothing with them, made by the codec's round trip (the one
 * lossless copy of any LangChain message the package has): a redact hook may change them in
 * place without touching the application's own messages.
 */
export function copyMessages(messages: readonly BaseMessage[]): BaseMessage[] {
  return encodeMessages(messages).map(({ clientId, input }) =>
    decodeMessage({ ...input, id: clientId, content: input.content } as ThreadMessage),
  );
}
