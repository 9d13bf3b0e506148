/**
 * One constant per call of the interface: method, address, key header, retry class, response
 * schema and kind of path. The retry class of each call is decided here, with the reason next to
 * it.
 */

import type * as z from "zod/v4/mini";
import {
  AssistantSchema,
  DeletedSchema,
  ListDatasetThreadsMessagesResponseSchema,
  ListPublicModelsResponseSchema,
  listResponseSchema,
  ThreadMessageSchema,
  ThreadSchema,
} from "../api-types";
import type { AuthKind } from "./headers";
import { ChatCompletionSchema, TextCompletionSchema } from "./normalise";
import type { CallSpec, PathKind } from "./request";
import type { RetryClass } from "./retry";
import type { HttpMethod } from "./transport";

function spec<S extends z.ZodMiniType>(
  name: string,
  method: HttpMethod,
  target: "studio" | "proxy",
  auth: AuthKind,
  retryClass: RetryClass,
  schema: S,
  pathKind: PathKind,
): CallSpec<z.output<S>> {
  return Object.freeze({ name, method, target, auth, retryClass, schema, pathKind }) as CallSpec<
    z.output<S>
  >;
}

const ThreadListSchema = listResponseSchema(ThreadSchema);
const MessageListSchema = listResponseSchema(ThreadMessageSchema);
const AssistantListSchema = listResponseSchema(AssistantSchema);

export const CALLS = {
  // read: a listing; POST only because the service is remote-call style. No key header (spec).
  listPublicModels: spec(
    "listPublicModels",
    "POST",
    "studio",
    "none",
    "read",
    ListPublicModelsResponseSchema,
    "rpc",
  ),
  // read: a completion creates nothing on the server; repeating it costs tokens, not state.
  chatCompletion: spec(
    "chatCompletion",
    "POST",
    "proxy",
    "completion",
    "read",
    ChatCompletionSchema,
    "fixed",
  ),
  textCompletion: spec(
    "textCompletion",
    "POST",
    "proxy",
    "completion",
    "read",
    TextCompletionSchema,
    "fixed",
  ),
  // create: a repeat after an ambiguous failure could create a second thread.
  createThread: spec("createThread", "POST", "studio", "service", "create", ThreadSchema, "fixed"),
  getThread: spec("getThread", "GET", "studio", "service", "read", ThreadSchema, "by-id"),
  // read: deleting twice leaves the same state (the second may answer 404).
  deleteThread: spec("deleteThread", "DELETE", "studio", "service", "read", DeletedSchema, "by-id"),
  listThreads: spec("listThreads", "GET", "studio", "service", "read", ThreadListSchema, "fixed"),
  // create: a repeat could append the same message twice.
  createMessage: spec(
    "createMessage",
    "POST",
    "studio",
    "service",
    "create",
    ThreadMessageSchema,
    "by-id",
  ),
  listMessages: spec(
    "listMessages",
    "GET",
    "studio",
    "service",
    "read",
    MessageListSchema,
    "by-id",
  ),
  deleteMessage: spec(
    "deleteMessage",
    "DELETE",
    "studio",
    "service",
    "read",
    DeletedSchema,
    "by-id",
  ),
  // create: a repeat could create a second assistant.
  createAssistant: spec(
    "createAssistant",
    "POST",
    "studio",
    "service",
    "create",
    AssistantSchema,
    "fixed",
  ),
  getAssistant: spec("getAssistant", "GET", "studio", "service", "read", AssistantSchema, "by-id"),
  // read: deleting twice leaves the same state (the second may answer 404).
  deleteAssistant: spec(
    "deleteAssistant",
    "DELETE",
    "studio",
    "service",
    "read",
    DeletedSchema,
    "by-id",
  ),
  listAssistants: spec(
    "listAssistants",
    "GET",
    "studio",
    "service",
    "read",
    AssistantListSchema,
    "fixed",
  ),
  // read: a listing, POST only because of the remote-call style.
  listDatasetThreadsMessages: spec(
    "listDatasetThreadsMessages",
    "POST",
    "studio",
    "service",
    "read",
    ListDatasetThreadsMessagesResponseSchema,
    "rpc",
  ),
} as const;

/** Query string of the `/v1` lists; `order` is always sent (servers differ on the default). */
export function listQueryString(query: {
  limit?: number | undefined;
  order?: string | undefined;
  after?: string | undefined;
  before?: string | undefined;
  datasetId?: string | undefined;
}): string {
  let out = `?order=${encodeURIComponent(query.order ?? "asc")}`;
  if (query.limit !== undefined) out += `&limit=${query.limit}`;
  if (query.after !== undefined) out += `&after=${encodeURIComponent(query.after)}`;
  if (query.before !== undefined) out += `&before=${encodeURIComponent(query.before)}`;
  if (query.datasetId !== undefined) out += `&datasetId=${encodeURIComponent(query.datasetId)}`;
  return out;
}
