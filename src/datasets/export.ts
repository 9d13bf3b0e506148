/**
 * A dataset as fine-tuning records: every thread, read page by page through the dataset listing,
 * becomes one record. Threads the recorder wrote give their recorded run (messages sent, answer,
 * tools offered); other threads give their messages. A run stored twice (a write retried after
 * its answer was lost) is exported once.
 */
import type { BaseMessage } from "@langchain/core/messages";
import * as z from "zod/v4/mini";
import type { ChatMessageParam, ChatTool, DatasetThreadMessages } from "../api-types";
import type { RequestOptions } from "../client";
import { CLIENT_OPTION_NAMES } from "../client/options";
import { resolveClient, type StudioClientFields } from "../client/resolve";
import { convertMessagesToStudioParams } from "../converters/messages";
import { StudioValidationError } from "../errors";
import {
  functionField,
  type KnownKeys,
  nonEmptyString,
  oneOf,
  parseFields,
  refuseUnknownKeys,
} from "../validation";
import { useEnglishMessages } from "../zod-locale";
import { StudioInvalidRecordError } from "./errors";
import { decodeRunThread, type StoredConversation } from "./run-thread";
import {
  type FineTuneRecordProblem,
  maxTokensOf,
  type ValidateFineTuneRecordOptions,
  validateFineTuneRecord,
} from "./validate-record";

useEnglishMessages();

export type FineTuneFormat = "openai-chat" | "langchain";

/** One line of an OpenAI chat fine-tuning file. */
export interface OpenAIChatRecord {
  messages: ChatMessageParam[];
  /** The tools offered to the model, when there were any. */
  tools?: ChatTool[];
}

/** A thread as LangChain messages, as `loadDatasetConversations` gives it, with run and tools. */
export interface LangChainRecord {
  threadId: string;
  createdAt: string | number | undefined;
  /** The recorded run; undefined for threads the recorder did not write. */
  runId: string | undefined;
  messages: BaseMessage[];
  /** The tools offered to the model, in the OpenAI function-tool shape; empty when none. */
  tools: ChatTool[];
}

export type FineTuneRecord<F extends FineTuneFormat> = F extends "openai-chat"
  ? OpenAIChatRecord
  : LangChainRecord;

/** A thread the export left out, and why. */
export interface SkippedThread {
  threadId: string;
  runId: string | undefined;
  /** `invalid`: see `problems`; `duplicate`: the run was already exported from another thread. */
  reason: "invalid" | "duplicate";
  problems: FineTuneRecordProblem[];
}

export interface ExportFineTuneRecordsInput<F extends FineTuneFormat = FineTuneFormat>
  extends StudioClientFields,
    ValidateFineTuneRecordOptions {
  datasetId: string;
  format: F;
  /**
   * What to do with a thread that is not a valid record (`validateFineTuneRecord`): `"fail"`
   * (default) throws `StudioInvalidRecordError` naming the thread and its problems; `"skip"`
   * leaves it out and tells `onSkip`.
   */
  invalid?: "fail" | "skip";
  /** Told about every thread left out: invalid ones (with `invalid: "skip"`) and duplicate runs. */
  onSkip?: (skipped: SkippedThread) => void;
  /** Order of the threads; the service's default is created_at ascending. */
  order?: string;
  /** `auth` of the dataset call (organization, cluster). */
  auth?: { organization?: string; cluster?: string };
  /** Threads per page asked of the service. */
  pageSize?: number;
}

/** The conversation in OpenAI's chat format, converted as ChatStudio sends messages and tools. */
export function toOpenAIChatRecord(
  messages: readonly BaseMessage[],
  tools: readonly ChatTool[],
): OpenAIChatRecord {
  // The model's reasoning is not part of the fine-tuning format (services refuse unknown keys).
  const params = convertMessagesToStudioParams(messages).map((param) => {
    const { reasoning_content: _reasoning, ...rest } = param as ChatMessageParam & {
      reasoning_content?: unknown;
    };
    return rest as ChatMessageParam;
  });
  return tools.length > 0 ? { messages: params, tools: [...tools] } : { messages: params };
}

