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

/** A call's spec but its name, which is its key in `CALLS`. */
type Unnamed<T> = Omit<CallSpec<T>, "name">;

function spec<S extends z.ZodMiniType>(
  method: HttpMethod,
  target: "studio" | "proxy",
  auth: AuthKind,
  retryClass: RetryClass,
  schema: S,
  pathKind: PathKind,
): Unnamed<z.output<S>> {
  // `S` is its own output's schema; TypeScript cannot see that through zod's generics.
  return { method, target, auth, retryClass, schema, pathKind } as Unnamed<z.output<S>>;
}

/**
 * Names each spec after its key, so the client method and the name its errors give cannot drift
 * apart.
 */
function named<T extends Record<string, Unnamed<unknown>>>(
  table: T,
): { readonly [K in keyof T & string]: T[K] & { readonly name: K } } {
  return Object.fromEntries(
    Object.entries(table).map(([name, unnamed]) => [name, Object.freeze({ name, ...unnamed })]),
  ) as { readonly [K in keyof T & string]: T[K] & { readonly name: K } };
}

const ThreadListSchema = listResponseSchema(ThreadSchema);
const MessageListSchema = listResponseSchema(ThreadMessageSchema);
const AssistantListSchema = listResponseSchema(AssistantSchema);

export const CALLS = named({
  // read: a listing; POST only because the service is remote-call style. No key header (spec).
  listPublicModels: spec("POST", "studio", "none", "read", ListPublicModelsResponseSchema, "rpc"),
  // read: a completion creates nothing on the server; repeating it costs tokens, not state.
  chatCompletion: spec("POST", "proxy", "completion", "read", ChatCompletionSchema, "fixed"),
  textCompletion: spec("POST", "proxy", "completion", "read", TextCompletionSchema, "fixed"),
  // create: a repeat after an ambiguous failure could create a second thread.
  createThread: spec("POST", "studio", "service", "create", ThreadSchema, "fixed"),
  getThread: spec("GET", "studio", "service", "read", ThreadSchema, "by-id"),
  // read: deleting twice leaves the same state (the second may answer 404).
  deleteThread: spec("DELETE", "studio", "service", "read", DeletedSchema, "by-id"),
  listThreads: spec("GET", "studio", "service", "read", ThreadListSchema, "fixed"),
  // create: a repeat could append the same message twice.
  createMessage: spec("POST", "studio", "service", "create", ThreadMessageSchema, "by-id"),
  listMessages: spec("GET", "studio", "service", "read", MessageListSchema, "by-id"),
  deleteMessage: spec("DELETE", "studio", "service", "read", DeletedSchema, "by-id"),
  // create: a repeat could create a second assistant.
  createAssistant: spec("POST", "studio", "service", "create", AssistantSchema, "fixed"),
  getAssistant: spec("GET", "studio", "service", "read", AssistantSchema, "by-id"),
  // read: deleting twice leaves the same state (the second may answer 404).
  deleteAssistant: spec("DELETE", "studio", "service", "read", DeletedSchema, "by-id"),
  listAssistants: spec("GET", "studio", "service", "read", AssistantListSchema, "fixed"),
  // read: a listing, POST only because of the remote-call style.
  listDatasetThreadsMessages: spec(
    "POST",
    "studio",
    "service",
    "read",
    ListDatasetThreadsMessagesResponseSchema,
    "rpc",
  ),
});

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
