/**
 * Conversations of a thread dataset as LangChain messages, for evaluation and fine-tuning
 * exports. Pages are followed to the end; messages go through the same codec as the history.
 */
import type { BaseMessage } from "@langchain/core/messages";
import * as z from "zod/v4/mini";
import type { RequestOptions } from "../client/options";
import { CLIENT_OPTION_NAMES } from "../client/options";
import { resolveClient, type StudioClientFields } from "../client/resolve";
import { decodeMessages } from "../converters/thread-messages";
import { keepCallsTogether } from "../threads/calls";
import { nonEmptyString, parseFields, refuseUnknownKeys } from "../validation";
import { useEnglishMessages } from "../zod-locale";

useEnglishMessages();

const conversationsInputSchema = z.object({ datasetId: nonEmptyString() });

/** The input's own fields (the client's are the rest). */
const CONVERSATIONS_OWN = ["datasetId", "order", "auth", "pageSize"];

export interface DatasetConversation {
  threadId: string;
  /** As the service sent it (a timestamp string or number), undefined when it sent none. */
  createdAt: string | number | undefined;
  /**
   * The thread's messages in the order the service lists them, except that the messages of one
   * history `addMessages` call come together, as `getMessages()` returns them (see `calls.ts`).
   */
  messages: BaseMessage[];
}

/** The dataset to read, and either a `client` or the client options (`apiKey`, `baseUrl`...). */
export interface LoadDatasetConversationsInput extends StudioClientFields {
  datasetId: string;
  /** Order of the threads; the service's default is created_at ascending. */
  order?: string;
  /** `auth` of the dataset call (organization, cluster). */
  auth?: { organization?: string; cluster?: string };
  /** Threads per page asked of the service. */
  pageSize?: number;
}

/**
 * Yields each thread of the dataset with its messages decoded.
 * @example
 * for await (const { threadId, messages } of loadDatasetConversations({ datasetId })) { ... }
 */
export async function* loadDatasetConversations(
  input: LoadDatasetConversationsInput,
  requestOptions?: RequestOptions,
): AsyncGenerator<DatasetConversation> {
  refuseUnknownKeys(input, {
    owner: "loadDatasetConversations",
    known: [...CONVERSATIONS_OWN, ...CLIENT_OPTION_NAMES, "client"],
    listed: [...CONVERSATIONS_OWN, "and the client options"],
  });
  parseFields(conversationsInputSchema, { datasetId: input?.datasetId });
  const client = resolveClient(input);
  const pages = client.iterateDatasetThreadsMessages(
    {
      datasetId: input.datasetId,
      ...(input.order === undefined ? {} : { order: input.order }),
      ...(input.auth === undefined ? {} : { auth: input.auth }),
      ...(input.pageSize === undefined ? {} : { pageSize: input.pageSize }),
    },
    requestOptions,
  );
  for await (const entry of pages) {
    yield {
      threadId: entry.threadId,
      createdAt: entry.createdAt,
      messages: decodeMessages(keepCallsTogether(entry.messages)),
    };
  }
}