/** The export's input, checked before anything is read. */
const exportInputSchema = z.object(
  {
    datasetId: nonEmptyString(),
    format: oneOf(["openai-chat", "langchain"]),
    invalid: z.optional(oneOf(["fail", "skip"])),
    onSkip: z.optional(functionField()),
  },
  { error: "must be an object with a datasetId and a format" },
);

/** Every field of the export's input: its own, the dataset call's and the client's. */
const EXPORT_OWN = [
  ...Object.keys(exportInputSchema.shape),
  "maxTokens",
  "order",
  "auth",
  "pageSize",
];
const EXPORT_KEYS: KnownKeys = {
  owner: "exportFineTuneRecords",
  known: [...EXPORT_OWN, ...CLIENT_OPTION_NAMES, "client"],
  listed: [...EXPORT_OWN, "and the client options"],
};

function checkInput(input: ExportFineTuneRecordsInput): void {
  refuseUnknownKeys(input, EXPORT_KEYS);
  parseFields(exportInputSchema, input, "input");
}

function problemOf(code: "unreadable_thread" | "unsupported_message", error: unknown) {
  const path = error instanceof StudioValidationError ? error.field : "";
  const message = error instanceof Error ? error.message : String(error);
  return { code, path, message };
}

/** The thread read and checked: the conversation and its record, or why it is not one. */
function readThread(
  entry: DatasetThreadMessages,
  options: ValidateFineTuneRecordOptions,
): {
  conversation?: StoredConversation;
  record?: OpenAIChatRecord;
  problems: FineTuneRecordProblem[];
} {
  let conversation: StoredConversation;
  try {
    conversation = decodeRunThread(entry);
  } catch (error) {
    return { problems: [problemOf("unreadable_thread", error)] };
  }
  let record: OpenAIChatRecord;
  try {
    record = toOpenAIChatRecord(conversation.messages, conversation.tools);
  } catch (error) {
    return { conversation, problems: [problemOf("unsupported_message", error)] };
  }
  return { conversation, record, problems: validateFineTuneRecord(record, options) };
}

/**
 * Yields one record per thread of the dataset, in the listing's order: `format: "openai-chat"`
 * gives `{ messages, tools? }` (one JSONL line of an OpenAI chat fine-tuning file), `"langchain"`
 * gives the LangChain messages. Every record is checked with `validateFineTuneRecord` (see
 * `invalid`); a run already exported from another thread is left out.
 * @example
 * for await (const record of exportFineTuneRecords({ datasetId, format: "openai-chat" })) {
 *   out.write(`${JSON.stringify(record)}\n`);
 * }
 */
export async function* exportFineTuneRecords<F extends FineTuneFormat>(
  input: ExportFineTuneRecordsInput<F>,
  requestOptions?: RequestOptions,
): AsyncGenerator<FineTuneRecord<F>> {
  checkInput(input);
  const { datasetId, format, invalid, onSkip, maxTokens, order, auth, pageSize, ...clientFields } =
    input;
  const validation = { maxTokens: maxTokensOf({ maxTokens }) };
  const client = resolveClient(clientFields);
  const pages = client.iterateDatasetThreadsMessages(
    {
      datasetId,
      ...(order === undefined ? {} : { order }),
      ...(auth === undefined ? {} : { auth }),
      ...(pageSize === undefined ? {} : { pageSize }),
    },
    requestOptions,
  );
  // Run ids exported so far: memory grows with the dataset (one id per recorded run).
  const exported = new Set<string>();
  for await (const entry of pages) {
    const { conversation, record, problems } = readThread(entry, validation);
    const runId = conversation?.runId;
    const skip = (reason: SkippedThread["reason"]) =>
      onSkip?.({ threadId: entry.threadId, runId, reason, problems });
    if (runId !== undefined && exported.has(runId)) {
      skip("duplicate");
      continue;
    }
    if (problems.length > 0 || conversation === undefined || record === undefined) {
      if (invalid === "skip") {
        skip("invalid");
        continue;
      }
      throw new StudioInvalidRecordError({ threadId: entry.threadId, runId, problems });
    }
    if (runId !== undefined) exported.add(runId);
    yield (
      format === "openai-chat"
        ? record
        : {
            threadId: conversation.threadId,
            createdAt: conversation.createdAt,
            runId,
            messages: conversation.messages,
            tools: conversation.tools,
          }
    ) as FineTuneRecord<F>;
  }
}
